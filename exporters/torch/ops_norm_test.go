package torchexport

import (
	endian "encoding/binary"
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/interp"
)

// TestNormNodeCasesRunInTorch writes the ONNX 1.22 node cases of the
// normalization and pooling family as model.py, runs them in PyTorch 1.13
// and compares with the suite's outputs. Refusals must say why by name
// (LpPool with dilations, pooling with indices and uneven pads).
func TestNormNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_layer_normalization_*", "test_group_normalization_*", "test_instancenorm_*", "test_rms_normalization_*",
		"test_l1normalization_*", "test_l2normalization_*", "test_lpnormalization_*", "test_mvn*",
		"test_lppool_*", "test_globallppool*", "test_maxunpool_*", "test_maxpool_with_argmax_*")
	n := torchSweep{models: models, refusalOK: isUnsupported}.run(t, py)
	if n.exported < 60 {
		t.Errorf("only %d of %d normalization and pooling cases export", n.exported, len(models))
	}
	t.Logf("%d normalization and pooling cases: %d run in PyTorch, %d match, %d refused", len(models), n.exported, n.matched, n.refused)
}

// tensorOf makes a tensor of dtype dt (f32 or f16) from float32 values.
func tensorOf(name string, dt canon.DType, shape []int64, v []float32) *canon.Tensor {
	if dt == canon.Float32 {
		return canon.NewFloat32Tensor(name, shape, v)
	}
	t := &canon.Tensor{Name: name, DType: canon.Float16, Shape: shape, Data: make([]byte, 2*len(v))}
	for i, f := range v {
		endian.LittleEndian.PutUint16(t.Data[2*i:], canon.Float32ToHalf(f))
	}
	return t
}

// TestNormGraphRunsInTorch runs model.py on forms the node suite misses,
// against the interpreter, in float32 and float16 (which model.py computes
// in float32, PyTorch 1.13 having no half kernels for them on the CPU):
// LpPool with ceil mode, uneven pads and dilations; LayerNorm with a
// broadcast scale and its Mean and InvStdDev; MaxPool's column-major
// Indices; RMSNormalization over two axes; GroupNorm, InstanceNorm, MVN
// and GlobalLpPool.
func TestNormGraphRunsInTorch(t *testing.T) {
	py := torchPython(t)
	for _, dt := range []canon.DType{canon.Float32, canon.Float16} {
		t.Run(dt.String(), func(t *testing.T) { normGraphInTorch(t, py, dt) })
	}
}

func normGraphInTorch(t *testing.T, py string, dt canon.DType) {
	xv := make([]float32, 2*3*7*6)
	for i := range xv {
		xv[i] = float32(math.Sin(float64(i)*0.37)*2 + 0.1)
	}
	x := tensorOf("x", dt, []int64{2, 3, 7, 6}, xv)
	g := &canon.Graph{Name: "norms", Inputs: []canon.ValueInfo{{Name: "x", DType: dt, Shape: canon.DimsOf(2, 3, 7, 6), RankKnown: true}}}
	init := func(name string, shape []int64, v ...float32) string {
		g.Initializers = append(g.Initializers, tensorOf(name, dt, shape, v))
		return name
	}
	add := func(op canon.Op, ins []string, outs ...string) {
		g.Nodes = append(g.Nodes, &canon.Node{Name: outs[0], Op: op, Inputs: ins, Outputs: outs})
		for _, o := range outs {
			g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
		}
	}
	add(&canon.LpPool{Kernel: []int64{3, 2}, Strides: []int64{2, 2}, Dilations: []int64{2, 1}, PadsBegin: []int64{1, 0}, PadsEnd: []int64{0, 1}, CeilMode: true, P: 3},
		[]string{"x"}, "lp")
	add(&canon.LayerNorm{Axis: -2, Epsilon: 1e-3, Stash: canon.Float32}, []string{"x", init("ln_s", []int64{6}, 1, 2, 3, -1, 0.5, 2)}, "ln", "ln_mean", "ln_inv")
	if dt == canon.Float32 { // torch returns pooling indices for float input; half pools in float32 elsewhere
		add(&canon.MaxPool{Kernel: []int64{2, 2}, Strides: []int64{2, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1},
			ColumnMajorIndices: true}, []string{"x"}, "mp", "mp_idx")
	}
	add(&canon.RMSNorm{Axis: 2, Epsilon: 1e-2, Stash: canon.Float32}, []string{"x", init("rms_s", []int64{1, 6}, 1, -1, 2, 0.5, 1, 3)}, "rms")
	add(&canon.GroupNorm{NumGroups: 3, Epsilon: 1e-2, Stash: canon.Float32}, []string{"x", init("gn_s", []int64{3}, 1, 2, -1), init("gn_b", []int64{3}, 0, 1, 2)}, "gn")
	add(&canon.InstanceNorm{Epsilon: 1e-2}, []string{"x", init("in_s", []int64{3}, 2, 1, -1), init("in_b", []int64{3}, 1, 0, 2)}, "inorm")
	add(&canon.MeanVarNorm{Axes: []int64{0, 2, 3}}, []string{"x"}, "mvn")
	add(&canon.GlobalLpPool{P: 2}, []string{"x"}, "glp")
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
	rtol := 1e-4
	if dt == canon.Float16 {
		rtol = 2e-3 // one half-precision rounding of each result
	}
	for i, o := range g.Outputs {
		got := gotAll[i]
		w := want[o.Name]
		if got.DType != w.DType {
			t.Errorf("output %s: dtype %s, want %s", o.Name, got.DType, w.DType)
			continue
		}
		res, err := compare.Tensors(got, w, rtol, 1e-3*rtol)
		if err != nil || !res.OK {
			t.Errorf("output %s differs from the interpreter: %v %+v", o.Name, err, res)
		}
	}
}
