package safetensorsimport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// FuzzRead reads arbitrary bytes as a safetensors file through Read, the
// path the CLI takes (memory-mapped). Seeds: small files built here, the
// committed corpus, and the real library's files in the shared fixtures
// when present.
func FuzzRead(f *testing.F) {
	f.Add(file(`{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"I64","shape":[],"data_offsets":[16,24]}}`, 24))
	f.Add(file(`{"x":{"dtype":"BF16","shape":[3],"data_offsets":[0,6]},"y":{"dtype":"BOOL","shape":[0],"data_offsets":[6,6]}}`, 6))
	f.Add(file(`{}`, 0))
	for _, b := range readcheck.Seeds(64<<10, "torch-files/safetensors/*.safetensors") {
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "fuzz.safetensors")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := Read(p, formats.ReadOptions{})
		readcheck.CheckError(t, err)
		if err == nil {
			readcheck.CheckGraph(t, g, len(b))
			for _, tt := range g.Initializers {
				if int64(len(tt.Data)) != tt.ByteSize() {
					t.Errorf("tensor %q holds %d bytes for %s%v", tt.Name, len(tt.Data), tt.DType, tt.Shape)
				}
			}
			g.Close()
		}
	})
}
