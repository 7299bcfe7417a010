package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The reduce family: ReduceSum, ReduceMean, ReduceMax, ReduceMin,
// ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
// ReduceSumSquare, ArgMax, ArgMin, TopK and CumSum.

func init() {
	entries := map[string]opEntry{
		"ArgMax": {convArgReduce(false), 1, []string{"ArgMax"}},
		"ArgMin": {convArgReduce(true), 1, []string{"ArgMin"}},
		"TopK":   {convTopK, 1, []string{"TopK"}},
		"CumSum": {convCumSum, 11, []string{"CumSum"}},
	}
	for _, fn := range canon.ReduceFns() {
		entries[fn.String()] = opEntry{convReduce(fn), 1, []string{fn.String(), "Identity"}}
	}
	optable.Add(&ops, entries)
}

// reduceAxesInputSince is the opset from which a Reduce op takes its axes
// as an input (with noop_with_empty_axes) instead of an attribute.
func reduceAxesInputSince(fn canon.ReduceFn) int64 {
	if fn == canon.ReduceSum {
		return 13
	}
	return 18
}

func convReduce(fn canon.ReduceFn) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		keep := c.int("keepdims", 1) != 0
		since := reduceAxesInputSince(fn)
		noop := c.im.opset >= since && c.int("noop_with_empty_axes", 0) != 0
		if c.im.opset >= since && c.dynamic(1) {
			return c.emit(&canon.Reduce{Fn: fn, KeepDims: keep, NoopWithEmptyAxes: noop}, []string{c.in(0), c.in(1)}, c.out1())
		}
		axes, _ := c.axesAttrOrInput(since, fn.String()+" axes")
		if len(axes) == 0 {
			if noop {
				return c.emit(&canon.Identity{}, []string{c.in(0)}, c.out1())
			}
			axes = nil // every axis
		}
		axes = c.normAxes(axes, c.rankOr(0), "axis")
		return c.emit(&canon.Reduce{Fn: fn, Axes: axes, KeepDims: keep}, []string{c.in(0)}, c.out1())
	}
}

func convArgReduce(isMin bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		op := &canon.ArgReduce{Min: isMin, Axis: c.indexingAxis(0, 0), KeepDims: c.int("keepdims", 1) != 0}
		if c.im.opset >= 12 {
			op.SelectLastIndex = c.int("select_last_index", 0) != 0
		}
		return c.emit(op, []string{c.in(0)}, c.out1())
	}
}

// convTopK: k is an attribute before opset 10, an input after; largest and
// sorted arrive in 11.
func convTopK(c *nodeCtx) error {
	op := &canon.TopK{Axis: c.indexingAxis(0, -1), Largest: true, Sorted: true}
	if c.im.opset >= 11 {
		op.Largest = c.int("largest", 1) != 0
		op.Sorted = c.int("sorted", 1) != 0
	}
	outs := c.outputs(2, "TopK has two outputs")
	ins := []string{c.in(0)}
	switch {
	case c.im.opset < 10:
		if !c.has("k") {
			c.fail("attribute k is required")
		}
		op.K = c.int("k", 0)
	case c.in(1) == "":
		c.fail("input K is required")
	case c.dynamic(1):
		ins = append(ins, c.in(1))
	default:
		op.K = int64(c.constScalar(1, "K", 0))
	}
	if op.K < 0 {
		c.fail("k is %d, must be >= 0", op.K)
	}
	return c.emit(op, ins, outs)
}

// convCumSum folds a constant axis input into the attribute.
func convCumSum(c *nodeCtx) error {
	op := &canon.CumSum{Exclusive: c.int("exclusive", 0) != 0, Reverse: c.int("reverse", 0) != 0}
	ins := c.cumulativeAxis(&op.Axis)
	return c.emit(op, ins, c.out1())
}

// cumulativeAxis reads CumSum's and CumProd's axis input: a constant is
// folded into *axis (normalized when the rank is known), a run-time axis
// stays the node's second input. It returns the node's inputs.
func (c *nodeCtx) cumulativeAxis(axis *int64) []string {
	ins := []string{c.in(0)}
	switch {
	case c.in(1) == "":
		c.fail("input axis is required")
	case c.dynamic(1):
		ins = append(ins, c.in(1))
	default:
		*axis = int64(c.constScalar(1, "axis", 0))
		if r, ok := c.rank(0); ok {
			*axis = c.normAxis(*axis, r, "axis")
		}
	}
	return ins
}
