package onnxexport

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
)

// mathCasePatterns are the ONNX 1.22 node cases of the math family.
var mathCasePatterns = []string{
	"test_abs", "test_neg*", "test_sign", "test_exp", "test_exp_example", "test_log", "test_log_example",
	"test_sqrt*", "test_reciprocal*", "test_floor*", "test_ceil*", "test_round", "test_erf",
	"test_sin", "test_sin_example", "test_cos", "test_cos_example", "test_tan", "test_tan_example",
	"test_asin", "test_asin_example", "test_acos", "test_acos_example", "test_atan", "test_atan_example", "test_sinh*", "test_cosh*",
	"test_asinh*", "test_acosh*", "test_atanh*", "test_isnan*", "test_isinf*",
}

// TestMathNodeCasesRoundTrip converts the math family's node cases at
// opsets 11 to 17 and runs them in ONNX Runtime against the suite's
// expected outputs. A refusal must name the opset.
func TestMathNodeCasesRoundTrip(t *testing.T) {
	cases := nodeCasesMatching(t, mathCasePatterns)
	if len(cases) < 40 {
		t.Fatalf("found %d math cases, want the suite's 46", len(cases))
	}
	_, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset}.run(t)
	t.Logf("%d math cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), runs, refused)
}

// TestMathTypeOpsets: bfloat16 Round and trigonometric functions need
// opset 22, newer than the exporter writes; the others take bfloat16 from
// 13; float16 IsInf is cast to float32 below opset 20.
func TestMathTypeOpsets(t *testing.T) {
	one := func(op canon.Op, dt canon.DType) *canon.Graph {
		g := &canon.Graph{Name: "m",
			Inputs:  []canon.ValueInfo{{Name: "x", DType: dt, Shape: canon.DimsOf(2, 3), RankKnown: true}},
			Nodes:   []*canon.Node{{Name: "n", Op: op, Inputs: []string{"x"}, Outputs: []string{"y"}}},
			Outputs: []canon.ValueInfo{{Name: "y"}}}
		if err := g.Infer(); err != nil {
			t.Fatal(err)
		}
		g.Outputs[0] = g.Values.Get("y")
		g.Outputs[0].Name = "y"
		return g
	}
	dir := t.TempDir()
	write := func(g *canon.Graph, opset int) error {
		return Write(g, filepath.Join(dir, "m.onnx"), formats.WriteOptions{Opset: opset})
	}
	if err := write(one(&canon.Math{Fn: canon.MathSin}, canon.BFloat16), 17); err == nil || !strings.Contains(err.Error(), "opset 22") {
		t.Errorf("bf16 Sin at 17: %v, want a refusal naming opset 22", err)
	}
	if err := write(one(&canon.Math{Fn: canon.MathExp}, canon.BFloat16), 12); err == nil || !strings.Contains(err.Error(), "opset 13") {
		t.Errorf("bf16 Exp at 12: %v, want a refusal naming opset 13", err)
	}
	if err := write(one(&canon.Math{Fn: canon.MathExp}, canon.BFloat16), 13); err != nil {
		t.Errorf("bf16 Exp at 13: %v", err)
	}
	if err := write(one(&canon.IsInf{DetectPositive: true}, canon.Float16), 11); err != nil {
		t.Errorf("f16 IsInf at 11: %v", err)
	}
	g, err := onnximport.Read(filepath.Join(dir, "m.onnx"), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if len(g.Nodes) != 2 || g.Nodes[0].Op.Kind() != "Cast" || g.Nodes[1].Op.Kind() != "IsInf" {
		t.Errorf("f16 IsInf at 11 reads back as %d nodes, want Cast then IsInf", len(g.Nodes))
	}
}
