package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// Slices whose bounds only a run tells: x[y0:y1, x0:x1] with ints computed
// from a tensor (torchvision's paste_mask_in_image writes a resized mask
// into its box of the image) and batched[i][:c, :h, :w] with the sizes of
// an image of run-time size (batch_images). Reading one is a Slice with its
// bounds as inputs, which ONNX clamps as Python does; the view step keeps
// the bounds so that writing through it works (views_runtime_write.go).

// int64Const is the 1-element int64 tensor n.
func int64Const(n int64) *tensorVal {
	return &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{n})}
}

// boundTensor is a slice bound as a 1-element tensor and, when known at
// import, as an int: an int, a run-time int, or None (def).
func boundTensor(v value, def int64) (t *tensorVal, known int64, isKnown, ok bool) {
	switch x := v.(type) {
	case noneVal:
		return int64Const(def), def, true, true
	case *dynInt:
		return x.t, 0, false, true
	}
	if n, ok := toInt(v); ok {
		return int64Const(n), n, true, true
	}
	return nil, 0, false, false
}

// sliceRunTime is torch.slice(x, d, start, end, step) when start or end is
// known only at run time; ok is false when both are known at import.
func sliceRunTime(c *opCall, x *tensorVal, d int64) (value, bool, error) {
	_, dynStart := c.bound[2].(*dynInt)
	_, dynEnd := c.bound[3].(*dynInt)
	if !dynStart && !dynEnd {
		return nil, false, nil
	}
	step, err := c.int(4)
	if err != nil {
		return nil, true, err
	}
	if step < 1 {
		return nil, true, c.errf("step is %d, must be positive", step)
	}
	start, lo, loKnown, ok1 := boundTensor(c.bound[2], 0)
	end, hi, hiKnown, ok2 := boundTensor(c.bound[3], math.MaxInt64)
	if !ok1 || !ok2 {
		return nil, true, c.errf("slice bounds are a %s and a %s, not ints", typeName(c.bound[2]), typeName(c.bound[3]))
	}
	out, err := c.b().emit1(c.scope, &canon.Slice{}, x, start, end, int64Const(d), int64Const(step))
	if err != nil {
		return nil, true, err
	}
	vs := viewStep{axis: int(d), start: lo, end: hi, step: step}
	if !loKnown {
		vs.runStart = start
	}
	if !hiKnown {
		vs.runEnd = end
	}
	trackView(c, x, out, vs)
	return out, true, nil
}
