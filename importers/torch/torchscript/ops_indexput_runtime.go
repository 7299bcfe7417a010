package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// indexPutRunTime is x[i] = v (index_put_ with one 1-D integer index on
// the first axis) for an x whose shape only a run tells: a ScatterND of
// the rows i, with v broadcast to the shape of x[i] at run time. Negative
// indices count from the end, as in torch.
func indexPutRunTime(c *opCall, x, i, v *tensorVal, red canon.ScatterReduction) (value, error) {
	b := c.b()
	ii := b.info(i)
	if !ii.RankKnown || len(ii.Shape) != 1 || ii.DType.IsFloat() || ii.DType == canon.Bool {
		return nil, c.errf("with an input whose shape only a run tells, only one 1-D integer index (on the first axis) is supported")
	}
	var err error
	if ii.DType != canon.Int64 {
		if i, err = b.emit1(c.scope, &canon.Cast{To: canon.Int64}, i); err != nil {
			return nil, err
		}
	}
	// Negative indices: i + n where i < 0.
	n, err := b.emit1(c.scope, &canon.ShapeOf{Start: 0, End: 1}, x)
	if err != nil {
		return nil, err
	}
	zero := &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{0})}
	neg, err := b.emit1(c.scope, &canon.Compare{Fn: canon.CmpLess}, i, zero)
	if err != nil {
		return nil, err
	}
	wrapped, err := b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, i, n)
	if err != nil {
		return nil, err
	}
	if i, err = b.emit1(c.scope, &canon.Where{}, neg, wrapped, i); err != nil {
		return nil, err
	}
	idx, err := b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{1}}, i)
	if err != nil {
		return nil, err
	}
	rows, err := b.emit1(c.scope, &canon.ShapeOf{Start: 0, End: 1}, i)
	if err != nil {
		return nil, err
	}
	rest, err := b.emit1(c.scope, &canon.ShapeOf{Start: 1, End: math.MaxInt64}, x)
	if err != nil {
		return nil, err
	}
	shape, err := b.emit1(c.scope, &canon.Concat{Axis: 0}, rows, rest)
	if err != nil {
		return nil, err
	}
	upd, err := b.emit(c.scope, &canon.Expand{}, []*tensorVal{v, shape}, 1)
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.ScatterND{Reduction: red}, x, idx, upd[0])
}
