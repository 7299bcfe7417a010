package onnxexport

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestDetectionNodeCasesRoundTrip: the NonMaxSuppression cases ONNX Runtime
// passes, and the RoiAlign cases, are written at each opset and give the
// expected outputs in ONNX Runtime (half_pixel RoiAlign is refused below
// opset 16 by name). The RoiAlign cases are opset 22, read from IR 10.
func TestDetectionNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, []string{"test_nonmaxsuppression_*"})
	if len(cases) != 10 {
		t.Fatalf("found %d NonMaxSuppression cases, want 10", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d NonMaxSuppression cases, %d runs in ONNX Runtime, %d refused", len(cases), runs, refused)
	if onnximport.MaxOpset < 22 {
		t.Skipf("the ONNX importer reads up to opset %d; the RoiAlign cases are opset 22", onnximport.MaxOpset)
	}
	// ONNX Runtime's max mode differs from ONNX's reference
	// (test_roialign_mode_max is not in its passing list): avg only.
	roi := []string{"test_roialign_aligned_false", "test_roialign_aligned_true"}
	// ONNX Runtime 1.30 implements RoiAlign-10 and -16 only: a model at
	// opset 22 or newer (RoiAlign-22) is valid but does not load there.
	var opsets []int
	for _, o := range allOpsets() {
		if o < 22 {
			opsets = append(opsets, o)
		}
	}
	_, runs, refused = nodeRoundTrip{cases: roi, opsets: opsets, refusal: refusedByOpset}.run(t)
	t.Logf("%d RoiAlign cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(roi), runs, refused)
}

// detectionGraph is one RoiAlign or MaxRoiPool node over a 2×3×9×11 map
// with regions that are small, large, partly outside the map, reversed and
// on the second image.
func detectionGraph(op canon.Op) (*canon.Graph, map[string]*canon.Tensor) {
	x := make([]float32, 2*3*9*11)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)*0.61)*3 + float64(i%7)*0.1)
	}
	boxes := []float32{0, 0, 4, 4, 1.3, 2.2, 9.7, 8.1, -2, -1.5, 3, 2.5, 6, 5, 2, 1, 0.25, 0.75, 10.5, 8.5}
	var rois *canon.Tensor
	ins := []string{"x", "rois"}
	inits := []*canon.Tensor{}
	if _, ok := op.(*canon.MaxRoiPool); ok {
		rows := make([]float32, 0, 25)
		for r := 0; r < 5; r++ {
			rows = append(rows, float32(r%2))
			rows = append(rows, boxes[r*4:r*4+4]...)
		}
		rois = canon.NewFloat32Tensor("rois", []int64{5, 5}, rows)
	} else {
		rois = canon.NewFloat32Tensor("rois", []int64{5, 4}, boxes)
		inits = append(inits, canon.NewInt64Tensor("idx", []int64{5}, []int64{0, 1, 0, 1, 1}))
		ins = append(ins, "idx")
	}
	g := &canon.Graph{Name: "detection",
		Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 3, 9, 11), RankKnown: true},
			{Name: "rois", DType: canon.Float32, Shape: canon.DimsOf(rois.Shape...), RankKnown: true}},
		Initializers: inits,
		Nodes:        []*canon.Node{{Name: "pool", Op: op, Inputs: ins, Outputs: []string{"y"}}},
		Outputs:      []canon.ValueInfo{{Name: "y"}},
	}
	canon.AssignLayouts(g)
	if err := g.Infer(); err != nil {
		panic(err)
	}
	g.Outputs[0] = g.Values.Get("y")
	g.Outputs[0].Name = "y"
	return g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{2, 3, 9, 11}, x), "rois": rois}
}

// TestDetectionORT runs RoiAlign (both coordinate modes, avg, adaptive and
// fixed sampling, a spatial scale) and MaxRoiPool in the interpreter and,
// written as ONNX at opsets 11 and 17, in ONNX Runtime: both must agree.
func TestDetectionORT(t *testing.T) {
	rt := testfix.ORT(t)
	tmp := t.TempDir()
	ops := map[string]canon.Op{
		"align_out_half":      &canon.RoiAlign{OutputHeight: 3, OutputWidth: 4, SamplingRatio: 0, SpatialScale: 0.8},
		"align_half_fixed":    &canon.RoiAlign{OutputHeight: 2, OutputWidth: 5, SamplingRatio: 3, SpatialScale: 1, HalfPixel: true},
		"align_half_adaptive": &canon.RoiAlign{OutputHeight: 4, OutputWidth: 3, SpatialScale: 0.5, HalfPixel: true},
		"roipool":             &canon.MaxRoiPool{PooledHeight: 3, PooledWidth: 2, SpatialScale: 0.75},
		"roipool_unit":        &canon.MaxRoiPool{PooledHeight: 4, PooledWidth: 5, SpatialScale: 1},
	}
	var jobs []*ortJob
	for name, op := range ops {
		g, inputs := detectionGraph(op)
		outs, err := interp.Run(g, inputs)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		in, want := filepath.Join(tmp, name, "in"), filepath.Join(tmp, name, "want")
		os.MkdirAll(in, 0o755)
		os.MkdirAll(want, 0o755)
		for i, v := range g.Inputs {
			if err := WriteTensorFile(inputs[v.Name], filepath.Join(in, fmt.Sprintf("input_%d.pb", i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := WriteTensorFile(outs["y"], filepath.Join(want, "output_0.pb")); err != nil {
			t.Fatal(err)
		}
		for _, opset := range []int{11, 17} {
			path := filepath.Join(tmp, name, fmt.Sprint(opset), "model.onnx")
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := Write(g, path, formats.WriteOptions{Opset: opset}); err != nil {
				if isRefusal(err) && opset < 16 {
					continue // half_pixel RoiAlign needs opset 16
				}
				t.Fatalf("%s at opset %d: %v", name, opset, err)
			}
			jobs = append(jobs, &ortJob{ID: len(jobs), Model: path, Inputs: in, Out: filepath.Join(filepath.Dir(path), "out"),
				label: fmt.Sprintf("%s@%d", name, opset), want: want})
		}
	}
	results := runORT(t, rt, jobs)
	var worst float64
	for _, j := range jobs {
		if r := results[j.ID]; !r.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
		} else if err := compareOutputs(j, &worst); err != nil {
			t.Errorf("%s: %v", j.label, err)
		}
	}
	t.Logf("%d runs in ONNX Runtime, worst error %.3g", len(jobs), worst)
}
