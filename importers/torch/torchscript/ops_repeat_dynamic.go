package torchscript

import "github.com/modelbridge/modelbridge/canon"

// repeatAtRunTime is repeat_interleave with counts known only at run
// time: output position j takes entry i, the number of runs that end at or
// before j (ends are the running sums of the counts). The output length is
// the counts' sum. With x nil it is repeat_interleave(repeats): the
// positions themselves. dimArg is the argument holding dim (None: the
// flattened input).
func repeatAtRunTime(c *opCall, x, counts *tensorVal, dimArg int) (value, error) {
	var err error
	if counts, err = castTo(c, counts, canon.Int64); err != nil {
		return nil, err
	}
	cr, err := c.rankOf(counts, "the repeat counts")
	if err != nil {
		return nil, err
	}
	if cr > 1 {
		return nil, c.errf("repeats must be 0-D or 1-D, got rank %d", cr)
	}
	var d int64
	if x != nil {
		if c.isNone(dimArg) {
			if x, err = reshape(c, x, -1); err != nil {
				return nil, err
			}
		} else if d, _, err = splitAxis(c, x, dimArg); err != nil {
			return nil, err
		}
		size := c.b().info(x).Shape[d]
		if !size.Known() {
			return nil, c.errf("the size of the repeated dimension is not known at import; give the input shape (--input-shape NAME=D1,D2,...)")
		}
		cs, err := c.shapeOf(counts, "the repeat counts")
		if err != nil {
			return nil, err
		}
		if n := canon.NumElements(cs); n == 1 && size.Size != 1 {
			// One count for every entry.
			if counts, err = c.b().emit1(c.scope, &canon.Expand{Shape: []int64{size.Size}}, counts); err != nil {
				return nil, err
			}
		} else if n != size.Size {
			return nil, c.errf("repeats has %d values for a dimension of size %d; give one count, or one per entry", n, size.Size)
		}
	}
	if cr == 0 {
		if counts, err = reshape(c, counts, 1); err != nil {
			return nil, err
		}
	}
	ends, err := c.b().emit1(c.scope, &canon.CumSum{Axis: 0}, counts)
	if err != nil {
		return nil, err
	}
	total, err := reduce(c, canon.ReduceSum, counts, false, 0)
	if err != nil {
		return nil, err
	}
	pos, err := c.b().emit1(c.scope, &canon.Range{}, constI64(nil, 0), total, constI64(nil, 1))
	if err != nil {
		return nil, err
	}
	col, err := unsqueeze(c, pos, 1)
	if err != nil {
		return nil, err
	}
	done, err := cmpOp(c, canon.CmpLessOrEqual, ends, col)
	if err != nil {
		return nil, err
	}
	if done, err = castTo(c, done, canon.Int64); err != nil {
		return nil, err
	}
	idx, err := reduce(c, canon.ReduceSum, done, false, 1)
	if err != nil || x == nil {
		return idx, err
	}
	// output_size, when given, is torch's hint of the sum; the sum itself
	// is used.
	return c.b().emit1(c.scope, &canon.Gather{Axis: d}, x, idx)
}
