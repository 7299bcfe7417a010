package torchimport

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	safetensorsexport "github.com/modelbridge/modelbridge/exporters/safetensors"
	"github.com/modelbridge/modelbridge/formats"
	safetensorsimport "github.com/modelbridge/modelbridge/importers/safetensors"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// .pt -> .safetensors -> canon keeps names, order, dtypes, shapes and bytes.
func TestStateDictToSafetensorsBitExact(t *testing.T) {
	fix := testfix.Fixtures(t)
	files, _ := filepath.Glob(filepath.Join(fix, "torch", "*", "state_dict*.pt"))
	more, _ := filepath.Glob(filepath.Join(fix, "torch-files", "gopickle", "*bfloat16*"))
	if len(files) == 0 || len(more) == 0 {
		t.Fatalf("fixtures incomplete: %d torch/*/state_dict*.pt and %d torch-files/gopickle/*bfloat16* files under %s", len(files), len(more), fix)
	}
	for _, f := range append(files, more...) {
		g := readOK(t, f, formats.ReadOptions{})
		out := filepath.Join(t.TempDir(), "w.safetensors")
		if err := safetensorsexport.Write(g, out, formats.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		g2, err := safetensorsimport.Read(out, formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(g2.Initializers) != len(g.Initializers) {
			t.Fatalf("%s: %d tensors back, want %d", f, len(g2.Initializers), len(g.Initializers))
		}
		for i, a := range g.Initializers {
			b := g2.Initializers[i]
			if a.Name != b.Name || a.DType != b.DType || !slices.Equal(a.Shape, b.Shape) || !bytes.Equal(a.Data, b.Data) {
				t.Errorf("%s: %s changed: %s%v -> %s %s%v", f, a.Name, a.DType, a.Shape, b.Name, b.DType, b.Shape)
			}
		}
		g2.Close()
	}
}
