package interp

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// withMaxMemory runs f with the interpreter's budget set to n bytes.
func withMaxMemory(t *testing.T, n int64, f func()) {
	t.Helper()
	old := MaxMemory
	MaxMemory = n
	defer func() { MaxMemory = old }()
	f()
}

// A Conv whose im2col columns are far larger than its input and output
// is stopped by the budget, with an error naming the node.
func TestMemoryBudgetChargesScratch(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{1, 4, 64, 64}, make([]float32, 4*64*64))
	w := canon.NewFloat32Tensor("w", []int64{2, 4, 16, 16}, make([]float32, 2*4*256))
	w.Layout, _ = canon.LayoutFor(canon.RoleConvWeight, 4)
	op := &canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{8, 8}, PadsEnd: []int64{7, 7}, Group: 1}
	g := graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x", "w"}, []*canon.Tensor{w})
	// Input and output are 64 and 32 KB; the columns are 1024 × 4096 floats.
	withMaxMemory(t, 1<<20, func() {
		_, err := Run(g, map[string]*canon.Tensor{"x": x})
		if err == nil || !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), `node "`) || !strings.Contains(err.Error(), "--max-memory") {
			t.Fatalf("want a memory-budget error naming the node, got %v", err)
		}
	})
	withMaxMemory(t, 64<<20, func() {
		if _, err := Run(g, map[string]*canon.Tensor{"x": x}); err != nil {
			t.Fatalf("within the budget: %v", err)
		}
	})
}

// Inputs and outputs count: a big input is refused before it is converted.
func TestMemoryBudgetChargesInputs(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{1, 1 << 16}, make([]float32, 1<<16))
	g := &canon.Graph{
		Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 1<<16), RankKnown: true}},
		Outputs: []canon.ValueInfo{{Name: "y", DType: canon.Float32}},
		Nodes:   []*canon.Node{{Name: "relu", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"x"}, Outputs: []string{"y"}}},
	}
	withMaxMemory(t, 100<<10, func() {
		_, err := Run(g, map[string]*canon.Tensor{"x": x})
		if err == nil || !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), `input "x"`) {
			t.Fatalf("want a memory-budget error naming the input, got %v", err)
		}
	})
	// A Program run many times does not count earlier runs' outputs.
	withMaxMemory(t, 1<<20, func() {
		p, err := New(g)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10; i++ {
			if _, err := p.Run(map[string]*canon.Tensor{"x": x}); err != nil {
				t.Fatalf("run %d: %v", i, err)
			}
		}
	})
}
