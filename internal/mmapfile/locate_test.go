package mmapfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLocate: a slice of a live mapping is found at its offset in the
// file; memory outside it, and a closed mapping, are not.
func TestLocate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.bin")
	data := make([]byte, 2*MinMapped)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f, off, ok := Locate(m.Data[1000:5000])
	if !ok || off != 1000 || f == nil {
		t.Fatalf("Locate = %v, %d, %v; want the file at offset 1000", f, off, ok)
	}
	if _, _, ok := Locate(m.Data[len(m.Data)-10:]); !ok {
		t.Error("the mapping's last bytes were not found")
	}
	if _, _, ok := Locate(append([]byte(nil), m.Data[:100]...)); ok {
		t.Error("a copy of the data was located in the mapping")
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := Locate(data); ok {
		t.Error("memory of a closed mapping was located")
	}
}
