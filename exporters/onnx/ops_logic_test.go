package onnxexport

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// logicConst encodes integer values as a constant of dtype dt.
func logicConst(name string, dt canon.DType, v ...int64) *canon.Tensor {
	sz := dt.Size()
	b := make([]byte, sz*len(v))
	for i, x := range v {
		for k := range sz {
			b[i*sz+k] = byte(uint64(x) >> (8 * k))
		}
	}
	return &canon.Tensor{Name: name, DType: dt, Shape: []int64{int64(len(v))}, Data: b}
}

// logicGraph is one node over constants (the exporter's test inputs are
// zeros for integers, which would show nothing).
func logicGraph(t *testing.T, op canon.Op, consts ...*canon.Tensor) *canon.Graph {
	t.Helper()
	g := &canon.Graph{Name: "logic", Initializers: consts}
	n := &canon.Node{Name: "n0", Op: op, Outputs: []string{"y"}}
	for _, c := range consts {
		n.Inputs = append(n.Inputs, c.Name)
	}
	g.Nodes = []*canon.Node{n}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	g.Outputs[0] = g.Values.Get("y")
	g.Outputs[0].Name, g.Outputs[0].Const = "y", nil
	return g
}

// TestLogicExpansions runs, in ONNX Runtime, the ops this exporter writes
// as expansions: BitwiseNot (opset 18) as a subtraction, through int32
// below opset 14 for 8- and 16-bit types; integer Sum as Adds; Pow on
// integer bases or mixed dtypes through float64 below opset 12 and through
// int64 for narrow bases.
func TestLogicExpansions(t *testing.T) {
	tmp := t.TempDir()
	type tc struct {
		label  string
		g      *canon.Graph
		opsets []int
	}
	var cases []tc
	// The test's output decoder reads i8, u8, i32 and i64 (and ONNX
	// Runtime's Sub has no 16-bit kernels).
	for _, dt := range []canon.DType{canon.Int8, canon.Uint8, canon.Int32, canon.Int64} {
		cases = append(cases, tc{"not_" + dt.String(), logicGraph(t, &canon.BitwiseNot{}, logicConst("x", dt, 0, 1, -1, 100, -100, 127)), []int{11, 13, 14, 17}})
	}
	cases = append(cases,
		tc{"sum_i32", logicGraph(t, &canon.Variadic{Fn: canon.VarSum}, logicConst("a", canon.Int32, 1, -2, 1<<30), logicConst("b", canon.Int32, 5), logicConst("c", canon.Int32, 7, 8, 1<<30)), []int{11, 17}},
		tc{"pow_i32_i64", logicGraph(t, &canon.Pow{}, logicConst("a", canon.Int32, 2, -3, 7), logicConst("e", canon.Int64, 10, 3, 2)), []int{11, 12, 17}},
		tc{"pow_u8_u8", logicGraph(t, &canon.Pow{}, logicConst("a", canon.Uint8, 2, 3, 7), logicConst("e", canon.Uint8, 7, 3, 2)), []int{12, 17}},
		tc{"pow_f32_i32", logicGraph(t, &canon.Pow{}, canon.NewFloat32Tensor("a", []int64{3}, []float32{-1.5, 2, 0.5}), logicConst("e", canon.Int32, 3, -2, 4)), []int{11, 17}},
		tc{"max_i8", logicGraph(t, &canon.Variadic{Fn: canon.VarMax}, logicConst("a", canon.Int8, -5, 9), logicConst("b", canon.Int8, 3), logicConst("c", canon.Int8, -7, 10)), []int{12, 17}},
		tc{"mod_i64", logicGraph(t, &canon.Mod{}, logicConst("a", canon.Int64, 7, -7, 7, -7), logicConst("b", canon.Int64, 3, 3, -3, -3)), []int{11, 17}},
		tc{"mod_f32_python", logicGraph(t, &canon.Mod{}, canon.NewFloat32Tensor("a", []int64{5}, []float32{5.5, -5.5, 5.5, -5.5, 4}), canon.NewFloat32Tensor("b", []int64{5}, []float32{2, 2, -2, -2, 2})), []int{11, 17}},
	)
	var jobs []*interpJob
	for _, c := range cases {
		for _, opset := range c.opsets {
			label := fmt.Sprintf("%s@%d", c.label, opset)
			if j := addInterpJob(t, c.g, opset, filepath.Join(tmp, label), label, len(jobs)); j != nil {
				jobs = append(jobs, j)
			}
		}
	}
	checkInterpJobs(t, testfix.ORT(t), jobs)
}

// TestBitwiseRefused: BitwiseAnd/Or/Xor need opset 18; the error names
// the op and the opset.
func TestBitwiseRefused(t *testing.T) {
	g := logicGraph(t, &canon.Bitwise{Fn: canon.BitAnd}, logicConst("a", canon.Int32, 1, 2), logicConst("b", canon.Int32, 3, 3))
	err := Write(g, filepath.Join(t.TempDir(), "m.onnx"), formats.WriteOptions{Opset: 17})
	if err == nil || !strings.Contains(err.Error(), "BitwiseAnd") || !strings.Contains(err.Error(), "opset 18") {
		t.Errorf("writing BitwiseAnd: %v", err)
	}
}
