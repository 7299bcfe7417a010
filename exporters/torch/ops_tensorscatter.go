package torchexport

import (
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// TensorScatter is a clone of the cache and one Tensor.index_copy per
// batch row along the sequence axis, at the row's index plus
// 0..sequence-1 (modulo the cache length in circular mode; out of range
// raises, as ONNX's linear mode requires).

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"TensorScatter": {write: writeTensorScatter, detail: "clone, then index_copy of each batch row along the sequence axis"},
	})
}

func writeTensorScatter(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.TensorScatter)
	r := gen.rankOf(n.Inputs[0])
	if r < 0 {
		return gen.fail("the cache's rank is unknown")
	}
	a := op.Axis
	if a < 0 {
		a += int64(r)
	}
	past, err := gen.in(0)
	if err != nil {
		return err
	}
	upd, err := gen.in(1)
	if err != nil {
		return err
	}
	starts := "torch.zeros(" + past + ".shape[0], dtype=torch.int64)"
	if gen.hasIn(2) {
		if starts, err = gen.in(2); err != nil {
			return err
		}
	}
	y, b, pos := gen.genName("present"), gen.genName("b"), gen.genName("pos")
	as := strconv.FormatInt(a, 10)
	wrap := ""
	if op.Circular {
		wrap = " % " + past + ".shape[" + as + "]"
	}
	gen.forward = append(gen.forward,
		y+" = "+past+".clone()",
		"for "+b+" in range("+past+".shape[0]):",
		"    "+pos+" = ("+starts+"["+b+"] + torch.arange("+upd+".shape["+as+"], device="+past+".device))"+wrap,
		"    "+y+"["+b+"] = "+y+"["+b+"].index_copy("+strconv.FormatInt(a-1, 10)+", "+pos+", "+upd+"["+b+"])")
	gen.assign(y)
	return nil
}
