package mxnetexport_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	mxnetimport "github.com/modelbridge/modelbridge/importers/mxnet"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// ifModel branches on whether x sums above zero (a one-element condition,
// as MXNet 1.x has no 0-d arrays): the then branch reads a weight and the
// input, the else branch only the input.
func ifModel() *canon.Graph {
	w := canon.NewFloat32Tensor("w", []int64{2, 3}, []float32{0.5, -1, 2, 1.5, 0.25, -0.75})
	zero := canon.NewFloat32Tensor("zero", []int64{1, 1}, []float32{0})
	then := &canon.Graph{Name: "then",
		Nodes: []*canon.Node{
			{Name: "scale", Op: &canon.Binary{Fn: canon.Mul}, Inputs: []string{"x", "w"}, Outputs: []string{"scaled"}},
			{Name: "act", Op: &canon.Unary{Fn: canon.Tanh}, Inputs: []string{"scaled"}, Outputs: []string{"then_out"}},
		},
		Outputs: []canon.ValueInfo{{Name: "then_out"}}}
	els := &canon.Graph{Name: "else",
		Nodes:   []*canon.Node{{Name: "neg", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"x"}, Outputs: []string{"else_out"}}},
		Outputs: []canon.ValueInfo{{Name: "else_out"}}}
	return &canon.Graph{Name: "branchy",
		Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 3), RankKnown: true}},
		Initializers: []*canon.Tensor{w, zero},
		Nodes: []*canon.Node{
			{Name: "sum", Op: &canon.Reduce{Fn: canon.ReduceSum, Axes: []int64{0, 1}, KeepDims: true}, Inputs: []string{"x"}, Outputs: []string{"s"}},
			{Name: "positive", Op: &canon.Compare{Fn: canon.CmpGreater}, Inputs: []string{"s", "zero"}, Outputs: []string{"cond"}},
			{Name: "branch", Op: &canon.If{Then: then, Else: els, Captures: []string{"x", "w"}}, Inputs: []string{"cond", "x", "w"}, Outputs: []string{"y"}},
		},
		Outputs: []canon.ValueInfo{{Name: "y"}}}
}

// TestIfRoundTripsThroughCond: an ONNX model with an If converts to MXNet's
// _cond (subgraph symbols) and back, and computes what the ONNX original
// computes on inputs that take each branch. No MXNet runtime checks the
// written symbol; the round trip does.
func TestIfRoundTripsThroughCond(t *testing.T) {
	dir := t.TempDir()
	onnxPath := filepath.Join(dir, "branchy.onnx")
	if err := onnxexport.Write(ifModel(), onnxPath, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	orig, err := onnximport.Read(onnxPath, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	sym := filepath.Join(dir, "branchy-symbol.json")
	if err := mxnetexport.Write(orig, sym, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	back, err := mxnetimport.Read(sym, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	ifs := 0
	for _, n := range back.Nodes {
		if _, ok := n.Op.(*canon.If); ok {
			ifs++
		}
	}
	if ifs != 1 {
		t.Fatalf("the MXNet import has %d If nodes, want 1", ifs)
	}
	for _, sign := range []float32{1, -1} {
		x := canon.NewFloat32Tensor("x", []int64{2, 3}, []float32{sign * 1, -0.5, sign * 2, 0.25, -1, sign * 0.75})
		want, err := interp.Run(orig, map[string]*canon.Tensor{orig.Inputs[0].Name: x})
		if err != nil {
			t.Fatal(err)
		}
		x.Name = back.Inputs[0].Name
		got, err := interp.Run(back, map[string]*canon.Tensor{back.Inputs[0].Name: x})
		if err != nil {
			t.Fatal(err)
		}
		a, b := got[back.Outputs[0].Name], want[orig.Outputs[0].Name]
		if r, err := compare.Tensors(a, b, 0, 0); err != nil || !r.OK {
			t.Errorf("sign %v: the MXNet round trip computes %v, the ONNX original %v (%v)", sign, a, b, err)
		}
	}
}

// TestCondSymbolLayout: the written _cond node carries its three subgraphs
// and locations as MXNet's control_flow.cc reads them.
func TestCondSymbolLayout(t *testing.T) {
	g := ifModel()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	symbol, _, err := mxnetexport.Encode(g)
	if err != nil {
		t.Fatal(err)
	}
	s := string(symbol)
	for _, want := range []string{`"op": "_cond"`, `"subgraphs": [`, `"cond_input_locs": "[0]"`, `"then_input_locs": "[`, `"num_args": "`, `"op": "_copy"`} {
		if !strings.Contains(s, want) {
			t.Errorf("symbol lacks %s:\n%s", want, s)
		}
	}
}

// TestScanRoundTripsThroughForeach: ONNX's Scan node cases convert to
// MXNet's _foreach and back and compute the stored ONNX outputs (no MXNet
// runtime checks the written symbol; the round trip does).
func TestScanRoundTripsThroughForeach(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	for _, name := range []string{"test_scan9_sum", "test_scan9_multi_state"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(suite, name)
			orig, err := onnximport.Read(filepath.Join(dir, "model.onnx"), formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer orig.Close()
			sym := filepath.Join(t.TempDir(), "scan-symbol.json")
			if err := mxnetexport.Write(orig, sym, formats.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(sym); err != nil || !strings.Contains(string(b), `"op": "_foreach"`) {
				t.Fatalf("no _foreach node written (%v)", err)
			}
			back, err := mxnetimport.Read(sym, formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer back.Close()
			data := filepath.Join(dir, "test_data_set_0")
			ins, err := tensorfile.LoadDir(data, orig.Inputs)
			if err != nil {
				t.Fatal(err)
			}
			feed := map[string]*canon.Tensor{}
			for k, v := range orig.Inputs {
				x := *ins[v.Name]
				x.Name = back.Inputs[k].Name
				feed[x.Name] = &x
			}
			got, err := interp.Run(back, feed)
			if err != nil {
				t.Fatal(err)
			}
			for k := range orig.Outputs {
				want, err := tensorfile.Load(filepath.Join(data, tensorfile.OutputFileName(k)))
				if err != nil {
					t.Fatal(err)
				}
				if r, err := compare.Tensors(got[back.Outputs[k].Name], want, 1e-5, 1e-6); err != nil || !r.OK {
					t.Errorf("output %d differs from the ONNX reference: %+v %v", k, r, err)
				}
			}
		})
	}
}

// TestLoopsMXNetCannotRun: a Loop with a condition input (ONNX's loop11
// case) is refused, saying why: _while_loop would pad its step outputs to
// max_iterations rows.
func TestLoopsMXNetCannotRun(t *testing.T) {
	g, err := onnximport.Read(filepath.Join(testfix.Fixtures(t), "onnx-node-1.22", "test_loop11", "model.onnx"), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	_, _, err = mxnetexport.Encode(g)
	if err == nil || !strings.Contains(err.Error(), "Loop") || !strings.Contains(err.Error(), "max_iterations rows") {
		t.Fatalf("want a refusal naming the Loop and max_iterations, got %v", err)
	}
}
