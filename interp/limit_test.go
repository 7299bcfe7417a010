package interp

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// A Resize whose scales ask for terabytes must fail with an error naming the
// node, not take the process down.
func TestTensorSizeLimit(t *testing.T) {
	g := &canon.Graph{
		Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 4), RankKnown: true}},
		Outputs: []canon.ValueInfo{{Name: "y", DType: canon.Float32}},
		Nodes: []*canon.Node{{Name: "up", Op: &canon.Resize{Scales: []float32{1e6, 1e6}, CoordTransform: canon.Asymmetric, Nearest: canon.Floor},
			Inputs: []string{"x"}, Outputs: []string{"y"}}},
	}
	x := canon.NewFloat32Tensor("x", []int64{1, 4}, []float32{1, 2, 3, 4})
	_, err := Run(g, map[string]*canon.Tensor{"x": x})
	if err == nil || !strings.Contains(err.Error(), `"up"`) || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("want a size-limit error naming the node, got %v", err)
	}
}
