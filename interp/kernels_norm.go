package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// Kernels of the normalization family. Statistics accumulate in float64:
// the mean first, then the variance as the mean of squared deviations,
// which stays accurate where E[x²]-E[x]² cancels.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"LayerNormalization":        float32Only(withOp(runLayerNorm)),
		"GroupNormalization":        float32Only(withOp(runGroupNorm)),
		"InstanceNormalization":     float32Only(withOp(runInstanceNorm)),
		"RMSNormalization":          float32Only(withOp(runRMSNorm)),
		"LpNormalization":           float32Only(withOp(runLpNorm)),
		"MeanVarianceNormalization": float32Only(withOp(runMeanVarNorm)),
	})
}

// meanVar is the mean and population variance of v, summed in float64
// (vec.SumF64 and SumSqDevF64: sixteen partial sums).
func meanVar(v []float32) (mean, variance float64) {
	if len(v) == 0 {
		return 0, 0
	}
	mean = vec.SumF64(v) / float64(len(v))
	return mean, vec.SumSqDevF64(v, mean) / float64(len(v))
}

// tailOf broadcasts t to shape tail (t's shape aligned at the end) and
// returns its values, or nil when t is absent.
func tailOf(t *tensor, tail []int, what string) ([]float32, error) {
	if t == nil {
		return nil, nil
	}
	if err := needFloat(t, what); err != nil {
		return nil, err
	}
	if len(t.shape) > len(tail) {
		return nil, fmt.Errorf("%s has shape %v, which does not broadcast to %v", what, t.shape, tail)
	}
	full := make([]int, len(tail))
	for i := range full {
		full[i] = 1
	}
	copy(full[len(tail)-len(t.shape):], t.shape)
	for i, d := range full {
		if d != 1 && d != tail[i] {
			return nil, fmt.Errorf("%s has shape %v, which does not broadcast to %v", what, t.shape, tail)
		}
	}
	n := numel(tail)
	out := make([]float32, n)
	if n == 0 {
		return out, nil
	}
	p := newBcast(tail, tail, full)
	step := p.sb[len(p.sb)-1]
	p.rows(func(o, _, ob int) {
		for k := 0; k < p.dims[len(p.dims)-1]; k++ {
			out[o+k] = t.f[ob+k*step]
		}
	})
	return out, nil
}

// trailing splits X's shape at axis into rows and the row length.
func trailing(in *tensor, axis int64) (a, outer, inner int, err error) {
	a, err = normAxis(axis, len(in.shape))
	if err != nil {
		return 0, 0, 0, err
	}
	return a, numel(in.shape[:a]), numel(in.shape[a:]), nil
}

func runLayerNorm(x *exec, op *canon.LayerNorm) error {
	in := x.in(0)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	a, outer, inner, err := trailing(in, op.Axis)
	if err != nil {
		return err
	}
	// Absent: 1s and -0s, which change no value (x + -0 is x, +0 too).
	scale, bias, err := rowParams(x, in.shape[a:])
	if err != nil {
		return err
	}
	statShape := append([]int{}, in.shape...)
	for i := a; i < len(statShape); i++ {
		statShape[i] = 1
	}
	y, mean, inv := x.newF(in.shape), x.newF(statShape), x.newF(statShape)
	parallelFor(outer, 8*inner, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			src, dst := in.f[r*inner:(r+1)*inner], y.f[r*inner:(r+1)*inner]
			m, v := meanVar(src)
			is := 1 / math.Sqrt(v+float64(op.Epsilon))
			mean.f[r], inv.f[r] = float32(m), float32(is)
			// ((x - mean)·inv)·scale + bias in float64 lanes.
			vec.LNAffine64(dst, src, scale, bias, m, is)
		}
	})
	x.set(0, y)
	x.set(1, mean)
	x.set(2, inv)
	return nil
}

// channelParams reads the per-channel vectors of inputs 1 and 2.
func channelParams(x *exec, c int) (scale, bias []float32, err error) {
	for k, what := range []string{"Scale", "B"} {
		t := x.in(k + 1)
		if err := needFloat(t, what); err != nil {
			return nil, nil, err
		}
		if len(t.f) != c {
			return nil, nil, fmt.Errorf("%s has shape %v, want [%d] (the channels of X)", what, t.shape, c)
		}
		if k == 0 {
			scale = t.f
		} else {
			bias = t.f
		}
	}
	return scale, bias, nil
}

// groupNormalize normalizes X (N, C, ...) in groups of C/groups channels,
// then scales and shifts each channel.
func groupNormalize(x *exec, groups int, eps float32) error {
	in := x.in(0)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	if len(in.shape) < 2 {
		return fmt.Errorf("X has shape %v, want (N, C, ...)", in.shape)
	}
	c := in.shape[1]
	if groups < 1 || c%groups != 0 {
		return fmt.Errorf("X has %d channels, not a multiple of %d groups", c, groups)
	}
	scale, bias, err := channelParams(x, c)
	if err != nil {
		return err
	}
	inner := numel(in.shape[2:])
	per := c / groups * inner
	y := x.newF(in.shape)
	parallelFor(in.shape[0]*groups, 8*per, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			src, dst := in.f[g*per:(g+1)*per], y.f[g*per:(g+1)*per]
			m, v := meanVar(src)
			is := 1 / math.Sqrt(v+float64(eps))
			// One channel of the group at a time: its scale and bias are
			// fixed over its inner positions.
			for cg := 0; cg < c/groups; cg++ {
				ch := (g%groups)*(c/groups) + cg
				sc, b := float64(scale[ch]), float64(bias[ch])
				for i, e := range src[cg*inner : (cg+1)*inner] {
					dst[cg*inner+i] = float32((float64(e)-m)*is*sc + b)
				}
			}
		}
	})
	x.set(0, y)
	return nil
}

func runGroupNorm(x *exec, op *canon.GroupNorm) error {
	return groupNormalize(x, int(op.NumGroups), op.Epsilon)
}

func runInstanceNorm(x *exec, op *canon.InstanceNorm) error {
	in := x.in(0)
	if len(in.shape) < 3 {
		return fmt.Errorf("X has shape %v, want (N, C, spatial...)", in.shape)
	}
	return groupNormalize(x, in.shape[1], op.Epsilon)
}

func runRMSNorm(x *exec, op *canon.RMSNorm) error {
	in := x.in(0)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	a, outer, inner, err := trailing(in, op.Axis)
	if err != nil {
		return err
	}
	scale, err := tailOf(x.in(1), in.shape[a:], "Scale")
	if err != nil {
		return err
	}
	y := x.newF(in.shape)
	for r := 0; r < outer; r++ {
		src, dst := in.f[r*inner:(r+1)*inner], y.f[r*inner:(r+1)*inner]
		var ss float64
		for _, e := range src {
			ss += float64(e) * float64(e)
		}
		is := 1 / math.Sqrt(ss/float64(max(inner, 1))+float64(op.Epsilon))
		for i, e := range src {
			dst[i] = float32(float64(e) * is * float64(scale[i]))
		}
	}
	x.set(0, y)
	return nil
}

func runLpNorm(x *exec, op *canon.LpNorm) error {
	in := x.in(0)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	if op.P != 1 && op.P != 2 {
		return fmt.Errorf("p %d must be 1 or 2", op.P)
	}
	a, err := normAxis(op.Axis, len(in.shape))
	if err != nil {
		return err
	}
	outer, n, inner := numel(in.shape[:a]), in.shape[a], numel(in.shape[a+1:])
	y := x.newF(in.shape)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			base := o*n*inner + i
			var norm float64
			for k := 0; k < n; k++ {
				v := float64(in.f[base+k*inner])
				if op.P == 1 {
					norm += math.Abs(v)
				} else {
					norm += v * v
				}
			}
			if op.P == 2 {
				norm = math.Sqrt(norm)
			}
			for k := 0; k < n; k++ {
				if norm != 0 {
					y.f[base+k*inner] = float32(float64(in.f[base+k*inner]) / norm)
				}
			}
		}
	}
	x.set(0, y)
	return nil
}

func runMeanVarNorm(x *exec, op *canon.MeanVarNorm) error {
	in := x.in(0)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	axes, err := sortedAxes(op.Axes, len(in.shape))
	if err != nil {
		return err
	}
	reduce := make([]bool, len(in.shape))
	for _, a := range axes {
		reduce[a] = true
	}
	outShape, offs := reducePlan(in.shape, reduce, true)
	groups := numel(outShape)
	sum, cnt := make([]float64, groups), make([]float64, groups)
	for e, o := range offs {
		sum[o] += float64(in.f[e])
		cnt[o]++
	}
	for g := range sum {
		if cnt[g] > 0 {
			sum[g] /= cnt[g]
		}
	}
	dev := make([]float64, groups)
	for e, o := range offs {
		d := float64(in.f[e]) - sum[o]
		dev[o] += d * d
	}
	for g := range dev {
		if cnt[g] > 0 {
			dev[g] = math.Sqrt(dev[g]/cnt[g]) + canon.MeanVarNormEpsilon
		}
	}
	y := x.newF(in.shape)
	for e, o := range offs {
		y.f[e] = float32((float64(in.f[e]) - sum[o]) / dev[o])
	}
	x.set(0, y)
	return nil
}
