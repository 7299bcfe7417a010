package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func seqNode(name string, op canon.Op, ins []string, outs ...string) *canon.Node {
	return &canon.Node{Name: name, Op: op, Inputs: ins, Outputs: outs}
}

func f32Seq(shapes ...[]int64) *canon.Sequence {
	s := &canon.Sequence{DType: canon.Float32}
	k := float32(0)
	for _, sh := range shapes {
		v := make([]float32, canon.NumElements(sh))
		for i := range v {
			v[i] = k
			k++
		}
		s.Tensors = append(s.Tensors, canon.NewFloat32Tensor("", sh, v))
	}
	return s
}

// TestSequenceKernels checks each kernel's values on a small sequence.
func TestSequenceKernels(t *testing.T) {
	pos := func(name string, p int64) *canon.Tensor { return canon.NewInt64Tensor(name, []int64{}, []int64{p}) }
	g := &canon.Graph{Name: "seq",
		Inputs:       []canon.ValueInfo{{Name: "s", DType: canon.Float32, Kind: canon.SequenceValue}},
		Initializers: []*canon.Tensor{pos("minus_one", -1), pos("zero", 0), pos("one", 1)},
		Nodes: []*canon.Node{
			seqNode("at", &canon.SequenceAt{}, []string{"s", "minus_one"}, "last"),
			seqNode("len", &canon.SequenceLength{}, []string{"s"}, "n"),
			seqNode("ins", &canon.SequenceInsert{}, []string{"s", "last", "zero"}, "s2"),
			seqNode("erase", &canon.SequenceErase{}, []string{"s2", "one"}, "s3"),
			seqNode("cat", &canon.ConcatFromSequence{Axis: 0}, []string{"s3"}, "c"),
		},
		Outputs: []canon.ValueInfo{{Name: "last"}, {Name: "n"}, {Name: "s3"}, {Name: "c"}},
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	outs, err := RunValues(g, map[string]canon.Value{"s": f32Seq([]int64{1, 2}, []int64{2, 2}, []int64{1, 2})})
	if err != nil {
		t.Fatal(err)
	}
	last, _ := outs["last"].(*canon.Tensor).Float64s()
	n, _ := outs["n"].(*canon.Tensor).Int64s()
	c := outs["c"].(*canon.Tensor)
	cv, _ := c.Float64s()
	// s = [[0 1]], [[2 3] [4 5]], [[6 7]]; s2 = last, s...; s3 drops s[0].
	if fmt.Sprint(last) != "[6 7]" || n[0] != 3 || fmt.Sprint(cv) != "[6 7 2 3 4 5 6 7]" || len(outs["s3"].(*canon.Sequence).Tensors) != 3 {
		t.Errorf("last %v, n %v, concat %v %v", last, n, c.Shape, cv)
	}
}

// TestSequenceErrors: positions out of range and an empty concatenation
// are errors naming the node, never a panic or a value.
func TestSequenceErrors(t *testing.T) {
	for _, tc := range []struct {
		op   canon.Op
		ins  []string
		want string
	}{
		{&canon.SequenceAt{}, []string{"s", "p"}, "outside"},
		{&canon.SequenceErase{}, []string{"s", "p"}, "outside"},
		{&canon.ConcatFromSequence{}, []string{"e"}, "empty"},
		{&canon.SequenceErase{}, []string{"e"}, "empty"},
	} {
		g := &canon.Graph{Name: "bad",
			Inputs:       []canon.ValueInfo{{Name: "s", DType: canon.Float32, Kind: canon.SequenceValue}},
			Initializers: []*canon.Tensor{canon.NewInt64Tensor("p", []int64{}, []int64{5})},
			Nodes: []*canon.Node{
				seqNode("empty", &canon.SequenceEmpty{DType: canon.Float32}, nil, "e"),
				seqNode("op", tc.op, tc.ins, "y"),
			},
			Outputs: []canon.ValueInfo{{Name: "y"}},
		}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		_, err := RunValues(g, map[string]canon.Value{"s": f32Seq([]int64{2}, []int64{2})})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"op"`) {
			t.Errorf("%s: got %v, want an error naming the node and saying %q", tc.op.Kind(), err, tc.want)
		}
	}
}

// TestLoopGrowingSequenceStops: a loop that appends to a carried sequence
// on each of a huge number of iterations is stopped by the memory budget
// with a clear error instead of exhausting the machine.
func TestLoopGrowingSequenceStops(t *testing.T) {
	body := &canon.Graph{Name: "body",
		Inputs: []canon.ValueInfo{{Name: "i", DType: canon.Int64, RankKnown: true}, {Name: "c", DType: canon.Bool, RankKnown: true},
			{Name: "acc", DType: canon.Float32, Kind: canon.SequenceValue}},
		Nodes: []*canon.Node{
			seqNode("keep", &canon.Identity{}, []string{"c"}, "c_next"),
			seqNode("append", &canon.SequenceInsert{}, []string{"acc", "x"}, "acc_next"),
		},
		Outputs: []canon.ValueInfo{{Name: "c_next"}, {Name: "acc_next"}}}
	x := make([]float32, 1<<14)
	g := &canon.Graph{Name: "grow",
		Initializers: []*canon.Tensor{canon.NewInt64Tensor("m", []int64{}, []int64{1 << 40}), canon.NewFloat32Tensor("x", []int64{1 << 14}, x)},
		Nodes: []*canon.Node{
			seqNode("empty", &canon.SequenceEmpty{DType: canon.Float32}, nil, "e"),
			seqNode("loop", &canon.Loop{Body: body, Captures: []string{"x"}}, []string{"m", "", "e", "x"}, "out"),
			seqNode("len", &canon.SequenceLength{}, []string{"out"}, "n"),
		},
		Outputs: []canon.ValueInfo{{Name: "n"}},
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := New(g)
	if err != nil {
		t.Fatal(err)
	}
	p.SetMemoryLimit(16 << 20)
	_, err = p.Run(nil)
	if err == nil || !strings.Contains(err.Error(), "memory limit") || !strings.Contains(err.Error(), "carried sequences") {
		t.Fatalf("got %v, want the memory budget to stop the loop", err)
	}
}
