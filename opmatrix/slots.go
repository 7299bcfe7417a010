package opmatrix

import (
	"github.com/modelbridge/modelbridge/canon"
)

// Slot is one of an op's OpDef slots as `modelbridge ops OP` shows it:
// whether the op fills it, and the detail or the reason.
type Slot struct {
	Name   string `json:"slot"`
	Filled bool   `json:"filled"`
	Detail string `json:"detail,omitempty"`
}

// Slots lists op d's slots: float16 safety, accumulation length, axis
// remapping, decomposition, no-op detection and dtype-only inference.
func Slots(d *canon.OpDef) []Slot {
	half := Slot{Name: "half unsafe", Detail: "the float16 conversion computes it in float16"}
	if d.HalfUnsafe != "" {
		half = Slot{Name: "half unsafe", Filled: true, Detail: "the float16 conversion keeps it in float32: " + d.HalfUnsafe}
	}
	acc := Slot{Name: "accumulation length", Filled: d.AccumulationLength != nil, Detail: d.Without.Accumulation}
	switch {
	case acc.Filled:
		acc.Detail = "products summed per output, from the input shapes (the tolerance's rounding term)"
	case d.Traits.Elementwise:
		acc.Detail = "elementwise: sums nothing"
	}
	remap := Slot{Name: "remap axes", Filled: d.RemapAxes != nil || d.Traits.Elementwise, Detail: d.Without.RemapAxes}
	switch {
	case d.RemapAxes != nil:
		remap.Detail = "axis attributes mapped through a permutation (transpose sinking, layout passes)"
	case d.Traits.Elementwise:
		remap.Detail = "elementwise: commutes with a Transpose"
	}
	dec := Slot{Name: "decompose", Filled: d.Decompose != nil, Detail: d.Without.Decompose}
	if dec.Filled {
		dec.Detail = "exact expansion into other canonical ops (every writer's fallback)"
	}
	noop := Slot{Name: "noop when", Filled: d.NoopWhen != nil || d.Traits.View, Detail: d.Without.Noop}
	switch {
	case d.NoopWhen != nil:
		noop.Detail = "says when a node returns its input unchanged (the no-op pass drops it)"
	case d.Traits.View:
		noop.Detail = "a view: a no-op to its input's own shape"
	}
	dts := Slot{Name: "output dtypes", Filled: true, Detail: "from Infer with the input ranks unknown"}
	if d.OutputDTypes != nil {
		dts.Detail = "its own rule (OutputDTypes)"
	}
	return []Slot{half, acc, remap, dec, noop, dts}
}

// slotText is a slot's long form for text and Markdown.
func slotText(s Slot) string {
	if s.Filled {
		return "yes — " + s.Detail
	}
	return "no — " + s.Detail
}
