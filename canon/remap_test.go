package canon

import (
	"slices"
	"testing"
)

// TestRemapAxes: ops on NHWC data written for NCHW data (perm 0,2,3,1:
// original = Transpose(new, perm)) get their axes mapped through perm.
func TestRemapAxes(t *testing.T) {
	perm := []int64{0, 2, 3, 1}
	sm := &Node{Op: &Softmax{Axis: -1}, Inputs: []string{"x"}, Outputs: []string{"y"}}
	r, ok := RemapAxes(sm, perm)
	if !ok || r.Op.(*Softmax).Axis != 1 || !slices.Equal(r.Outputs[0], perm) {
		t.Errorf("Softmax over the last NHWC axis (C) = %+v, %v; want axis 1 of NCHW", r, ok)
	}
	mean := &Node{Op: &Reduce{Fn: ReduceMean, Axes: []int64{1, 2}}, Inputs: []string{"x"}, Outputs: []string{"y"}}
	r, ok = RemapAxes(mean, perm)
	if !ok || !slices.Equal(r.Op.(*Reduce).Axes, []int64{2, 3}) || r.Outputs[0] != nil {
		t.Errorf("ReduceMean over NHWC's H, W = %+v, %v; want axes 2, 3 and no output transpose (N, C either way)", r, ok)
	}
	add := &Node{Op: &Binary{Fn: Add}, Inputs: []string{"a", "b"}, Outputs: []string{"y"}}
	if r, ok = RemapAxes(add, perm); !ok || len(r.Slots) != 2 || r.Op != add.Op {
		t.Errorf("Add: %+v, %v; want unchanged, both inputs re-ordered", r, ok)
	}
	pad := &Node{Op: &Pad{PadsBegin: []int64{0, 1, 2, 3}, PadsEnd: []int64{0, 0, 0, 0}}, Inputs: []string{"x"}, Outputs: []string{"y"}}
	if r, ok = RemapAxes(pad, perm); !ok || !slices.Equal(r.Op.(*Pad).PadsBegin, []int64{0, 3, 1, 2}) {
		t.Errorf("Pad: %+v, %v; want pads begin 0,3,1,2", r, ok)
	}
	conv := &Node{Op: &Conv{}, Inputs: []string{"x", "w"}, Outputs: []string{"y"}}
	if _, ok = RemapAxes(conv, perm); ok {
		t.Error("Conv (channels first by definition) was remapped")
	}
	if _, ok = RemapAxes(sm, []int64{0, 0, 1, 2}); ok {
		t.Error("a non-permutation was accepted")
	}
}
