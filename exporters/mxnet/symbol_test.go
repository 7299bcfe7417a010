package mxnetexport_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/formats"
	mxnetimport "github.com/modelbridge/modelbridge/importers/mxnet"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

type symbolFile struct {
	Nodes []struct {
		Op    string            `json:"op"`
		Name  string            `json:"name"`
		Attrs map[string]string `json:"attrs"`
	} `json:"nodes"`
	NodeRowPtr []int `json:"node_row_ptr"`
}

func readSymbol(t *testing.T, path string) symbolFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s symbolFile
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// mxnetOutputs is how many outputs MXNet 1.x registers for an op
// (FNumOutputs): BatchNorm also returns its batch mean and variance,
// Dropout its mask, SliceChannel one per piece, everything written here
// otherwise one.
func mxnetOutputs(op string, attrs map[string]string) int {
	switch op {
	case "BatchNorm":
		return 3
	case "Dropout":
		return 2
	case "SliceChannel":
		n, _ := strconv.Atoi(attrs["num_outputs"])
		return n
	}
	return 1
}

// TestNodeRowPtr checks node_row_ptr entry by entry: 0, then the running
// total of each node's outputs, on a graph with multi-output ops.
func TestNodeRowPtr(t *testing.T) {
	ch := func(name string, v float32) *canon.Tensor {
		c := canon.NewFloat32Tensor(name, []int64{2}, []float32{v, v})
		c.Layout = "C"
		return c
	}
	g := &canon.Graph{
		Name:         "rowptr",
		Inputs:       []canon.ValueInfo{{Name: "data", DType: canon.Float32, Shape: canon.DimsOf(1, 2, 3, 3), RankKnown: true}},
		Outputs:      []canon.ValueInfo{{Name: "a"}, {Name: "b"}},
		Initializers: []*canon.Tensor{ch("s", 1), ch("bias", 0), ch("mean", 0), ch("var", 1)},
		Nodes: []*canon.Node{
			{Name: "bn", Op: &canon.BatchNorm{Epsilon: 1e-5}, Inputs: []string{"data", "s", "bias", "mean", "var"}, Outputs: []string{"bn_out"}},
			{Name: "drop", Op: &canon.Dropout{Ratio: 0.5}, Inputs: []string{"bn_out"}, Outputs: []string{"d"}},
			{Name: "split", Op: &canon.Split{Axis: 1, Sizes: []int64{1, 1}}, Inputs: []string{"d"}, Outputs: []string{"s1", "s2"}},
			{Name: "relu", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"s1"}, Outputs: []string{"a"}},
			{Name: "softplus", Op: &canon.Unary{Fn: canon.Softplus}, Inputs: []string{"s2"}, Outputs: []string{"b"}},
		},
	}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "m-symbol.json")
	if err := mxnetexport.Write(g, out, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s := readSymbol(t, out)
	if len(s.NodeRowPtr) != len(s.Nodes)+1 || s.NodeRowPtr[0] != 0 {
		t.Fatalf("node_row_ptr %v for %d nodes", s.NodeRowPtr, len(s.Nodes))
	}
	seen := map[string]bool{}
	for i, n := range s.Nodes {
		seen[n.Op] = true
		if got, want := s.NodeRowPtr[i+1]-s.NodeRowPtr[i], mxnetOutputs(n.Op, n.Attrs); got != want {
			t.Errorf("node %d (%s %s): node_row_ptr step %d, want %d outputs", i, n.Op, n.Name, got, want)
		}
	}
	for _, op := range []string{"BatchNorm", "Dropout", "SliceChannel"} {
		if !seen[op] {
			t.Errorf("no %s node written; the test does not cover multi-output ops", op)
		}
	}
	// 1 data + 4 params + BatchNorm 3 + Dropout 2 + SliceChannel 2 + 2 activations.
	if last := s.NodeRowPtr[len(s.NodeRowPtr)-1]; last != 14 {
		t.Errorf("node_row_ptr ends at %d, want 14: %v", last, s.NodeRowPtr)
	}
}

// TestNodeRowPtrMatchesMXNet checks the output counts this exporter writes
// against the node_row_ptr of the files MXNet itself wrote, for every op
// both use. Pooling is left out: MKL-DNN builds of MXNet give max pooling
// a second (workspace) output, so real files disagree among themselves.
func TestNodeRowPtrMatchesMXNet(t *testing.T) {
	fix := testfix.Fixtures(t)
	checked := 0
	for _, c := range roundTrips {
		path := filepath.Join(fix, "mxnet", c.file)
		real := readSymbol(t, path)
		if real.NodeRowPtr == nil {
			continue
		}
		counts := map[string]int{}
		for i, n := range real.Nodes {
			counts[n.Op] = real.NodeRowPtr[i+1] - real.NodeRowPtr[i]
		}
		g, err := mxnetimport.Read(path, formats.ReadOptions{InputShapes: c.shapes})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		out := filepath.Join(t.TempDir(), "m-symbol.json")
		if err := mxnetexport.Write(g, out, formats.WriteOptions{}); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		mine := readSymbol(t, out)
		for i, n := range mine.Nodes {
			want, ok := counts[n.Op]
			if !ok || n.Op == "Pooling" {
				continue
			}
			checked++
			if got := mine.NodeRowPtr[i+1] - mine.NodeRowPtr[i]; got != want {
				t.Errorf("%s: exported %s node %s has %d outputs in node_row_ptr, MXNet's file has %d", c.file, n.Op, n.Name, got, want)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no fixture with node_row_ptr was checked")
	}
}

// TestSmoothActivations exports Softplus, Softsign, Elu and Selu as MXNet's
// softrelu, softsign, elu and selu, reads them back and checks that both
// graphs compute the same values. A Selu with other constants than MXNet's
// becomes elu followed by a scalar multiply.
func TestSmoothActivations(t *testing.T) {
	ops := []struct {
		op    canon.Op
		mxOp  string
		attrs map[string]string
	}{
		{&canon.Unary{Fn: canon.Softplus}, "Activation", map[string]string{"act_type": "softrelu"}},
		{&canon.Unary{Fn: canon.Softsign}, "Activation", map[string]string{"act_type": "softsign"}},
		{&canon.Elu{Alpha: 0.75}, "LeakyReLU", map[string]string{"act_type": "elu", "slope": "0.75"}},
		{&canon.Selu{Alpha: canon.SeluAlpha, Gamma: canon.SeluGamma}, "LeakyReLU", map[string]string{"act_type": "selu"}},
		{&canon.Selu{Alpha: 1.5, Gamma: 2}, "_mul_scalar", map[string]string{"scalar": "2"}},
	}
	g := &canon.Graph{Name: "acts", Inputs: []canon.ValueInfo{{Name: "data", DType: canon.Float32, Shape: canon.DimsOf(2, 5), RankKnown: true}}}
	for i, c := range ops {
		name := "act" + strconv.Itoa(i)
		g.Nodes = append(g.Nodes, &canon.Node{Name: name, Op: c.op, Inputs: []string{"data"}, Outputs: []string{name}})
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: name})
	}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "m-symbol.json")
	if err := mxnetexport.Write(g, out, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	s := readSymbol(t, out)
	for i, c := range ops {
		var found bool
		for _, n := range s.Nodes {
			if n.Name != "act"+strconv.Itoa(i) {
				continue
			}
			found = true
			if n.Op != c.mxOp || len(n.Attrs) != len(c.attrs) {
				t.Errorf("%s: written as %s %v, want %s %v", c.op.Kind(), n.Op, n.Attrs, c.mxOp, c.attrs)
			}
			for k, v := range c.attrs {
				if n.Attrs[k] != v {
					t.Errorf("%s: attr %s = %q, want %q", c.op.Kind(), k, n.Attrs[k], v)
				}
			}
		}
		if !found {
			t.Errorf("%s: no node act%d written", c.op.Kind(), i)
		}
	}
	g2, err := mxnetimport.Read(out, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range g2.Nodes[:4] {
		if n.Op.Kind() != ops[i].op.Kind() {
			t.Errorf("re-imported node %d is %s, want %s", i, n.Op.Kind(), ops[i].op.Kind())
		}
	}
	x := canon.NewFloat32Tensor("data", []int64{2, 5}, []float32{-4, -1.5, -0.25, 0, 0.25, 1, 3, -30, 30, -0.001})
	want, err := interp.Run(g, map[string]*canon.Tensor{"data": x})
	if err != nil {
		t.Fatal(err)
	}
	got, err := interp.Run(g2, map[string]*canon.Tensor{"data": x})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range g.Outputs {
		a, _ := want[o.Name].Float64s()
		b, _ := got[g2.Outputs[i].Name].Float64s()
		for k := range a {
			if math.Abs(a[k]-b[k]) > 1e-6*(1+math.Abs(a[k])) {
				t.Errorf("output %s element %d: %v after the round trip, %v before", o.Name, k, b[k], a[k])
			}
		}
	}
}
