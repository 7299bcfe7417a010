package mxnetexport

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mxparams"
)

// TestWriteReportsProgress: the params writer reports progress in tensor
// bytes, ending at the total of the weights.
func TestWriteReportsProgress(t *testing.T) {
	w := canon.NewFloat32Tensor("w", []int64{1, 3}, []float32{1, 2, 3})
	g := &canon.Graph{
		Name:         "m",
		Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 3), RankKnown: true}},
		Initializers: []*canon.Tensor{w},
		Nodes:        []*canon.Node{{Name: "add", Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{"x", "w"}, Outputs: []string{"y"}}},
		Outputs:      []canon.ValueInfo{{Name: "y", DType: canon.Float32, Shape: canon.DimsOf(2, 3), RankKnown: true}},
	}
	var calls [][2]int64
	opts := formats.WriteOptions{Progress: func(done, total int64) { calls = append(calls, [2]int64{done, total}) }}
	if err := Write(g, filepath.Join(t.TempDir(), "m-symbol.json"), opts); err != nil {
		t.Fatal(err)
	}
	if len(calls) == 0 || calls[len(calls)-1] != [2]int64{12, 12} {
		t.Errorf("progress calls %v, want the last to be [12 12]", calls)
	}
}

// TestProgressWriterChunks: a large params file reports several growing
// steps, never beyond the total.
func TestProgressWriterChunks(t *testing.T) {
	data := make([]byte, 2*progressChunk+10)
	var buf bytes.Buffer
	var calls [][2]int64
	w := &progressWriter{w: &buf, total: 2 * progressChunk, report: func(d, tot int64) { calls = append(calls, [2]int64{d, tot}) }}
	if _, err := w.Write(data[:5]); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data[5:]); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != len(data) || len(calls) != 2 || calls[0][0] >= calls[1][0] || calls[1] != [2]int64{2 * progressChunk, 2 * progressChunk} {
		t.Errorf("wrote %d bytes, calls %v", buf.Len(), calls)
	}
}

// TestWriteWeightsOnly: a state dict's weights, read by no node, are all
// written to the params file.
func TestWriteWeightsOnly(t *testing.T) {
	g := &canon.Graph{Name: "sd", Initializers: []*canon.Tensor{
		canon.NewFloat32Tensor("fc.weight", []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6}),
		canon.NewFloat32Tensor("fc.bias", []int64{2}, []float32{7, 8}),
	}}
	dir := t.TempDir()
	if err := Write(g, filepath.Join(dir, "sd-symbol.json"), formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	arrays, err := mxparams.ReadFile(filepath.Join(dir, "sd-0000.params"))
	if err != nil {
		t.Fatal(err)
	}
	if len(arrays) != 2 || arrays[0].Name != "arg:fc.weight" || arrays[1].Name != "arg:fc.bias" {
		t.Fatalf("params hold %d arrays: %+v", len(arrays), arrays)
	}
}
