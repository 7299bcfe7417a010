package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// endlessLoop is a Loop whose trip count is a huge constant and whose body
// keeps its condition true: only the iteration limit stops it.
func endlessLoop(t *testing.T) *canon.Graph {
	t.Helper()
	body := &canon.Graph{Name: "body",
		Inputs: []canon.ValueInfo{{Name: "i", DType: canon.Int64, RankKnown: true}, {Name: "c", DType: canon.Bool, RankKnown: true},
			{Name: "acc", DType: canon.Float32, Shape: canon.DimsOf(2), RankKnown: true}},
		Nodes: []*canon.Node{
			{Name: "add", Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{"acc", "acc"}, Outputs: []string{"acc_next"}},
			{Name: "keep", Op: &canon.Identity{}, Inputs: []string{"c"}, Outputs: []string{"c_next"}},
		},
		Outputs: []canon.ValueInfo{{Name: "c_next"}, {Name: "acc_next"}}}
	g := &canon.Graph{Name: "endless",
		Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2), RankKnown: true}},
		Initializers: []*canon.Tensor{canon.NewInt64Tensor("m", []int64{}, []int64{1 << 62}), {Name: "cond", DType: canon.Bool, Shape: []int64{}, Data: []byte{1}}},
		Nodes:        []*canon.Node{{Name: "hostile_loop", Op: &canon.Loop{Body: body}, Inputs: []string{"m", "cond", "x"}, Outputs: []string{"y"}}},
		Outputs:      []canon.ValueInfo{{Name: "y"}}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestLoopStopsAtTheIterationLimit(t *testing.T) {
	g := endlessLoop(t)
	old := MaxLoopIterations
	MaxLoopIterations = 1000
	defer func() { MaxLoopIterations = old }()
	x := canon.NewFloat32Tensor("x", []int64{2}, []float32{1, 2})
	_, err := Run(g, map[string]*canon.Tensor{"x": x})
	if err == nil || !strings.Contains(err.Error(), "hostile_loop") || !strings.Contains(err.Error(), "iteration limit") {
		t.Fatalf("want an iteration-limit error naming the node, got %v", err)
	}
}

func TestLoopResults(t *testing.T) {
	// Loop example: three iterations of acc += x, stacking acc.
	g, err := canon.Lookup("Loop").ExampleGraph()
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]*canon.Tensor{}
	for _, v := range g.Inputs {
		shape, _ := v.StaticShape()
		vals := make([]float32, numel(toInts(shape)))
		for i := range vals {
			vals[i] = float32(i%7) - 3
		}
		in[v.Name] = canon.NewFloat32Tensor(v.Name, shape, vals)
	}
	outs, err := Run(g, in)
	if err != nil {
		t.Fatal(err)
	}
	acc, _ := in["x2"].Float64s()
	x, _ := in["x3"].Float64s()
	final, _ := outs["y0"].Float64s()
	stacked, _ := outs["y1"].Float64s()
	if got := outs["y1"].Shape; len(got) != 5 || got[0] != 3 {
		t.Fatalf("scan output shape %v, want [3 1 4 5 5]", got)
	}
	for i := range acc {
		want := float32(acc[i])
		for k := 0; k < 3; k++ {
			want += float32(x[i])
			if float32(stacked[k*len(acc)+i]) != want {
				t.Fatalf("iteration %d element %d: %v, want %v", k, i, stacked[k*len(acc)+i], want)
			}
		}
		if float32(final[i]) != want {
			t.Fatalf("final element %d: %v, want %v", i, final[i], want)
		}
	}
}

func toInts(s []int64) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

// TestLoopScanOutputsStopAtTheMemoryBudget: a loop that stacks a value on
// every iteration is stopped by the memory budget, naming the node, long
// before the iteration limit.
func TestLoopScanOutputsStopAtTheMemoryBudget(t *testing.T) {
	g := endlessLoop(t)
	body := g.Nodes[0].Op.(*canon.Loop).Body
	body.Nodes = append(body.Nodes, &canon.Node{Name: "emit", Op: &canon.Identity{}, Inputs: []string{"acc_next"}, Outputs: []string{"acc_scan"}})
	body.Outputs = append(body.Outputs, canon.ValueInfo{Name: "acc_scan"})
	g.Nodes[0].Outputs = append(g.Nodes[0].Outputs, "ys")
	g.Outputs = append(g.Outputs, canon.ValueInfo{Name: "ys"})
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	old := MaxMemory
	MaxMemory = 1 << 20
	defer func() { MaxMemory = old }()
	x := canon.NewFloat32Tensor("x", []int64{2}, []float32{0, 0})
	_, err := Run(g, map[string]*canon.Tensor{"x": x})
	if err == nil || !strings.Contains(err.Error(), "hostile_loop") || !strings.Contains(err.Error(), "memory") {
		t.Fatalf("want a memory-budget error naming the node, got %v", err)
	}
}

// TestLoopWithoutIterations: a Loop that runs no iteration gives its
// initial carried values and scan outputs of zero slices, shaped as shape
// inference gives them where the other axes are known (ONNX Runtime 1.30
// gives (0, 2) here too).
func TestLoopWithoutIterations(t *testing.T) {
	body := &canon.Graph{Name: "body",
		Inputs: []canon.ValueInfo{{Name: "i", DType: canon.Int64, RankKnown: true}, {Name: "c", DType: canon.Bool, RankKnown: true},
			{Name: "acc", DType: canon.Float32, Shape: canon.DimsOf(2), RankKnown: true}},
		Nodes: []*canon.Node{
			{Name: "add", Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{"acc", "acc"}, Outputs: []string{"acc_next"}},
			{Name: "keep", Op: &canon.Identity{}, Inputs: []string{"c"}, Outputs: []string{"c_next"}},
			{Name: "emit", Op: &canon.Identity{}, Inputs: []string{"acc_next"}, Outputs: []string{"scan"}},
		},
		Outputs: []canon.ValueInfo{{Name: "c_next"}, {Name: "acc_next"}, {Name: "scan"}}}
	g := &canon.Graph{Name: "no_iterations",
		Inputs: []canon.ValueInfo{{Name: "m", DType: canon.Int64, RankKnown: true},
			{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2), RankKnown: true}},
		Nodes:   []*canon.Node{{Name: "loop", Op: &canon.Loop{Body: body}, Inputs: []string{"m", "", "x"}, Outputs: []string{"y", "ys"}}},
		Outputs: []canon.ValueInfo{{Name: "y"}, {Name: "ys"}}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []int64{0, -3} {
		outs, err := Run(g, map[string]*canon.Tensor{"m": canon.NewInt64Tensor("m", []int64{}, []int64{m}),
			"x": canon.NewFloat32Tensor("x", []int64{2}, []float32{1, 2})})
		if err != nil {
			t.Fatal(err)
		}
		y, _ := outs["y"].Float64s()
		if fmt.Sprint(y) != "[1 2]" || fmt.Sprint(outs["ys"].Shape) != "[0 2]" {
			t.Errorf("M=%d: y %v, ys shape %v; want [1 2] and [0 2]", m, y, outs["ys"].Shape)
		}
	}
}
