package mxnetimport

import (
	"math"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/interp"
)

// TestCoverage fails when a registered op kind is neither read nor
// declared unsupported, or when the table names a kind canon does not
// register.
func TestCoverage(t *testing.T) {
	cov := Ops()
	for _, g := range canon.Gaps(map[string]canon.Coverage{"mxnet importer": cov}) {
		t.Error(g)
	}
	for kind := range cov {
		if canon.Lookup(kind) == nil {
			t.Errorf("the importer's table names op kind %s, which canon does not register (stale entry)", kind)
		}
	}
	for kind := range lacks {
		for name, op := range converters {
			for _, k := range op.kinds {
				if k == kind {
					t.Errorf("%s is declared unsupported but %s is read as it", kind, name)
				}
			}
		}
	}
}

// TestFixtureKindsDeclared checks that every kind the real fixtures import
// as is declared by some entry of the table, so the coverage does not
// under-report.
func TestFixtureKindsDeclared(t *testing.T) {
	cov := Ops()
	for _, c := range []struct {
		file  string
		shape []int64
	}{
		{"mtcnn/det1-symbol.json", []int64{1, 3, 12, 12}},
		{"mtcnn/det2-symbol.json", []int64{1, 3, 24, 24}},
		{"tutorial_cnn/Neural_Net-symbol.json", []int64{2, 1, 28, 28}},
		{"symbols/resnet18_v1-symbol.json", []int64{1, 3, 224, 224}},
		{"symbols/squeezenet1.0-symbol.json", []int64{1, 3, 224, 224}},
	} {
		g, err := Read(mxFixture(t, c.file), formats.ReadOptions{InputShapes: map[string][]int64{"data": c.shape}})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range g.Nodes {
			if !cov[n.Op.Kind()].Handled {
				t.Errorf("%s: node %s is a %s, which the importer's table does not declare", c.file, n.Name, n.Op.Kind())
			}
		}
	}
}

// geluSym applies MXNet's three Gelu spellings: gelu (1.x, the erf form),
// gelu_erf and gelu_tanh (2.x).
const geluSym = `{
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "LeakyReLU", "name": "gelu", "attrs": {"act_type": "gelu"}, "inputs": [[0, 0, 0]]},
    {"op": "LeakyReLU", "name": "gelu_erf", "attrs": {"act_type": "gelu_erf"}, "inputs": [[0, 0, 0]]},
    {"op": "LeakyReLU", "name": "gelu_tanh", "attrs": {"act_type": "gelu_tanh"}, "inputs": [[0, 0, 0]]}
  ],
  "arg_nodes": [0],
  "heads": [[1, 0, 0], [2, 0, 0], [3, 0, 0]],
  "attrs": {"mxnet_version": ["int", 10500]}
}`

func TestGelu(t *testing.T) {
	g, err := Read(checkpoint(t, geluSym, nil), formats.ReadOptions{InputShapes: map[string][]int64{"data": {7}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []canon.GeluApprox{canon.GeluExact, canon.GeluExact, canon.GeluTanh}
	for i, n := range g.Nodes {
		if op, ok := n.Op.(*canon.Gelu); !ok || op.Approximate != want[i] {
			t.Fatalf("node %s is %#v, want Gelu %s", n.Name, n.Op, want[i])
		}
	}
	x := f32s([]int64{7}, -3, -1, -0.5, 0, 0.5, 1, 2)
	out, err := interp.Run(g, map[string]*canon.Tensor{"data": x})
	if err != nil {
		t.Fatal(err)
	}
	xs, _ := x.Float64s()
	for i, o := range g.Outputs {
		v, _ := out[o.Name].Float64s()
		for k, xv := range xs {
			w := 0.5 * xv * (1 + math.Erf(xv/math.Sqrt2))
			if want[i] == canon.GeluTanh {
				w = 0.5 * xv * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(xv+0.044715*xv*xv*xv)))
			}
			if math.Abs(v[k]-w) > 1e-6*(1+math.Abs(w)) {
				t.Errorf("%s(%v) = %v, want %v", o.Name, xv, v[k], w)
			}
		}
	}
}

// TestSliceTakeShapeDot reads slice with None bounds and a step, take,
// shape_array and dot of a 3-D by a 2-D input.
func TestSliceTakeShapeDot(t *testing.T) {
	sym := `{"nodes":[
	  {"op":"null","name":"data","inputs":[]},
	  {"op":"slice","name":"s","attrs":{"begin":"(None, 1)","end":"(None, None)","step":"(None, 2)"},"inputs":[[0,0,0]]},
	  {"op":"null","name":"idx","inputs":[]},
	  {"op":"take","name":"tk","attrs":{"axis":"1","mode":"wrap"},"inputs":[[0,0,0],[2,0,0]]},
	  {"op":"shape_array","name":"sh","inputs":[[0,0,0]]},
	  {"op":"null","name":"w","inputs":[]},
	  {"op":"dot","name":"d","inputs":[[0,0,0],[5,0,0]]}
	],"arg_nodes":[0,2,5],"heads":[[1,0,0],[3,0,0],[4,0,0],[6,0,0]],"attrs":{"mxnet_version":["int",10300]}}`
	params := map[string]*canon.Tensor{
		"arg:idx": canon.NewInt64Tensor("idx", []int64{2}, []int64{-1, 0}),
		"arg:w":   f32s([]int64{5, 1}, 1, 2, 3, 4, 5),
	}
	g, err := Read(checkpoint(t, sym, params), formats.ReadOptions{InputShapes: map[string][]int64{"data": {2, 3, 5}}})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, n := range g.Nodes {
		kinds = append(kinds, n.Op.Kind())
	}
	if strings.Join(kinds, " ") != "Slice Gather Shape MatMul" {
		t.Fatalf("read as %v", kinds)
	}
	vals := make([]float32, 30)
	for i := range vals {
		vals[i] = float32(i)
	}
	out, err := interp.Run(g, map[string]*canon.Tensor{"data": canon.NewFloat32Tensor("data", []int64{2, 3, 5}, vals)})
	if err != nil {
		t.Fatal(err)
	}
	check := func(i int, shape []int64, want ...float64) {
		t.Helper()
		v := out[g.Outputs[i].Name]
		got, _ := v.Float64s()
		if !equalInts(v.Shape, shape) || len(got) != len(want) {
			t.Fatalf("output %d is %v %v, want %v %v", i, v.Shape, got, shape, want)
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("output %d = %v, want %v", i, got, want)
			}
		}
	}
	// data[:, 1::2] keeps row 1 of each 3-row block.
	check(0, []int64{2, 1, 5}, 5, 6, 7, 8, 9, 20, 21, 22, 23, 24)
	// take rows -1 (the last) and 0 along axis 1.
	check(1, []int64{2, 2, 5}, 10, 11, 12, 13, 14, 0, 1, 2, 3, 4, 25, 26, 27, 28, 29, 15, 16, 17, 18, 19)
	check(2, []int64{3}, 2, 3, 5)
	// dot((2,3,5), (5,1)): each row r gives sum_k data[r, k]·(k+1).
	check(3, []int64{2, 3, 1}, 40, 115, 190, 265, 340, 415)
}
