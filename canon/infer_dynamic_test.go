package canon

import (
	"math"
	"strings"
	"testing"
)

func constF32(shape []int64, v ...float32) ValueInfo {
	t := NewFloat32Tensor("c", shape, v)
	info := vi(Float32, t.Shape...)
	info.Const = t
	return info
}

var (
	noMin = float32(math.Inf(-1))
	noMax = float32(math.Inf(1))
)

// dynCase is an op whose parameters arrive as inputs; ins names them ("" is
// an absent optional input) and in gives their types.
type dynCase struct {
	name string
	op   Op
	ins  []string
	in   []ValueInfo
	nout int
	want string // shapes "f32[2 3], ..." or "ERR substring"
}

var x1345 = f32(1, 3, 4, 5)

var dynCases = []dynCase{
	// Clip: bounds of X's dtype; the shape is X's either way.
	{"clip run-time bounds", NewClip(), []string{"x", "lo", "hi"}, []ValueInfo{f32(2, 3), f32(), f32()}, 1, "f32[2 3]"},
	{"clip known bound", NewClip(), []string{"x", "", "hi"}, []ValueInfo{f32(2, 3), {}, constF32(nil, 6)}, 1, "f32[2 3]"},
	{"clip bound dtype", NewClip(), []string{"x", "lo"}, []ValueInfo{f32(2, 3), i64()}, 1, "ERR needs equal types"},
	{"clip bound shape", NewClip(), []string{"x", "lo"}, []ValueInfo{f32(2, 3), f32(2)}, 1, "ERR want a scalar"},
	{"clip both", &Clip{Min: 0, Max: noMax}, []string{"x", "lo"}, []ValueInfo{f32(2, 3), f32()}, 1, `ERR has both a Min attribute and a Min input "lo"`},

	// Pad
	{"pad unknown", &Pad{}, []string{"x", "p"}, []ValueInfo{x1345, i64(8)}, 1, "f32[? ? ? ?]"},
	{"pad unknown rank", &Pad{}, []string{"x", "p"}, []ValueInfo{{DType: Float32}, i64(6)}, 1, "f32[? ? ?]"},
	{"pad known", &Pad{}, []string{"x", "p"}, []ValueInfo{x1345, constI64(nil, 0, 0, 1, 2, 0, 0, 3, 4)}, 1, "f32[1 3 8 11]"},
	{"pad known value input", &Pad{}, []string{"x", "p", "v"}, []ValueInfo{x1345, constI64(nil, 0, 0, 1, 2, 0, 0, 3, 4), f32()}, 1, "f32[1 3 8 11]"},
	{"pad count", &Pad{}, []string{"x", "p"}, []ValueInfo{x1345, i64(6)}, 1, "ERR has 6 entries, want 8"},
	{"pad axes unknown", &Pad{Axes: ints(2, 3)}, []string{"x", "p"}, []ValueInfo{x1345, i64(4)}, 1, "f32[1 3 ? ?]"},
	{"pad axes known", &Pad{Axes: ints(-1)}, []string{"x", "p"}, []ValueInfo{x1345, constI64(nil, 1, 2)}, 1, "f32[1 3 4 8]"},
	{"pad known crops too much", &Pad{}, []string{"x", "p"}, []ValueInfo{f32(3), constI64(nil, -2, -2)}, 1, "ERR crop axis 0"},
	{"pad pads dtype", &Pad{}, []string{"x", "p"}, []ValueInfo{x1345, f32(8)}, 1, "ERR want i64"},
	{"pad both", &Pad{PadsBegin: ints(0), PadsEnd: ints(0)}, []string{"x", "p"}, []ValueInfo{f32(3), i64(2)}, 1, "ERR has both a Pads attribute"},
	{"pad value both", &Pad{PadsBegin: ints(0), PadsEnd: ints(0), Value: 1}, []string{"x", "", "v"}, []ValueInfo{f32(3), {}, f32()}, 1, "ERR has both a Value attribute"},
	{"pad axes without input", &Pad{PadsBegin: ints(0), PadsEnd: ints(0), Axes: ints(0)}, []string{"x"}, []ValueInfo{f32(3)}, 1, "ERR Axes only places"},

	// Slice
	{"slice unknown", &Slice{}, []string{"x", "s", "e", "a", "st"}, []ValueInfo{f32(4, 5, 6), i64(2), i64(2), i64(2), i64(2)}, 1, "f32[? ? ?]"},
	{"slice unknown starts, axes attr", &Slice{Ends: ints(3), Axes: ints(1)}, []string{"x", "s"}, []ValueInfo{f32(4, 5, 6), i64(1)}, 1, "f32[4 ? 6]"},
	{"slice unknown starts, default axes", &Slice{Ends: ints(3)}, []string{"x", "s"}, []ValueInfo{f32(4, 5, 6), i64(1)}, 1, "f32[? 5 6]"},
	{"slice known", &Slice{}, []string{"x", "s", "e", "a", "st"}, []ValueInfo{f32(4, 5, 6), constI64(nil, 1), constI64(nil, 3), constI64(nil, -2), constI64(nil, 1)}, 1, "f32[4 2 6]"},
	{"slice known const data", &Slice{}, []string{"x", "s", "e"}, []ValueInfo{constI64(nil, 0, 1, 2, 3, 4), constI64(nil, 1), constI64(nil, 4)}, 1, "i64[3]=[1 2 3]"},
	{"slice known zero step", &Slice{Starts: ints(0), Ends: ints(1)}, []string{"x", "", "", "", "st"}, []ValueInfo{f32(4), {}, {}, {}, constI64(nil, 0)}, 1, "ERR has a 0 step"},
	{"slice known lengths", &Slice{Starts: ints(0, 0)}, []string{"x", "", "e"}, []ValueInfo{f32(4, 4), {}, constI64(nil, 1)}, 1, "ERR must have the same length"},
	{"slice both", &Slice{Starts: ints(0), Ends: ints(1)}, []string{"x", "s"}, []ValueInfo{f32(4), i64(1)}, 1, "ERR has both a Starts attribute"},

	// Split
	{"split unknown", &Split{Axis: 1}, []string{"x", "s"}, []ValueInfo{f32(2, 6), i64(2)}, 2, "f32[2 ?], f32[2 ?]"},
	{"split known", &Split{Axis: -1}, []string{"x", "s"}, []ValueInfo{f32(2, 6), constI64(nil, 2, 4)}, 2, "f32[2 2], f32[2 4]"},
	{"split known zero part", &Split{}, []string{"x", "s"}, []ValueInfo{f32(6), constI64(nil, 0, 6)}, 2, "f32[0], f32[6]"},
	{"split known sum", &Split{}, []string{"x", "s"}, []ValueInfo{f32(6), constI64(nil, 1, 2)}, 2, "ERR add up to 3"},
	{"split count", &Split{}, []string{"x", "s"}, []ValueInfo{f32(6), i64(3)}, 2, `ERR has 2 outputs but the Sizes input "s" has 3 entries`},
	{"split both", &Split{Sizes: ints(3, 3)}, []string{"x", "s"}, []ValueInfo{f32(6), i64(2)}, 2, "ERR has both a Sizes attribute"},

	// Squeeze
	{"squeeze unknown", &Squeeze{}, []string{"x", "a"}, []ValueInfo{f32(1, 3, 1), i64(1)}, 1, "f32[unknown rank]"},
	{"squeeze known", &Squeeze{}, []string{"x", "a"}, []ValueInfo{f32(1, 3, 1), constI64(nil, -1)}, 1, "f32[1 3]"},
	{"squeeze known empty", &Squeeze{}, []string{"x", "a"}, []ValueInfo{f32(1, 3, 1), constI64([]int64{0})}, 1, "f32[3]"},
	{"squeeze known not 1", &Squeeze{}, []string{"x", "a"}, []ValueInfo{f32(1, 3, 1), constI64(nil, 1)}, 1, "ERR its size is 3"},
	{"squeeze both", &Squeeze{Axes: ints(0)}, []string{"x", "a"}, []ValueInfo{f32(1, 3), i64(1)}, 1, "ERR has both a Axes attribute"},

	// Unsqueeze
	{"unsqueeze unknown", &Unsqueeze{}, []string{"x", "a"}, []ValueInfo{f32(3, 4), i64(2)}, 1, "f32[? ? ? ?]"},
	{"unsqueeze unknown count", &Unsqueeze{}, []string{"x", "a"}, []ValueInfo{f32(3, 4), {DType: Int64}}, 1, "f32[unknown rank]"},
	{"unsqueeze known", &Unsqueeze{}, []string{"x", "a"}, []ValueInfo{f32(3, 4), constI64(nil, 0, -1)}, 1, "f32[1 3 4 1]"},
	{"unsqueeze known const data", &Unsqueeze{}, []string{"x", "a"}, []ValueInfo{constI64(nil, 7, 8), constI64(nil, 0)}, 1, "i64[1 2]=[7 8]"},
	{"unsqueeze both", &Unsqueeze{Axes: ints(0)}, []string{"x", "a"}, []ValueInfo{f32(3), i64(1)}, 1, "ERR has both a Axes attribute"},

	// Resize
	{"resize scales unknown", &Resize{}, []string{"x", "s"}, []ValueInfo{f32(1, 1, 2, 2), f32(4)}, 1, "f32[? ? ? ?]"},
	{"resize scales known", &Resize{}, []string{"x", "s"}, []ValueInfo{f32(1, 1, 2, 2), constF32([]int64{4}, 1, 1, 2, 3)}, 1, "f32[1 1 4 6]"},
	{"resize scales known bad", &Resize{}, []string{"x", "s"}, []ValueInfo{f32(1, 1, 2, 2), constF32([]int64{4}, 1, 1, 0, 3)}, 1, "ERR every scale must be finite and > 0"},
	{"resize sizes unknown", &Resize{}, []string{"x", "", "z"}, []ValueInfo{f32(1, 1, 2, 2), {}, i64(4)}, 1, "f32[? ? ? ?]"},
	{"resize sizes known", &Resize{}, []string{"x", "", "z"}, []ValueInfo{f32(1, 1, 2, 2), {}, constI64(nil, 1, 1, 3, 3)}, 1, "f32[1 1 3 3]"},
	{"resize count", &Resize{}, []string{"x", "s"}, []ValueInfo{f32(1, 1, 2, 2), f32(3)}, 1, "ERR has 3 scales/sizes"},
	{"resize none", &Resize{}, []string{"x"}, []ValueInfo{f32(1, 1, 2, 2)}, 1, "ERR needs exactly one of"},
	{"resize two inputs", &Resize{}, []string{"x", "s", "z"}, []ValueInfo{f32(1, 1, 2, 2), f32(4), i64(4)}, 1, "ERR needs exactly one of"},
	{"resize both", &Resize{Scales: []float32{1, 1, 2, 2}}, []string{"x", "s"}, []ValueInfo{f32(1, 1, 2, 2), f32(4)}, 1, "ERR has both a Scales attribute"},
}

func TestInferDynamicParams(t *testing.T) {
	for _, tc := range dynCases {
		t.Run(tc.name, func(t *testing.T) {
			n := &Node{Name: "n1", Op: tc.op, Inputs: tc.ins}
			for i := 0; i < tc.nout; i++ {
				n.Outputs = append(n.Outputs, "y"+string(rune('0'+i)))
			}
			got, err := InferNode(n, tc.in)
			if want, isErr := strings.CutPrefix(tc.want, "ERR "); isErr {
				if err == nil {
					t.Fatalf("no error, got %v; want error containing %q", got, want)
				}
				if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `node "n1"`) {
					t.Fatalf("error %q should name the node and contain %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, v := range got {
				parts = append(parts, show(v))
			}
			if s := strings.Join(parts, ", "); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}
}

// A graph whose Slice parameters are graph inputs validates, and a graph
// input that shares its name with an initializer is not taken as known.
func TestValidateDynamicSlice(t *testing.T) {
	g := &Graph{
		Inputs: []ValueInfo{{Name: "x", DType: Float32, Shape: DimsOf(4, 5), RankKnown: true},
			{Name: "starts", DType: Int64, Shape: DimsOf(1), RankKnown: true}},
		Outputs:      []ValueInfo{{Name: "y"}},
		Initializers: []*Tensor{NewInt64Tensor("starts", nil, []int64{1}), NewInt64Tensor("ends", nil, []int64{3})},
		Nodes:        []*Node{{Name: "s", Op: &Slice{Axes: ints(1)}, Inputs: []string{"x", "starts", "ends"}, Outputs: []string{"y"}}},
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := fmtShape(g.Outputs[0]); got != "[4 ?]" {
		t.Errorf("output shape %s, want [4 ?]", got)
	}
	// Without the input of the same name, the initializer is a constant.
	g.Inputs = g.Inputs[:1]
	g.Outputs = []ValueInfo{{Name: "y"}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := fmtShape(g.Outputs[0]); got != "[4 2]" {
		t.Errorf("output shape %s, want [4 2]", got)
	}
}
