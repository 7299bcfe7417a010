package torchexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
)

// Pad in wrap mode is written as one index_select per padded axis with the
// indices arange(-begin, size+end) modulo the size: exact for every rank,
// dtype and sign of pads (a negative pad crops), where F.pad's circular
// mode takes 3-D to 5-D float inputs and pads no larger than the axis.

// padWrap writes a Pad with constant pads in wrap mode.
func (gen *generator) padWrap(op *canon.Pad) error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	cur := x
	for a := range op.PadsBegin {
		b, e := op.PadsBegin[a], op.PadsEnd[a]
		if b == 0 && e == 0 {
			continue
		}
		s := strconv.Itoa(a)
		size := cur + ".shape[" + s + "]"
		idx := fmt.Sprintf("torch.arange(%d, %s + %d, device=%s.device) %% %s", -b, size, e, cur, size)
		cur = gen.genTemp("wrap"+s, cur+".index_select("+s+", "+idx+")")
	}
	gen.assign(cur)
	return nil
}

// padWrapRunTime writes the wrap-mode loop over full, F.pad's list of
// pads (last axis first) computed when model.py runs, for rank r.
func (gen *generator) padWrapRunTime(x, full string, r int) {
	v, k, b, e := gen.genName("wrapped"), gen.genName("k"), gen.genName("b"), gen.genName("e")
	rs := strconv.Itoa(r)
	gen.forward = append(gen.forward,
		v+" = "+x,
		"for "+k+" in range("+rs+"):",
		"    "+b+", "+e+" = "+full+"[2 * ("+rs+" - 1 - "+k+")], "+full+"[2 * ("+rs+" - 1 - "+k+") + 1]",
		"    if "+b+" or "+e+":",
		"        "+v+" = "+v+".index_select("+k+", torch.arange(-"+b+", "+v+".shape["+k+"] + "+e+", device="+v+".device) % "+v+".shape["+k+"])")
	gen.assign(v)
}
