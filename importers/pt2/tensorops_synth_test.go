package pt2

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/interp"
)

// synthReluNode is the synthetic program's relu call, which these tests
// replace with another operator reading linear and writing relu.
const synthReluNode = `{"target": "torch.ops.aten.relu.default",
     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "linear"}}}],
     "outputs": [{"as_tensor": {"name": "relu"}}],`

// runSynthNode reads the program with relu replaced by node and runs it on
// the rows x (4 values each).
func runSynthNode(t *testing.T, node string, x []float32) []float64 {
	t.Helper()
	g := readSynth(t, synthArchive(t, replace(t, synthReluNode, node)), formats.ReadOptions{})
	out, err := interp.Run(g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{int64(len(x) / 4), 4}, x)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := out[g.Outputs[0].Name].Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSortStableByPosition: a program that records no argument kinds
// passes sort.stable's keyword-only stable second; descending then
// follows dim.
func TestSortStableByPosition(t *testing.T) {
	got := runSynthNode(t, `{"target": "torch.ops.aten.sort.stable",
     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "linear"}}}, {"name": "stable", "arg": {"as_bool": true}}, {"name": "dim", "arg": {"as_int": -1}}, {"name": "descending", "arg": {"as_bool": true}}],
     "outputs": [{"as_tensors": [{"name": "relu"}, {"name": "order"}]}],`, []float32{1, -2, 3, 0.5})
	if len(got) != 3 || got[0] < got[1] || got[1] < got[2] {
		t.Fatalf("sort.stable descending gave %v", got)
	}
}

// TestSqueezeDims: squeeze.dims drops the listed axes of size 1 and keeps
// the others.
func TestSqueezeDims(t *testing.T) {
	got := runSynthNode(t, `{"target": "torch.ops.aten.squeeze.dims",
     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "linear"}}}, {"name": "dim", "arg": {"as_ints": [1]}}],
     "outputs": [{"as_tensor": {"name": "relu"}}],`, []float32{1, -2, 3, 0.5})
	if len(got) != 3 {
		t.Fatalf("squeeze.dims of a size-3 axis gave %d values, want the 3 unchanged", len(got))
	}
}

// TestSortDynamicAxis sorts along the batch axis, whose size is symbolic:
// the sort takes its length from the input's shape at run time.
func TestSortDynamicAxis(t *testing.T) {
	got := runSynthNode(t, `{"target": "torch.ops.aten.sort.default",
     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "linear"}}}, {"name": "dim", "arg": {"as_int": 0}}],
     "outputs": [{"as_tensors": [{"name": "relu"}, {"name": "order"}]}],`, []float32{1, -2, 3, 0.5, -1, 2, -3, 0, 0.5, 0.5, 0.5, 0.5})
	if len(got) != 9 {
		t.Fatalf("%d values, want 9", len(got))
	}
	for r := 1; r < 3; r++ {
		for c := range 3 {
			if got[r*3+c] < got[(r-1)*3+c] {
				t.Fatalf("column %d is not ascending: %v", c, got)
			}
		}
	}
}
