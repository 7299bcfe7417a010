package torchscript

import "github.com/modelbridge/modelbridge/canon"

// scatterReduceKinds are what scatter_reduce emits, including the
// expansion of reduce="mean" and include_self=False.
var scatterReduceKinds = []string{"ScatterElements", "ConstantOfShape", "Equal", "Where", "Div", "Cast", "Mod", "Sub", "Floor"}

// scatterReduceExpanded is scatter_reduce with reduce="mean" or
// include_self=False, as torch computes it: without self, the positions
// the index names first take the reduction's identity (for amax/amin, one
// of the source values written there, which the reduction then meets
// again); mean divides the sum by the number of values reduced into each
// position (untouched ones by 1; integers with floor division).
func scatterReduceExpanded(c *opCall, reduceName string, includeSelf bool) (value, error) {
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	idx, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	src, err := c.tensor(3)
	if err != nil {
		return nil, err
	}
	dt := c.b().info(x).DType
	if src, err = castTo(c, src, dt); err != nil {
		return nil, err
	}
	scatter := func(r canon.ScatterReduction, data, updates *tensorVal) (*tensorVal, error) {
		return c.b().emit1(c.scope, &canon.ScatterElements{Axis: d, Reduction: r}, data, idx, updates)
	}
	filled := func(t *tensorVal, v float64) (*tensorVal, error) {
		shape, err := c.shapeOf(t, "the scatter operands")
		if err != nil {
			return nil, err
		}
		val, err := scalarAs(v, dt)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		val.Shape = []int64{1}
		return c.b().emit1(c.scope, &canon.ConstantOfShape{Value: val, Shape: shape}, nil)
	}
	r, ok := map[string]canon.ScatterReduction{"sum": canon.ScatterAdd, "mean": canon.ScatterAdd, "prod": canon.ScatterMul, "amax": canon.ScatterMax, "amin": canon.ScatterMin}[reduceName]
	if !ok {
		return nil, c.errf("reduce=%q is not supported (want sum, prod, mean, amax or amin)", reduceName)
	}
	base := x
	if !includeSelf {
		var first *tensorVal
		switch reduceName {
		case "sum", "mean":
			first, err = filled(src, 0)
		case "prod":
			first, err = filled(src, 1)
		default:
			first = src
		}
		if err != nil {
			return nil, err
		}
		if base, err = scatter(canon.ScatterNone, x, first); err != nil {
			return nil, err
		}
	}
	out, err := scatter(r, base, src)
	if err != nil || reduceName != "mean" {
		return out, err
	}
	start := 1.0
	if !includeSelf {
		start = 0
	}
	counts, err := filled(x, start)
	if err != nil {
		return nil, err
	}
	ones, err := filled(src, 1)
	if err != nil {
		return nil, err
	}
	if counts, err = scatter(canon.ScatterAdd, counts, ones); err != nil {
		return nil, err
	}
	zero, err := constScalar(c, 0, dt)
	if err != nil {
		return nil, err
	}
	one, err := constScalar(c, 1, dt)
	if err != nil {
		return nil, err
	}
	none, err := cmpOp(c, canon.CmpEqual, counts, zero)
	if err != nil {
		return nil, err
	}
	if counts, err = where(c, none, one, counts); err != nil {
		return nil, err
	}
	mode := ""
	if !dt.IsFloat() {
		mode = "floor"
	}
	return divide(c, out, counts, mode)
}
