package optimize

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&costTable, map[string]costRule{
		"GridSample": {detail: "a coordinate transform and a multiply-add per tap (1, 2 or 4 per grid axis) per output element", work: func(x costArgs, c *NodeCost) {
			op := x.n.Op.(*canon.GridSample)
			k := float64(max(len(x.out.Shape)-2, 1))
			c.FLOPs = numelOf(x.out) * (8 + 2*math.Pow(float64(modeTaps(op.Mode)), k))
		}},
		"AffineGrid": perOutput(8, "a (k+1)-term dot product per grid coordinate"),
		"Col2Im":     perInput("one addition per column element"),
	})
}

// resizeCost prices a copy per output element for nearest, and a
// multiply-add per tap of each resized axis otherwise (resampled axis by
// axis, so the taps of the axes add up rather than multiply).
var resizeCost = costRule{
	detail: "nearest: one copy per element; linear/cubic: a multiply-add per tap (2 or 4, more when antialiasing) per resized axis per element",
	work: func(x costArgs, c *NodeCost) {
		op := x.n.Op.(*canon.Resize)
		out := numelOf(x.out)
		if op.Mode == canon.ResizeNearest {
			c.FLOPs = out
			return
		}
		in := x.input(0)
		axes := 0
		for i, d := range x.out.Shape {
			if i < len(in.Shape) && (!d.Known() || !in.Shape[i].Known() || d.Size != in.Shape[i].Size) {
				axes++
			}
		}
		taps := float64(modeTaps(op.Mode))
		if op.Antialias {
			taps *= 2 // a downsampling kernel spans 1/scale times more taps
		}
		c.FLOPs = out * 2 * taps * float64(max(axes, 1))
	},
}

func modeTaps(m canon.ResizeMode) int {
	switch m {
	case canon.ResizeLinear:
		return 2
	case canon.ResizeCubic:
		return 4
	}
	return 1
}
