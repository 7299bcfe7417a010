package safetensorsexport

import (
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// TestWriteReportsProgress: Progress sees every tensor's bytes, growing,
// ending at the total of the weights.
func TestWriteReportsProgress(t *testing.T) {
	g := &canon.Graph{Initializers: []*canon.Tensor{
		canon.NewFloat32Tensor("a", []int64{3}, []float32{1, 2, 3}),
		canon.NewInt64Tensor("b", nil, []int64{4, 5}),
	}}
	var calls [][2]int64
	opts := formats.WriteOptions{Progress: func(done, total int64) { calls = append(calls, [2]int64{done, total}) }}
	if err := Write(g, filepath.Join(t.TempDir(), "w.safetensors"), opts); err != nil {
		t.Fatal(err)
	}
	want := [][2]int64{{12, 28}, {28, 28}}
	if len(calls) != len(want) || calls[0] != want[0] || calls[1] != want[1] {
		t.Errorf("progress calls %v, want %v", calls, want)
	}
}
