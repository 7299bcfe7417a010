package main

import (
	"bytes"
	"os"
	"path/filepath"
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
