package e2e

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func detTensors(boxes, scores []float32, labels []int64) []*canon.Tensor {
	n := int64(len(scores))
	return []*canon.Tensor{
		canon.NewFloat32Tensor("boxes", []int64{n, 4}, boxes),
		canon.NewFloat32Tensor("scores", []int64{n}, scores),
		canon.NewInt64Tensor("labels", []int64{n}, labels),
	}
}

// The detection comparison pairs reordered near-ties, lets a tie at the
// cut-off change the count, and rejects a moved box, a changed label or a
// missing detection that scored well.
func TestMatchDetections(t *testing.T) {
	names := []string{"boxes", "scores", "labels"}
	want := detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20, 1, 1, 2, 2}, []float32{0.9, 0.8999, 0.5}, []int64{1, 2, 3})
	for _, c := range []struct {
		name string
		got  []*canon.Tensor
		fail string
	}{
		{"reordered", detTensors([]float32{5, 5, 20, 20, 0, 0, 10, 10, 1, 1, 2, 2}, []float32{0.8999, 0.9, 0.5}, []int64{2, 1, 3}), ""},
		{"tie at the cut-off", detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20}, []float32{0.9, 0.8999}, []int64{1, 2}), "no counterpart"},
		{"moved box", detTensors([]float32{0, 0, 10, 10.5, 5, 5, 20, 20, 1, 1, 2, 2}, []float32{0.9, 0.8999, 0.5}, []int64{1, 2, 3}), "no counterpart"},
		{"other label", detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20, 1, 1, 2, 2}, []float32{0.9, 0.8999, 0.5}, []int64{7, 2, 3}), "no counterpart"},
	} {
		_, err := matchDetections(names, c.got, want)
		switch {
		case c.fail == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)):
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.fail)
		}
	}
	// The lowest-scoring detection may go missing when the counts differ
	// and it ties with the cut-off.
	tie := detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20, 1, 1, 2, 2}, []float32{0.9, 0.8999, 0.8997}, []int64{1, 2, 3})
	if _, err := matchDetections(names, detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20}, []float32{0.9, 0.8999}, []int64{1, 2}), tie); err != nil {
		t.Errorf("tie at the cut-off: %v", err)
	}
}
