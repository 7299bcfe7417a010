package onnxexport

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// readHeader returns the IR version and default-domain opset of a file.
func readHeader(t *testing.T, path string) (ir, opset int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := &onnxpb.ModelProto{}
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
	for _, o := range m.OpsetImport {
		if o.GetDomain() == "" {
			opset = o.GetVersion()
		}
	}
	return m.GetIrVersion(), opset
}

// TestIRVersionPerOpset: each opset is written with the IR version ONNX
// releases pair with it (the checker refuses an opset its IR predates).
func TestIRVersionPerOpset(t *testing.T) {
	want := map[int]int64{11: 6, 12: 7, 14: 7, 15: 8, 18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 11, 24: 12, 25: 13, 26: 13}
	for opset, ir := range want {
		p := filepath.Join(t.TempDir(), "m.onnx")
		if err := Write(smallGraph(&canon.Identity{}), p, formats.WriteOptions{Opset: opset}); err != nil {
			t.Fatal(err)
		}
		if gotIR, gotOpset := readHeader(t, p); gotIR != ir || gotOpset != int64(opset) {
			t.Errorf("opset %d: written as IR %d opset %d, want IR %d", opset, gotIR, gotOpset, ir)
		}
	}
}

func dilatedAveragePool() canon.Op {
	return &canon.AveragePool{Kernel: []int64{2, 2}, Strides: []int64{1, 1}, Dilations: []int64{2, 2}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}
}

// bitwiseGraph is BitwiseAnd of two int32 inputs (ONNX opset 18+).
func bitwiseGraph() *canon.Graph {
	x := func(name string) canon.ValueInfo {
		return canon.ValueInfo{Name: name, DType: canon.Int32, Shape: canon.DimsOf(2, 3), RankKnown: true}
	}
	return &canon.Graph{
		Name:    "bitwise",
		Inputs:  []canon.ValueInfo{x("a"), x("b")},
		Outputs: []canon.ValueInfo{{Name: "y", DType: canon.Int32}},
		Nodes:   []*canon.Node{{Name: "and", Op: &canon.Bitwise{Fn: canon.BitAnd}, Inputs: []string{"a", "b"}, Outputs: []string{"y"}}},
	}
}

// TestOpsetAuto: --opset auto writes the lowest opset that expresses the
// graph, natively or by an exact expansion.
func TestOpsetAuto(t *testing.T) {
	cases := []struct {
		name string
		g    *canon.Graph
		want int64
	}{
		{"identity", smallGraph(&canon.Identity{}), MinOpset},
		{"hardswish (expanded below 14)", smallGraph(&canon.Unary{Fn: canon.HardSwish}), MinOpset},
		{"reshape allowzero with a 0", func() *canon.Graph {
			g := smallGraph(&canon.Reshape{Shape: []int64{72, 0}, AllowZero: true})
			g.Inputs[0].Shape = canon.DimsOf(0, 72)
			return g
		}(), 14},
		{"bitwise and", bitwiseGraph(), 18},
		{"dilated average pool", smallGraph(dilatedAveragePool()), 19},
	}
	for _, c := range cases {
		p := filepath.Join(t.TempDir(), "m.onnx")
		if err := Write(c.g, p, formats.WriteOptions{Opset: formats.OpsetAuto}); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if ir, opset := readHeader(t, p); opset != c.want || ir != irVersion(int(c.want)) {
			t.Errorf("%s: written at opset %d (IR %d), want opset %d", c.name, opset, ir, c.want)
		}
	}
}

// TestNewOpsetForms runs in ONNX Runtime what only opsets above 17 write
// natively, AveragePool with dilations (19) and BitwiseAnd (18), compared
// with the interpreter.
func TestNewOpsetForms(t *testing.T) {
	rt := testfix.ORT(t)
	graphs := map[string]*canon.Graph{
		"avgpool_dilations": smallGraph(dilatedAveragePool()),
		"bitwise_and":       bitwiseGraph(),
	}
	tmp := t.TempDir()
	var jobs []*interpJob
	for name, g := range graphs {
		for _, opset := range []int{19, MaxOpset} {
			label := fmt.Sprintf("%s@%d", name, opset)
			if j := addInterpJob(t, g, opset, filepath.Join(tmp, label), label, len(jobs)); j != nil {
				jobs = append(jobs, j)
			}
		}
	}
	checkInterpJobs(t, rt, jobs)
}
