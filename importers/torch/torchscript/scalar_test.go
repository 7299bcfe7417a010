package torchscript

import (
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

// TestScalarPromotionRefusesIntTensorTimesFloat: an integer tensor times a
// float number would make a float result in torch; the importer cannot
// cast a tensor, so it must refuse rather than truncate the number.
func TestScalarPromotionRefusesIntTensorTimesFloat(t *testing.T) {
	b := newBuilder(nil)
	in := &evaluator{b: b}
	x := &tensorVal{konst: canon.NewInt64Tensor("", []int64{3}, []int64{1, 2, 3})}
	c := &opCall{in: in, name: "torch.mul", args: []value{x, 0.5}}
	_, err := binaryOp(canon.Mul, "mul")(c)
	if err == nil {
		t.Fatal("int tensor * 0.5 imported; want a refusal")
	}
	t.Log(err)
}
