package interp

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// Reductions of float32 data over trailing axes: each output is the
// reduction of one contiguous row, so rows are reduced in parallel without
// the element-to-output map of reducePlan.

// trailingReduce reports whether the reduced axes are exactly the last ones
// (the data are then m contiguous rows of count elements).
func trailingReduce(reduce []bool) bool {
	seen := false
	for _, r := range reduce {
		if seen && !r {
			return false
		}
		seen = seen || r
	}
	return seen
}

// rowReducible reports whether fn has a row kernel.
func rowReducible(fn canon.ReduceFn) bool {
	switch fn {
	case canon.ReduceSum, canon.ReduceMean, canon.ReduceSumSquare, canon.ReduceL2, canon.ReduceL1:
		return true
	}
	return false
}

// reduceRows reduces v, m rows of count elements, into out (one per row),
// accumulating in float64 as reduceFloat does (sums in vec.SumF64's
// vector order).
func reduceRows(fn canon.ReduceFn, v []float32, out []float32, count int) {
	cost := count
	if fn == canon.ReduceSum || fn == canon.ReduceMean {
		// vec.SumF64 adds several elements a cycle: a region's handoff
		// costs more than it saves below about a quarter million.
		cost = max(1, count/8)
	}
	parallelFor(len(out), cost, func(lo, hi int) {
		if fn == canon.ReduceSum || fn == canon.ReduceMean {
			sumRowBlocks(v, out, count, lo, hi, fn == canon.ReduceMean)
			return
		}
		for r := lo; r < hi; r++ {
			row := v[r*count : (r+1)*count]
			var a float64
			switch fn {
			case canon.ReduceSumSquare, canon.ReduceL2:
				a = sumSquaresRow(row)
			case canon.ReduceL1:
				a = sumAbsRow(row)
			}
			if fn == canon.ReduceL2 {
				a = math.Sqrt(a)
			}
			out[r] = float32(a)
		}
	})
}

// sumRowBlocks sets out[r] for r in [lo, hi) to the sum (or mean) of
// v's r-th row, adding rows a block at a time in one call, so that short
// rows' addition chains overlap.
func sumRowBlocks(v, out []float32, count, lo, hi int, mean bool) {
	var sums [64]float64
	for r := lo; r < hi; r += len(sums) {
		blk := sums[:min(len(sums), hi-r)]
		vec.SumRowsF64(v[r*count:(r+len(blk))*count], count, blk)
		for j, a := range blk {
			if mean {
				a /= float64(count)
			}
			out[r+j] = float32(a)
		}
	}
}

func sumSquaresRow(row []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(row); i += 4 {
		a, b, c, d := float64(row[i]), float64(row[i+1]), float64(row[i+2]), float64(row[i+3])
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for ; i < len(row); i++ {
		a := float64(row[i])
		s0 += a * a
	}
	return (s0 + s1) + (s2 + s3)
}

func sumAbsRow(row []float32) float64 {
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(row); i += 2 {
		s0 += math.Abs(float64(row[i]))
		s1 += math.Abs(float64(row[i+1]))
	}
	for ; i < len(row); i++ {
		s0 += math.Abs(float64(row[i]))
	}
	return s0 + s1
}
