package torchscript

import (
	"github.com/modelbridge/modelbridge/internal/databudget"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// TestTracedScalarArithmetic imports a traced module (testdata, made by
// make_fixtures.py) whose code multiplies a float tensor by 0-d int64
// and float64 constants, uses rsub with a Python int and add/sub with
// alpha, and checks the result against what PyTorch computed.
func TestTracedScalarArithmetic(t *testing.T) {
	dir := "testdata"
	in, err := tensorfile.Load(filepath.Join(dir, "scalar_arith_input.npy"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := tensorfile.Load(filepath.Join(dir, "scalar_arith_output.npy"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(filepath.Join(dir, "scalar_arith.pt"), formats.ReadOptions{InputShapes: map[string][]int64{"x": in.Shape}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, n := range g.Nodes {
		for _, name := range n.Inputs {
			for _, init := range g.Initializers {
				if init.Name == name && init.DType != canon.Float32 {
					t.Errorf("node %s reads constant %s of dtype %s; want it materialized as f32", n.Name, name, init.DType)
				}
			}
		}
	}
	x := *in
	x.Name = "x"
	outs, err := interp.Run(g, map[string]*canon.Tensor{"x": &x})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := compare.RelativeToMax(outs[g.Outputs[0].Name], want)
	if err != nil {
		t.Fatal(err)
	}
	if rel > 1e-6 {
		t.Errorf("relative error %.3g against PyTorch > 1e-6", rel)
	}
}

// TestScalarPromotionCastsIntTensorTimesFloat: an integer tensor times a
// float number is float32 in torch, so the tensor is cast before the Mul
// rather than the number truncated.
func TestScalarPromotionCastsIntTensorTimesFloat(t *testing.T) {
	b := newBuilder(&archive{data: databudget.ForInput(1 << 10)})
	in := &evaluator{b: b}
	b.vals["x"] = canon.ValueInfo{Name: "x", DType: canon.Int64, Shape: canon.DimsOf(3), RankKnown: true}
	x := &tensorVal{name: "x", info: b.vals["x"]}
	c := &opCall{in: in, name: "torch.mul", args: []value{x, 0.5}}
	out, err := binaryOp(canon.Mul, "mul")(c)
	if err != nil {
		t.Fatal(err)
	}
	if dt := b.info(out.(*tensorVal)).DType; dt != canon.Float32 {
		t.Fatalf("int64 tensor * 0.5 is %s, want float32", dt)
	}
	if len(b.g.Nodes) != 2 || b.g.Nodes[0].Op.Kind() != "Cast" || b.g.Nodes[1].Op.Kind() != "Mul" {
		t.Fatalf("nodes %v, want Cast then Mul", b.g.Nodes)
	}
	k := b.g.Initializers[0]
	if v, err := k.Float64s(); err != nil || k.DType != canon.Float32 || v[0] != 0.5 {
		t.Fatalf("the number became %s %v (%v), want float32 0.5", k.DType, v, err)
	}
}
