package onnxexport

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// nestedControlFlow is a Loop whose body holds an If; the If's branches
// read a value of the body (the carried acc) and one from the outermost
// graph (relu_x, through the Loop), each under a name of their own.
func nestedControlFlow(t *testing.T) *canon.Graph {
	t.Helper()
	branch := func(fn canon.BinaryFn) *canon.Graph {
		return &canon.Graph{Name: "branch",
			Nodes:   []*canon.Node{{Name: "combine", Op: &canon.Binary{Fn: fn}, Inputs: []string{"a", "b"}, Outputs: []string{"r"}}},
			Outputs: []canon.ValueInfo{{Name: "r"}}}
	}
	body := &canon.Graph{Name: "body",
		Inputs: []canon.ValueInfo{{Name: "i", DType: canon.Int64, RankKnown: true}, {Name: "c", DType: canon.Bool, RankKnown: true},
			{Name: "acc", DType: canon.Float32, Shape: canon.DimsOf(3), RankKnown: true}},
		Nodes: []*canon.Node{
			{Name: "choose", Op: &canon.If{Then: branch(canon.Add), Else: branch(canon.Sub), Captures: []string{"a", "b"}},
				Inputs: []string{"flag_in", "acc", "w"}, Outputs: []string{"acc_next"}},
			{Name: "keep", Op: &canon.Identity{}, Inputs: []string{"c"}, Outputs: []string{"c_next"}},
		},
		Outputs: []canon.ValueInfo{{Name: "c_next"}, {Name: "acc_next"}, {Name: "acc_next"}}}
	g := &canon.Graph{Name: "nested",
		Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(3), RankKnown: true}},
		Initializers: []*canon.Tensor{canon.NewInt64Tensor("m", []int64{}, []int64{4}),
			{Name: "flag", DType: canon.Bool, Shape: []int64{}, Data: []byte{0}}},
		Nodes: []*canon.Node{
			{Name: "relu", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"x"}, Outputs: []string{"relu_x"}},
			{Name: "loop", Op: &canon.Loop{Body: body, Captures: []string{"flag_in", "w"}}, Inputs: []string{"m", "", "x", "flag", "relu_x"},
				Outputs: []string{"y", "ys"}},
		},
		Outputs: []canon.ValueInfo{{Name: "y"}, {Name: "ys"}}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestNestedCapturesRoundTrip(t *testing.T) {
	g := nestedControlFlow(t)
	x := canon.NewFloat32Tensor("x", []int64{3}, []float32{-1, 2, 0.5})
	want, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	// x - 4·relu(x), every step stacked.
	if v, _ := want["y"].Float64s(); v[0] != -1 || v[1] != -6 || v[2] != -1.5 {
		t.Fatalf("interpreter: y = %v, want [-1 -6 -1.5]", v)
	}
	dir := t.TempDir()
	for _, opset := range []int{11, 13, MaxOpset} {
		p := filepath.Join(dir, "nested.onnx")
		if err := Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
			t.Fatalf("opset %d: %v", opset, err)
		}
		back, err := onnximport.Read(p, formats.ReadOptions{})
		if err != nil {
			t.Fatalf("opset %d: re-import: %v", opset, err)
		}
		got, err := interp.Run(back, map[string]*canon.Tensor{"x": x})
		if err != nil {
			t.Fatalf("opset %d: re-imported: %v", opset, err)
		}
		for _, name := range []string{"y", "ys"} {
			if _, err := compare.Tensors(got[name], want[name], 0, 0); err != nil {
				t.Errorf("opset %d: %s: %v", opset, name, err)
			}
		}
		back.Close()
	}
	runner := testfix.ORT(t) // skips the rest without ONNX Runtime
	var jobs []*interpJob
	for _, opset := range []int{11, 17, MaxOpset} {
		label := fmt.Sprintf("nested@%d", opset)
		if j := addInterpJob(t, g, opset, filepath.Join(dir, label), label, len(jobs)); j != nil {
			jobs = append(jobs, j)
		}
	}
	checkInterpJobs(t, runner, jobs)
}
