package tfliteimport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// FuzzRead reads fuzzed .tflite files (seeded with the shared fixtures)
// through the importer's Read: every input must give a graph or an error,
// never a panic, and no more tensor data than the file justifies.
func FuzzRead(f *testing.F) {
	f.Add([]byte("\x10\x00\x00\x00TFL3\x00\x00\x00\x00\x00\x00\x00\x00"))
	for _, s := range readcheck.Seeds(64<<10, "tflite/*.tflite", "tflite/seanet/*.tflite") {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.tflite")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := Read(path, formats.ReadOptions{})
		readcheck.CheckError(t, err)
		if err == nil {
			readcheck.CheckGraph(t, g, len(data))
			g.Close()
		}
	})
}
