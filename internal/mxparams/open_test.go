package mxparams

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
)

// Open (mapped) must give exactly what ReadFile (read into memory) gives,
// for a file large enough to be mapped.
func TestOpenMatchesReadFile(t *testing.T) {
	big := &canon.Tensor{DType: canon.Float32, Shape: []int64{256, 128}, Data: make([]byte, 256*128*4)}
	for i := range big.Data {
		big.Data[i] = byte(i * 7)
	}
	small := &canon.Tensor{DType: canon.Int64, Shape: []int64{3}, Data: make([]byte, 24)}
	small.Data[8] = 5
	var file bytes.Buffer
	if err := Write(&file, []string{"arg:w", "aux:n"}, []*canon.Tensor{big, small}); err != nil {
		t.Fatal(err)
	}
	if file.Len() < mmapfile.MinMapped {
		t.Fatalf("the test file has %d bytes: too small to be mapped", file.Len())
	}
	path := filepath.Join(t.TempDir(), "m-0000.params")
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, m, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if len(got) != len(want) {
		t.Fatalf("Open read %d arrays, ReadFile %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.Name || g.Tensor.Name != w.Tensor.Name || g.Tensor.DType != w.Tensor.DType ||
			!slices.Equal(g.Tensor.Shape, w.Tensor.Shape) || !bytes.Equal(g.Tensor.Data, w.Tensor.Data) {
			t.Errorf("array %d: Open gave %s %v %v, ReadFile %s %v %v", i, g.Name, g.Tensor.DType, g.Tensor.Shape, w.Name, w.Tensor.DType, w.Tensor.Shape)
		}
	}
}

// A damaged file is refused by Open with the file named, as by ReadFile.
func TestOpenRefusesTruncatedFile(t *testing.T) {
	big := &canon.Tensor{DType: canon.Float32, Shape: []int64{256, 128}, Data: make([]byte, 256*128*4)}
	var file bytes.Buffer
	if err := Write(&file, []string{"arg:w"}, []*canon.Tensor{big}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut-0000.params")
	if err := os.WriteFile(path, file.Bytes()[:file.Len()-5000], 0o644); err != nil {
		t.Fatal(err)
	}
	_, m, err := Open(path)
	if err == nil {
		m.Close()
		t.Fatal("Open accepted a truncated file")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
}
