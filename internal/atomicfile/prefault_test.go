package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/internal/mmapfile"
)

// Large writes go out in prefaulted chunks: the file must hold exactly the
// bytes written, whether they come from the heap or from a mapped file and
// whatever their alignment, mixed with small buffered writes.
func TestLargeWritesFromMappedFile(t *testing.T) {
	dir := t.TempDir()
	src := make([]byte, 2*prefaultChunk+12345)
	for i := range src {
		src[i] = byte(i*31 + i>>13)
	}
	srcPath := filepath.Join(dir, "src.bin")
	if err := os.WriteFile(srcPath, src, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := mmapfile.Open(srcPath)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	pieces := [][]byte{
		[]byte("header"),
		m.Data[777:],                  // mapped, unaligned, more than two chunks
		src[:prefaultChunk+1],         // heap, just over a chunk
		m.Data[4096 : 4096+(3<<20)+5], // mapped, page-aligned start
		[]byte("trailer"),
	}
	target := filepath.Join(dir, "out.bin")
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	var want bytes.Buffer
	for _, p := range pieces {
		if _, err := f.Write(p); err != nil {
			t.Fatal(err)
		}
		want.Write(p)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("file has %d bytes, differing from the %d written", len(got), want.Len())
	}
}
