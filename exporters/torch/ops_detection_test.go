package torchexport

import (
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/interp"
)

// TestDetectionNodeCasesRunInTorch writes the ONNX 1.22 NonMaxSuppression
// and RoiAlign node cases (avg and max) as model.py, runs them in PyTorch
// 1.13 and compares with the suite's outputs.
func TestDetectionNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_nonmaxsuppression_*", "test_roialign_*")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.matched < 13 {
		t.Errorf("only %d of %d detection cases run and match in PyTorch", n.matched, len(models))
	}
	t.Logf("%d detection cases: %d run in PyTorch, %d match, %d refused", len(models), n.exported, n.matched, n.refused)
}

// TestDetectionGraphRunsInTorch runs model.py against the interpreter on
// forms the node suite misses: MaxRoiPool (rounded corners, empty and
// clipped bins, a second image), RoiAlign with a spatial scale, adaptive
// sampling and half_pixel, and its max mode.
func TestDetectionGraphRunsInTorch(t *testing.T) {
	py := torchPython(t)
	xv := make([]float32, 2*3*9*11)
	for i := range xv {
		xv[i] = float32(math.Sin(float64(i)*0.61)*3 + float64(i%7)*0.1)
	}
	x := canon.NewFloat32Tensor("x", []int64{2, 3, 9, 11}, xv)
	boxes := []float32{0, 0, 4, 4, 1.3, 2.2, 9.7, 8.1, -2, -1.5, 3, 2.5, 6, 5, 2, 1, 0.25, 0.75, 10.5, 8.5}
	var rows []float32
	for r := 0; r < 5; r++ {
		rows = append(append(rows, float32(r%2)), boxes[r*4:r*4+4]...)
	}
	g := &canon.Graph{Name: "detection", Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 3, 9, 11), RankKnown: true}},
		Initializers: []*canon.Tensor{canon.NewFloat32Tensor("boxes", []int64{5, 4}, boxes), canon.NewFloat32Tensor("rows", []int64{5, 5}, rows),
			canon.NewInt64Tensor("idx", []int64{5}, []int64{0, 1, 0, 1, 1})}}
	add := func(op canon.Op, ins []string, out string) {
		g.Nodes = append(g.Nodes, &canon.Node{Name: out, Op: op, Inputs: ins, Outputs: []string{out}})
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: out})
	}
	add(&canon.MaxRoiPool{PooledHeight: 3, PooledWidth: 2, SpatialScale: 0.75}, []string{"x", "rows"}, "roipool")
	add(&canon.MaxRoiPool{PooledHeight: 4, PooledWidth: 5, SpatialScale: 1}, []string{"x", "rows"}, "roipool_unit")
	add(&canon.RoiAlign{OutputHeight: 3, OutputWidth: 4, SpatialScale: 0.5}, []string{"x", "boxes", "idx"}, "align")
	add(&canon.RoiAlign{OutputHeight: 2, OutputWidth: 5, SamplingRatio: 3, SpatialScale: 1, HalfPixel: true}, []string{"x", "boxes", "idx"}, "align_half")
	add(&canon.RoiAlign{OutputHeight: 4, OutputWidth: 3, SpatialScale: 0.5, HalfPixel: true, Max: true}, []string{"x", "boxes", "idx"}, "align_max")
	canon.AssignLayouts(g)
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	for i := range g.Outputs {
		v := g.Values.Get(g.Outputs[i].Name)
		v.Name = g.Outputs[i].Name
		g.Outputs[i] = v
	}
	want, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	gotAll := runModelPy(t, py, g, map[string]*canon.Tensor{"x": x})
	for i, o := range g.Outputs {
		got := gotAll[i]
		res, err := compare.Tensors(got, want[o.Name], 1e-4, 1e-5)
		if err != nil || !res.OK {
			t.Errorf("output %s differs from the interpreter: %v %+v", o.Name, err, res)
		}
	}
}
