package torchexport

import (
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// sequenceGraph takes and returns tensors and makes, changes and reads
// sequences and optionals inside: model.py writes them as Python lists and
// None.
func sequenceGraph() *canon.Graph {
	i64 := func(name string, v int64) *canon.Tensor { return canon.NewInt64Tensor(name, []int64{}, []int64{v}) }
	node := func(name string, op canon.Op, ins []string, outs ...string) *canon.Node {
		return &canon.Node{Name: name, Op: op, Inputs: ins, Outputs: outs}
	}
	g := &canon.Graph{Name: "sequences",
		Inputs: []canon.ValueInfo{
			{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(3, 6), RankKnown: true},
			{Name: "y", DType: canon.Float32, Shape: canon.DimsOf(3, 2), RankKnown: true},
			{Name: "k", DType: canon.Int64, Shape: []canon.Dim{}, RankKnown: true}},
		Initializers: []*canon.Tensor{i64("two", 2), i64("one", 1), i64("minus_one", -1), i64("zero", 0),
			canon.NewInt64Tensor("lengths", []int64{3}, []int64{1, 2, 3})},
		Nodes: []*canon.Node{
			node("split", &canon.SplitToSequence{Axis: 1, KeepDims: true}, []string{"x", "two"}, "s"),
			node("insert", &canon.SequenceInsert{}, []string{"s", "y", "one"}, "s2"),
			node("erase", &canon.SequenceErase{}, []string{"s2", "minus_one"}, "s3"),
			node("erase_last", &canon.SequenceErase{}, []string{"s3"}, "s4"),
			node("length", &canon.SequenceLength{}, []string{"s4"}, "n"),
			node("at", &canon.SequenceAt{}, []string{"s3", "k"}, "a"),
			node("concat", &canon.ConcatFromSequence{Axis: 1}, []string{"s3"}, "c"),
			node("stack", &canon.ConcatFromSequence{Axis: -1, NewAxis: true}, []string{"s3"}, "st"),
			node("empty", &canon.SequenceEmpty{DType: canon.Float32}, nil, "e"),
			node("append", &canon.SequenceInsert{}, []string{"e", "y"}, "e2"),
			node("concat_one", &canon.ConcatFromSequence{Axis: 0}, []string{"e2"}, "c2"),
			node("construct", &canon.SequenceConstruct{}, []string{"x", "x"}, "sc"),
			node("concat_pair", &canon.ConcatFromSequence{Axis: 0}, []string{"sc"}, "c3"),
			node("split_lengths", &canon.SplitToSequence{Axis: 1}, []string{"x", "lengths"}, "sl"),
			node("last_piece", &canon.SequenceAt{}, []string{"sl", "minus_one"}, "lp"),
			node("unbind", &canon.SplitToSequence{Axis: 0, KeepDims: false}, []string{"x"}, "su"),
			node("stack_rows", &canon.ConcatFromSequence{Axis: 0, NewAxis: true}, []string{"su"}, "sr"),
			node("wrap", &canon.Optional{}, []string{"y"}, "o"),
			node("has", &canon.OptionalHasElement{}, []string{"o"}, "h"),
			node("get", &canon.OptionalGetElement{}, []string{"o"}, "got"),
			node("none", &canon.Optional{Type: canon.ValueInfo{DType: canon.Float32, Kind: canon.OptionalTensor}}, nil, "oe"),
			node("has_none", &canon.OptionalHasElement{}, []string{"oe"}, "h2"),
		},
	}
	for _, o := range []string{"n", "a", "c", "st", "c2", "c3", "lp", "sr", "h", "got", "h2"} {
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
	}
	return g
}

// TestSequencesInTorch runs sequenceGraph's model.py in PyTorch and
// compares every output with the interpreter's.
func TestSequencesInTorch(t *testing.T) {
	py := testfix.Torch(t)
	g := sequenceGraph()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 18)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	inputs := map[string]*canon.Tensor{
		"x": canon.NewFloat32Tensor("x", []int64{3, 6}, x),
		"y": canon.NewFloat32Tensor("y", []int64{3, 2}, []float32{1, 2, 3, 4, 5, 6}),
		"k": canon.NewInt64Tensor("k", []int64{}, []int64{-2}),
	}
	want, err := interp.Run(g, inputs)
	if err != nil {
		t.Fatal(err)
	}
	got := runModelPy(t, py, g, inputs)
	for i, o := range g.Outputs {
		if err := compare.ONNXBackend(got[i], want[o.Name]); err != nil {
			t.Errorf("output %s: %v", o.Name, err)
		}
	}
}

// TestSequenceMapRefused: SequenceMap's body is a subgraph, which model.py
// does not write; the refusal names the op.
func TestSequenceMapRefused(t *testing.T) {
	g, err := canon.Lookup("SequenceMap").ExampleGraph()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(g); err == nil || !isUnsupported(err) {
		t.Fatalf("want SequenceMap refused by name, got %v", err)
	}
}

// nonTensorIO reports a graph with a sequence or optional input or output.
func nonTensorIO(g *canon.Graph) bool {
	for _, v := range append(append([]canon.ValueInfo{}, g.Inputs...), g.Outputs...) {
		if !v.IsTensor() {
			return true
		}
	}
	return false
}
