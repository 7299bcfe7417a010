package readcheck

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func TestTensorBytesCountsSharedBytesOnce(t *testing.T) {
	data := make([]byte, 100)
	other := make([]byte, 10)
	g := &canon.Graph{Initializers: []*canon.Tensor{
		{Name: "w", Data: data},
		{Name: "alias", Data: data},
		{Name: "head", Data: data[:60]},
		{Name: "tail", Data: data[40:]},
		{Name: "other", Data: other},
	}}
	g.Nodes = []*canon.Node{{Name: "k", Op: &canon.Constant{Value: &canon.Tensor{Data: data[90:]}}, Outputs: []string{"k"}}}
	if got := TensorBytes(g); got != 110 {
		t.Errorf("TensorBytes = %d, want 110 (100 shared bytes and 10 others)", got)
	}
}
