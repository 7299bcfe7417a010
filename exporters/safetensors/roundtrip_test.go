package safetensorsexport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	safetensorsimport "github.com/modelbridge/modelbridge/importers/safetensors"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// Reading a reference file and writing it back reproduces it byte for byte
// (same order, same header layout and padding).
func TestRewriteIsIdentical(t *testing.T) {
	fix := testfix.Fixtures(t)
	files, _ := filepath.Glob(filepath.Join(fix, "torch-files", "safetensors", "*.safetensors"))
	if len(files) == 0 {
		t.Fatal("no safetensors fixtures")
	}
	for _, f := range files {
		g, err := safetensorsimport.Read(f, formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "out.safetensors")
		if err := Write(g, out, formats.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(f)
		got, _ := os.ReadFile(out)
		if !bytes.Equal(want, got) {
			t.Errorf("%s: rewrite differs (%d vs %d bytes)", filepath.Base(f), len(got), len(want))
		}
		g2, err := safetensorsimport.Read(out, formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := sameWeights(g.Initializers, g2.Initializers); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
		g.Close()
		g2.Close()
	}
}

// Every dtype and the metadata survive a round trip; the header is padded
// to 8 bytes with spaces.
func TestAllDTypes(t *testing.T) {
	g := &canon.Graph{Meta: canon.Metadata{Props: []canon.KeyValue{{Key: "format", Value: "pt"}}}}
	for i, dt := range []canon.DType{canon.Float64, canon.Float32, canon.Float16, canon.BFloat16, canon.Int64, canon.Int32, canon.Int16, canon.Int8, canon.Uint64, canon.Uint32, canon.Uint16, canon.Uint8, canon.Bool} {
		data := make([]byte, 3*dt.Size())
		for j := range data {
			data[j] = byte(i*7 + j)
		}
		if dt == canon.Bool {
			data = []byte{1, 0, 1}
		}
		g.Initializers = append(g.Initializers, &canon.Tensor{Name: "t_" + dt.String(), DType: dt, Shape: []int64{3}, Data: data})
	}
	g.Initializers = append(g.Initializers, &canon.Tensor{Name: "scalar", DType: canon.Float32, Shape: []int64{}, Data: []byte{0, 0, 128, 63}})
	out := filepath.Join(t.TempDir(), "all.safetensors")
	if err := Write(g, out, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(out)
	hl := int(raw[0]) | int(raw[1])<<8
	if (8+hl)%8 != 0 || raw[8+hl-1] != ' ' && raw[8+hl-1] != '}' {
		t.Errorf("header length %d not padded", hl)
	}
	g2, err := safetensorsimport.Read(out, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	if err := sameWeights(g.Initializers, g2.Initializers); err != nil {
		t.Fatal(err)
	}
	for i := range g.Initializers {
		if g.Initializers[i].Name != g2.Initializers[i].Name {
			t.Fatalf("order changed at %d", i)
		}
	}
	if len(g2.Meta.Props) != 1 || g2.Meta.Props[0].Value != "pt" {
		t.Errorf("metadata %v", g2.Meta.Props)
	}
}

func sameWeights(a, b []*canon.Tensor) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d tensors vs %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Name != y.Name || x.DType != y.DType || fmt.Sprint(x.Shape) != fmt.Sprint(y.Shape) || !bytes.Equal(x.Data, y.Data) {
			return fmt.Errorf("tensor %d: %s %s%v vs %s %s%v (bytes equal %v)", i, x.Name, x.DType, x.Shape, y.Name, y.DType, y.Shape, bytes.Equal(x.Data, y.Data))
		}
	}
	return nil
}
