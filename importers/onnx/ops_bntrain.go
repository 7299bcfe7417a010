package onnximport

import "github.com/modelbridge/modelbridge/canon"

// convBatchNormTraining reads BatchNormalization with training_mode=1
// (opset 14+) as ONNX defines it: the batch's own statistics over every
// axis but the channels (the population variance) normalize X, and the
// running statistics outputs are input_mean·momentum + mean·(1-momentum)
// and input_var·momentum + var·(1-momentum). No randomness is involved,
// so the result is exact.
func convBatchNormTraining(c *nodeCtx) error {
	r := c.needRank(0, "BatchNormalization in training mode")
	if c.err != nil {
		return c.err
	}
	if r < 2 {
		return c.errf("input %q has rank %d; BatchNormalization needs (N, C, ...)", c.in(0), r)
	}
	dt := c.info(0).DType
	for i := 1; i <= 4; i++ {
		if c.in(i) == "" {
			return c.errf("input %d is missing; BatchNormalization needs scale, B, input_mean and input_var", i)
		}
		if d := c.info(i).DType; d != canon.Undefined && dt != canon.Undefined && d != dt {
			return c.errf("input %q is %s and X is %s; in training mode modelbridge reads equal types only", c.in(i), d, dt)
		}
	}
	if !dt.IsFloat() {
		return c.errf("input %q is %s; BatchNormalization takes floating-point data", c.in(0), dt)
	}
	momentum := float64(c.float("momentum", 0.9))
	eps := c.float("epsilon", 1e-5)
	outs := append([]string{}, c.n.Output...)
	for len(outs) < 3 {
		outs = append(outs, "")
	}
	if len(outs) > 3 {
		for _, o := range outs[3:] {
			if o != "" {
				return c.errf("outputs %q: in training mode BatchNormalization has 3 outputs (Y, running_mean, running_var)", c.n.Output)
			}
		}
	}
	var axes []int64
	for i := range r {
		if i != 1 {
			axes = append(axes, int64(i))
		}
	}
	x := c.in(0)
	meanKept := c.chainAux("batch_mean_kept", &canon.Reduce{Fn: canon.ReduceMean, Axes: axes, KeepDims: true}, x)
	dev := c.chainAux("deviation", &canon.Binary{Fn: canon.Sub}, x, meanKept)
	mean := c.chainAux("batch_mean", &canon.Squeeze{Axes: axes}, meanKept)
	variance := c.chainAux("batch_var", &canon.Reduce{Fn: canon.ReduceMean, Axes: axes}, c.chainAux("deviation_sq", &canon.Binary{Fn: canon.Mul}, dev, dev))
	if c.err != nil {
		return c.err
	}
	if err := c.emit(&canon.BatchNorm{Epsilon: eps}, []string{x, c.in(1), c.in(2), mean, variance}, outs[:1]); err != nil {
		return err
	}
	keep := c.chainAux("momentum", &canon.Constant{Value: floatScalar(dt, momentum)})
	take := c.chainAux("one_minus_momentum", &canon.Constant{Value: floatScalar(dt, 1-momentum)})
	for k, stat := range []string{mean, variance} {
		if outs[k+1] == "" {
			continue
		}
		old := c.chainAux("running_kept", &canon.Binary{Fn: canon.Mul}, c.in(3+k), keep)
		cur := c.chainAux("batch_part", &canon.Binary{Fn: canon.Mul}, stat, take)
		if c.err != nil {
			return c.err
		}
		if err := c.emitNamed(c.im.freshNode(c.name+"/running"), &canon.Binary{Fn: canon.Add}, []string{old, cur}, outs[k+1:k+2]); err != nil {
			return err
		}
	}
	return nil
}
