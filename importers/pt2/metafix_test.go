package pt2

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func TestRecurrentStateMeta(t *testing.T) {
	state := canon.DimsOf(2, 3, 8)
	for _, c := range []struct {
		target   string
		recorded []canon.Dim
		want     bool
	}{
		{"torch.ops.aten.lstm.input", canon.DimsOf(2, 1, 3, 8), true},
		{"torch.ops.aten.gru.input", canon.DimsOf(2, 1, 3, 8), true},
		{"torch.ops.aten.lstm.input", canon.DimsOf(1, 2, 3, 8), false},
		{"torch.ops.aten.lstm.input", canon.DimsOf(2, 1, 4, 8), false},
		{"torch.ops.aten.conv2d.default", canon.DimsOf(2, 1, 3, 8), false},
	} {
		if got := isRecurrentStateMeta(c.target, state, c.recorded); got != c.want {
			t.Errorf("%s %v: got %v", c.target, c.recorded, got)
		}
	}
	if s := dimsText([]canon.Dim{{Size: 2}, {Size: -1, Param: "batch"}}); s != "[2 batch]" {
		t.Errorf("dimsText: %s", s)
	}
}
