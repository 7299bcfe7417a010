package mmapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestMappedAndEvictMapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "weights.bin")
	want := bytes.Repeat([]byte("0123456789abcdef"), 3*MinMapped/16)
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !m.mapped {
		t.Skip("the file system did not map the file")
	}
	part := m.Data[1000 : 2*MinMapped+7]
	if !Mapped(part) {
		t.Fatal("a slice of the mapping is not reported as mapped")
	}
	if Mapped(append([]byte(nil), part...)) {
		t.Fatal("a copy in the heap is reported as mapped")
	}
	EvictMapped(part)
	EvictMapped(make([]byte, 10)) // the heap: nothing happens
	if !bytes.Equal(m.Data, want) {
		t.Fatal("the mapping reads differently after its pages were let go")
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if Mapped(part) {
		t.Fatal("a closed mapping is still reported as mapped")
	}
}
