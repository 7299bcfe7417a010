package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The generated files in the package are what the generator writes now:
// regenerating changes nothing (run go generate ./interp/internal/vec
// after changing the description).
func TestGeneratedFilesUpToDate(t *testing.T) {
	for name, want := range generate() {
		got, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatalf("%s: %v (run go generate ./interp/internal/vec)", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what ./gen writes: run go generate ./interp/internal/vec", name)
		}
	}
}

// evexOnly matches what an AVX2 machine cannot run: ZMM, opmask and upper
// 16 vector registers, embedded broadcasts, and AVX-512's own mnemonics.
var evexOnly = regexp.MustCompile(`\b(Z\d+|K[0-7]|[XY](1[6-9]|2\d|3[01]))\b|\.BCST|\b(VP(AND|ANDN|OR|XOR)[DQ]|VMOVDQU(8|16|32|64)|VPERMT2\w+|VEXTRACT[FI](32X4|64X4|32X8|64X2)|K\w+W)\b`)

// The AVX2 files use AVX2 and FMA3 only.
func TestAVX2FilesNeedNoAVX512(t *testing.T) {
	for name, b := range generate() {
		if !strings.Contains(name, "avx2") {
			continue
		}
		for n, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "//") {
				continue
			}
			if m := evexOnly.FindString(line); m != "" {
				t.Errorf("%s:%d: %q needs AVX-512: %s", name, n+1, m, line)
			}
		}
	}
}
