package torchexport

import (
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// CumProd is torch.cumprod (torch.flip for reverse; exclusive shifts the
// products one place along the axis behind a 1), cast back for integers,
// which torch multiplies in int64. An axis computed at run time is read
// when model.py runs.

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"CumProd": {write: writeCumProd, constParams: true,
			detail: "torch.cumprod (torch.flip for reverse, shifted behind a 1 for exclusive), cast back for integers; a run-time axis is read when model.py runs"},
	})
}

func writeCumProd(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.CumProd)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	a := strconv.FormatInt(op.Axis, 10)
	if gen.hasIn(1) {
		axis, err := gen.paramInt(1)
		if err != nil {
			return err
		}
		a = gen.indexingTemp("axis", axis)
	}
	src := x
	if op.Reverse {
		src = gen.indexingTemp("src", "torch.flip("+x+", ["+a+"])")
	}
	expr := "torch.cumprod(" + src + ", dim=" + a + ")"
	if op.Exclusive {
		size := src + ".shape[" + a + "]"
		expr = "torch.cat([torch.ones_like(" + src + ".narrow(" + a + ", 0, min(1, " + size + "))), " +
			expr + ".narrow(" + a + ", 0, max(" + size + " - 1, 0)).to(" + src + ".dtype)], dim=" + a + ")"
	}
	if op.Reverse {
		expr = "torch.flip(" + expr + ", [" + a + "])"
	}
	gen.assign(expr + gen.castBack(x))
	return nil
}
