package optimize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// sequenceConcatGraph rejoins sequences made just before: a
// SequenceConstruct concatenated and stacked, and SplitToSequences
// rejoined along their axis (pieces of 2, slices whose axis is dropped),
// plus one rejoined along another axis, which must stay.
func sequenceConcatGraph() *canon.Graph {
	node := func(name string, op canon.Op, ins []string, outs ...string) *canon.Node {
		return &canon.Node{Name: name, Op: op, Inputs: ins, Outputs: outs}
	}
	g := &canon.Graph{Name: "seqcat",
		Inputs: []canon.ValueInfo{
			{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(3, 6), RankKnown: true},
			{Name: "y", DType: canon.Float32, Shape: canon.DimsOf(3, 2), RankKnown: true}},
		Initializers: []*canon.Tensor{canon.NewInt64Tensor("two", []int64{}, []int64{2})},
		Nodes: []*canon.Node{
			node("construct", &canon.SequenceConstruct{}, []string{"x", "y", "x"}, "s1"),
			node("concat", &canon.ConcatFromSequence{Axis: -1}, []string{"s1"}, "c1"),
			node("construct2", &canon.SequenceConstruct{}, []string{"y", "y"}, "s2"),
			node("stack", &canon.ConcatFromSequence{Axis: -1, NewAxis: true}, []string{"s2"}, "c2"),
			node("split", &canon.SplitToSequence{Axis: 1, KeepDims: true}, []string{"x", "two"}, "s3"),
			node("rejoin", &canon.ConcatFromSequence{Axis: -1}, []string{"s3"}, "c3"),
			node("unbind", &canon.SplitToSequence{Axis: 0}, []string{"x"}, "s4"),
			node("restack", &canon.ConcatFromSequence{Axis: 0, NewAxis: true}, []string{"s4"}, "c4"),
			node("split_rows", &canon.SplitToSequence{Axis: 0, KeepDims: true}, []string{"y"}, "s5"),
			node("side_by_side", &canon.ConcatFromSequence{Axis: 1}, []string{"s5"}, "c5"),
		},
	}
	for _, o := range []string{"c1", "c2", "c3", "c4", "c5"} {
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
	}
	return g
}

func TestFoldSequences(t *testing.T) {
	g := sequenceConcatGraph()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	opt := runPassList(t, g, Passes()) // verified against the original
	ops := countOps(opt)
	if ops["SequenceConstruct"] != 0 || ops["ConcatFromSequence"] != 1 || ops["SplitToSequence"] != 1 {
		t.Errorf("after the passes: %v; want only the side-by-side rejoin left as sequences", ops)
	}
	if ops["Concat"] != 2 || ops["Unsqueeze"] != 2 {
		t.Errorf("after the passes: %v; want two Concats and the stacked pair's two Unsqueezes", ops)
	}
}

// TestConstantSequencesNotFolded: fold_constants leaves nodes that make
// sequences or optionals from constants (there is no initializer of those
// kinds) and the pipeline runs through them.
func TestConstantSequencesNotFolded(t *testing.T) {
	node := func(name string, op canon.Op, ins []string, outs ...string) *canon.Node {
		return &canon.Node{Name: name, Op: op, Inputs: ins, Outputs: outs}
	}
	c := canon.NewFloat32Tensor("c", []int64{2}, []float32{1, 2})
	g := &canon.Graph{Name: "constseq",
		Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2), RankKnown: true}},
		Initializers: []*canon.Tensor{c},
		Nodes: []*canon.Node{
			node("empty", &canon.SequenceEmpty{DType: canon.Float32}, nil, "e"),
			node("append", &canon.SequenceInsert{}, []string{"e", "c"}, "s"),
			node("append_x", &canon.SequenceInsert{}, []string{"s", "x"}, "s2"),
			node("len", &canon.SequenceLength{}, []string{"s2"}, "n"),
			node("wrap", &canon.Optional{}, []string{"c"}, "o"),
			node("has", &canon.OptionalHasElement{}, []string{"o"}, "h"),
			node("cat", &canon.ConcatFromSequence{Axis: 0}, []string{"s2"}, "y"),
		},
		Outputs: []canon.ValueInfo{{Name: "n"}, {Name: "h"}, {Name: "y"}},
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	runPassList(t, g, Passes())
}
