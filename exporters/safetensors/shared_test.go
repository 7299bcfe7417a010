package safetensorsexport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	safetensorsimport "github.com/modelbridge/modelbridge/importers/safetensors"
)

// A tensor under two names is stored once; the second name goes to the
// metadata (name -> name kept), as safetensors' save_model writes tied
// weights, and reads back as the same tensor. A source's own record of a
// tie ("torch.tied.x") is not written as if it were one.
func TestSharedTensorStoredOnce(t *testing.T) {
	w := canon.NewFloat32Tensor("embed.weight", []int64{4, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8})
	tied := *w
	tied.Name = "lm_head.weight"
	other := canon.NewFloat32Tensor("norm", []int64{2}, []float32{1, 1})
	g := &canon.Graph{Initializers: []*canon.Tensor{w, &tied, other}, Meta: canon.Metadata{Props: []canon.KeyValue{
		{Key: "format", Value: "pt"}, {Key: "torch.tied.lm_head.weight", Value: "embed.weight"}}}}
	h, err := Header(g)
	if err != nil {
		t.Fatal(err)
	}
	hs := string(h)
	if strings.Contains(hs, `"lm_head.weight":{`) || !strings.Contains(hs, `"lm_head.weight":"embed.weight"`) || strings.Contains(hs, "torch.tied") {
		t.Fatalf("header %s: want lm_head.weight only in the metadata, mapped to embed.weight", hs)
	}
	out := filepath.Join(t.TempDir(), "tied.safetensors")
	if err := Write(g, out, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(out)
	if data := st.Size() - 8 - int64(len(h)); data != 40 {
		t.Fatalf("%d data bytes, want 40 (the 4×2 weight once and the 2-vector)", data)
	}
	back, err := safetensorsimport.Read(out, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, l := back.Initializer("embed.weight"), back.Initializer("lm_head.weight")
	if e == nil || l == nil || !canon.SameData(e, l) {
		t.Fatalf("read back: embed.weight %v, lm_head.weight %v; want one tensor under both names", e, l)
	}
	if len(back.Meta.Props) != 1 || back.Meta.Props[0].Key != "format" {
		t.Fatalf("metadata read back %v, want only format", back.Meta.Props)
	}
}
