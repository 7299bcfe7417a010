package onnxexport

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// resampleCases are the ONNX 1.22 node cases of the resampling family that
// ONNX Runtime itself passes.
func resampleCases(t *testing.T) []string {
	var out []string
	for _, c := range ortPassingCases(t) {
		for _, p := range []string{"test_resize_", "test_upsample_", "test_gridsample", "test_affine_grid", "test_col2im"} {
			// The _expanded cases are ONNX's function bodies (If, ...).
			if strings.HasPrefix(c, p) && !strings.HasSuffix(c, "_expanded") {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// TestResampleNodeCasesRoundTrip writes the resampling node cases at every
// opset the exporter targets and runs them in ONNX Runtime against the
// suite's expected outputs. A mode an opset lacks (antialias and axes
// before 18, half_pixel_symmetric before 19) must be refused by name.
func TestResampleNodeCasesRoundTrip(t *testing.T) {
	cases := resampleCases(t)
	if len(cases) < 65 {
		t.Fatalf("found %d resampling cases, want ONNX Runtime's 65 at least", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d resampling cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}

// resampleExpansionGraph holds the resampling forms this exporter writes
// as other ops below their native opset: AffineGrid (20) as a MatMul by
// the base grid, Col2Im (18) as a one-hot ConvTranspose, Resize with axes
// (18) over every axis, tf_half_pixel_for_nn (gone at 13) as half_pixel,
// GridSample (16; 5-D: 20) as its definition in elementwise ops,
// antialias, keep_aspect_ratio_policy (18) and half_pixel_symmetric (19)
// as per-axis MatMuls.
func resampleExpansionGraph(t *testing.T) (*canon.Graph, map[string]*canon.Tensor) {
	t.Helper()
	g := &canon.Graph{Name: "resample_expansions"}
	inputs := map[string]*canon.Tensor{}
	add := func(name string, shape ...int64) {
		g.Inputs = append(g.Inputs, canon.ValueInfo{Name: name, DType: canon.Float32, Shape: canon.DimsOf(shape...), RankKnown: true})
		v := make([]float32, canon.NumElements(shape))
		for i := range v {
			v[i] = float32(math.Sin(float64(i)*1.3+0.4)) * 1.5
		}
		inputs[name] = canon.NewFloat32Tensor(name, shape, v)
	}
	add("theta2", 2, 2, 3)
	add("theta3", 1, 3, 4)
	add("cols", 1, 8, 6)   // 2 channels of 2×2 blocks over 3×4
	add("cols2", 2, 18, 9) // 3 channels of 2×3 blocks, strided, dilated, padded over 5×6
	add("img", 1, 2, 5, 7)
	add("grid", 1, 3, 4, 2)
	add("vol", 1, 2, 3, 4, 5)
	add("grid3", 1, 2, 3, 2, 3)
	nodes := []struct {
		op canon.Op
		in string
	}{
		{&canon.AffineGrid{Size: []int64{2, 3, 4, 5}}, "theta2"},
		{&canon.AffineGrid{Size: []int64{2, 1, 3, 1}, AlignCorners: true}, "theta2"},
		{&canon.AffineGrid{Size: []int64{1, 2, 2, 3, 4}}, "theta3"},
		{&canon.Col2Im{ImageShape: []int64{3, 4}, BlockShape: []int64{2, 2}}, "cols"},
		{&canon.Col2Im{ImageShape: []int64{5, 6}, BlockShape: []int64{2, 3}, Strides: []int64{2, 1}, Dilations: []int64{1, 2},
			PadsBegin: []int64{1, 0}, PadsEnd: []int64{0, 1}}, "cols2"},
		{&canon.Resize{Mode: canon.ResizeLinear, CoordTransform: canon.HalfPixel, Axes: []int64{3}, Sizes: []int64{3}, CubicCoeffA: -0.75}, "img"},
		{&canon.Resize{Mode: canon.ResizeNearest, CoordTransform: canon.TFHalfPixelForNN, Nearest: canon.RoundPreferFloor, Scales: []float32{1, 1, 1.6, 0.6}}, "img"},
		{&canon.Resize{Mode: canon.ResizeCubic, CoordTransform: canon.HalfPixel, CubicCoeffA: -0.5, ExcludeOutside: true, Scales: []float32{1, 1, 0.6, 2}}, "img"},
		// Below 18 (19) as one MatMul per axis:
		{&canon.Resize{Mode: canon.ResizeLinear, CoordTransform: canon.HalfPixel, Antialias: true, Sizes: []int64{1, 2, 3, 4}}, "img"},
		{&canon.Resize{Mode: canon.ResizeCubic, CoordTransform: canon.AlignCorners, CubicCoeffA: -0.75, Antialias: true, Scales: []float32{1, 1, 0.5, 0.6}}, "img"},
		{&canon.Resize{Mode: canon.ResizeNearest, CoordTransform: canon.HalfPixel, KeepAspect: canon.NotLarger, Axes: []int64{2, 3}, Sizes: []int64{8, 8}}, "img"},
		{&canon.Resize{Mode: canon.ResizeLinear, CoordTransform: canon.HalfPixelSymmetric, Scales: []float32{1, 1, 1.7, 0.7}}, "img"},
	}
	// Every GridSample form, some points outside [-1, 1] (|grid| ≤ 1.5).
	for _, mode := range []canon.ResizeMode{canon.ResizeNearest, canon.ResizeLinear, canon.ResizeCubic} {
		for _, pad := range []canon.GridPadding{canon.GridZeros, canon.GridBorder, canon.GridReflection} {
			for _, align := range []bool{false, true} {
				nodes = append(nodes, struct {
					op canon.Op
					in string
				}{&canon.GridSample{Mode: mode, Padding: pad, AlignCorners: align}, "img,grid"})
			}
			if mode != canon.ResizeCubic {
				nodes = append(nodes, struct {
					op canon.Op
					in string
				}{&canon.GridSample{Mode: mode, Padding: pad}, "vol,grid3"})
			}
		}
	}
	for i, nd := range nodes {
		out := fmt.Sprintf("y%d", i)
		g.Nodes = append(g.Nodes, &canon.Node{Name: fmt.Sprintf("n%d", i), Op: nd.op, Inputs: strings.Split(nd.in, ","), Outputs: []string{out}})
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: out})
	}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	for i := range g.Outputs {
		v := g.Values.Get(g.Outputs[i].Name)
		v.Const = nil
		g.Outputs[i] = v
	}
	return g, inputs
}

// TestResampleExpansionsORT writes resampleExpansionGraph at every opset,
// runs it in ONNX Runtime and compares with the interpreter.
func TestResampleExpansionsORT(t *testing.T) {
	rt := testfix.ORT(t)
	g, inputs := resampleExpansionGraph(t)
	want, err := interp.Run(g, inputs)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, v := range g.Inputs {
		if err := WriteTensorFile(inputs[v.Name], filepath.Join(in, fmt.Sprintf("input_%d.pb", i))); err != nil {
			t.Fatal(err)
		}
	}
	var jobs []*ortJob
	for opset := MinOpset; opset <= MaxOpset; opset++ {
		dir := filepath.Join(tmp, fmt.Sprint(opset))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "model.onnx")
		if err := Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
			t.Fatalf("opset %d: %v", opset, err)
		}
		jobs = append(jobs, &ortJob{ID: len(jobs), Model: p, Inputs: in, Out: filepath.Join(dir, "out"), label: fmt.Sprintf("resample@%d", opset)})
	}
	results := runORT(t, rt, jobs)
	for _, j := range jobs {
		if r, ok := results[j.ID]; !ok || !r.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
			continue
		}
		for i, o := range g.Outputs {
			got, err := onnxtensor.ReadFile(filepath.Join(j.Out, fmt.Sprintf("output_%d.pb", i)))
			if err != nil {
				t.Fatal(err)
			}
			res, err := compare.Tensors(got, want[o.Name], 1e-4, 1e-5)
			if err != nil || !res.OK {
				t.Errorf("%s: %s (%s): ONNX Runtime differs from the interpreter: %v %+v", j.label, g.Nodes[i].Name, g.Nodes[i].Op.Kind(), err, res)
			}
		}
	}
}
