package robust

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bigSafetensors writes one float32 tensor of n elements: large enough to
// be mapped and to take a while to convert.
func bigSafetensors(t *testing.T, path string, n int64) {
	t.Helper()
	header := fmt.Sprintf(`{"w":{"dtype":"F32","shape":[%d],"data_offsets":[0,%d]}}`, n, 4*n)
	for len(header)%8 != 0 {
		header += " "
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	binary.Write(f, binary.LittleEndian, uint64(len(header)))
	f.WriteString(header)
	// A sparse file: reading it costs no disk, and it is all zeros.
	if err := f.Truncate(int64(8+len(header)) + 4*n); err != nil {
		t.Fatal(err)
	}
}

// Truncating the input while it is converted must give the usual one-line
// error (or, when the truncation comes late, success), never a SIGBUS
// crash with a goroutine dump. The truncation is timed at several points
// of a conversion measured first; the window in which the mapping is read
// is short, so this is a smoke test: internal/panicerr's test faults
// deterministically.
func TestTruncatedWhileMapped(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "big.safetensors")
	bigSafetensors(t, in, 64<<20)
	start := time.Now()
	if _, stderr, code := runBin(t, "convert", "--quiet", in, filepath.Join(dir, "ok-symbol.json")); code != 0 {
		t.Fatalf("converting the intact file: %s", stderr)
	}
	full := time.Since(start)
	faults := 0
	const tries = 20
	for i := 1; i <= tries; i++ {
		bigSafetensors(t, in, 64<<20)
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		cmd := exec.CommandContext(ctx, modelbridgeBin, "convert", "--quiet", in, filepath.Join(dir, "out-symbol.json"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(full * time.Duration(i) / tries)
		os.Truncate(in, 4096)
		cmd.Wait()
		cancel()
		msg := stderr.String()
		if strings.Contains(msg, "goroutine ") || strings.Contains(msg, "SIGBUS") || strings.Contains(msg, "fatal error") {
			t.Fatalf("truncation at %d/%d of the run crashed the command:\n%.2000s", i, tries, msg)
		}
		if strings.Contains(msg, "changed while it was read") {
			faults++
			if strings.Count(strings.TrimSpace(msg), "\n") != 0 {
				t.Errorf("want one line: %q", msg)
			}
		}
	}
	t.Logf("%d of %d truncations hit the mapping (the others came before it was mapped or after it was read)", faults, tries)
}
