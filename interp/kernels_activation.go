package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the activation family: LogSoftmax, Hardmax, Celu, Mish,
// ThresholdedRelu, Shrink and Einsum.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"LogSoftmax": computesF64(withOp(func(x *exec, op *canon.LogSoftmax) error {
			if x.in(0).isF64() {
				return alongAxisF64(x, op.Axis, logSoftmaxRow64)
			}
			return runAlongAxis(x, op.Axis, logSoftmaxRow)
		})),
		"Hardmax": computesF64(withOp(func(x *exec, op *canon.Hardmax) error {
			if x.in(0).isF64() {
				return alongAxisF64(x, op.Axis, hardmaxRow64)
			}
			return runAlongAxis(x, op.Axis, hardmaxRow)
		})),
		"Celu": computesF64(withOp(func(x *exec, op *canon.Celu) error {
			a := float64(op.Alpha)
			return runFloatMap(x, func(v float64) float64 {
				if v > 0 {
					return v
				}
				return a * math.Expm1(v/a)
			})
		})),
		"Mish": computesF64(fixed(func(x *exec) error {
			return runFloatMap(x, func(v float64) float64 {
				// softplus without overflow: log1p(exp(v)) = v + log1p(exp(-v)).
				sp := math.Log1p(math.Exp(-math.Abs(v))) + math.Max(v, 0)
				return v * math.Tanh(sp)
			})
		})),
		"ThresholdedRelu": computesF64(withOp(func(x *exec, op *canon.ThresholdedRelu) error {
			a := float64(op.Alpha)
			return runFloatMap(x, func(v float64) float64 {
				if v > a {
					return v
				}
				return 0
			})
		})),
		"Shrink": computesF64(withOp(runShrink)),
		"Einsum": computesF64(withOp(runEinsum)),
	})
}

// runFloatMap applies f to every element of a float input.
func runFloatMap(x *exec, f func(float64) float64) error {
	in := x.in(0)
	if in.isF64() {
		return runFloatMapF64(x, f)
	}
	if err := needFloat(in, "input"); err != nil {
		return err
	}
	out := x.take(0)
	if out == nil {
		out = x.newF(in.shape)
	}
	for i, v := range in.f {
		out.f[i] = float32(f(float64(v)))
	}
	x.set(0, out)
	return nil
}

// runShrink computes in float64; integer results are truncated toward
// zero (ONNX Runtime's static_cast of x±bias) and wrapped to the dtype.
func runShrink(x *exec, op *canon.Shrink) error {
	in := x.in(0)
	lambd, bias := float64(op.Lambd), float64(op.Bias)
	f := func(v float64) float64 {
		switch {
		case v < -lambd:
			return v + bias
		case v > lambd:
			return v - bias
		}
		return 0
	}
	if in.isFloating() {
		return runFloatMap(x, f)
	}
	if in.dt == canon.Bool {
		return fmt.Errorf("input is bool, want numbers")
	}
	out := x.take(0)
	if out == nil {
		out = x.newI(in.dt, in.shape)
	}
	for i, v := range in.i {
		out.i[i] = castFloatToInt(in.dt, f(intValue(in.dt, v)))
	}
	wrapInts(in.dt, out.i)
	x.set(0, out)
	return nil
}

// runAlongAxis applies row to every line of a float input along axis;
// row reads n values at stride and writes the results the same way.
func runAlongAxis(x *exec, axis int64, row func(src, dst []float32, n, stride int)) error {
	in := x.in(0)
	if err := needFloat(in, "input"); err != nil {
		return err
	}
	a, err := normAxis(axis, len(in.shape))
	if err != nil {
		return err
	}
	outer, n, inner := numel(in.shape[:a]), in.shape[a], numel(in.shape[a+1:])
	out := x.newF(in.shape)
	for o := 0; o < outer; o++ {
		for j := 0; j < inner; j++ {
			base := o*n*inner + j
			row(in.f[base:], out.f[base:], n, inner)
		}
	}
	x.set(0, out)
	return nil
}

func logSoftmaxRow(src, dst []float32, n, stride int) {
	m := math.Inf(-1)
	for k := 0; k < n; k++ {
		m = math.Max(m, float64(src[k*stride]))
	}
	var sum float64
	for k := 0; k < n; k++ {
		sum += math.Exp(float64(src[k*stride]) - m)
	}
	ls := math.Log(sum)
	for k := 0; k < n; k++ {
		dst[k*stride] = float32(float64(src[k*stride]) - m - ls)
	}
}

// hardmaxRow marks the first maximum (ONNX: ties go to the lowest index).
func hardmaxRow(src, dst []float32, n, stride int) {
	best := 0
	for k := 0; k < n; k++ {
		dst[k*stride] = 0
		if src[k*stride] > src[best*stride] {
			best = k
		}
	}
	if n > 0 {
		dst[best*stride] = 1
	}
}

// runEinsum walks the whole index space of the equation's labels, output
// labels outermost, and sums the operands' products into each output
// element. Floats accumulate in float64; integers in int64, wrapped to the
// dtype at the end.
func runEinsum(x *exec, op *canon.Einsum) error {
	eq, err := canon.ParseEinsum(op.Equation)
	if err != nil {
		return err
	}
	nin := len(x.s.in)
	ins := make([]*tensor, nin)
	ranks := make([]int, nin)
	shapes := make([][]int64, nin)
	for i := range ins {
		ins[i] = x.in(i)
		if ins[i].isFloating() != ins[0].isFloating() || ins[i].dt != ins[0].dt {
			return fmt.Errorf("inputs have different dtypes %s and %s", ins[0].dt, ins[i].dt)
		}
		ranks[i] = len(ins[i].shape)
		for _, d := range ins[i].shape {
			shapes[i] = append(shapes[i], int64(d))
		}
	}
	if ins[0].dt == canon.Bool {
		return fmt.Errorf("inputs are bool, want numbers")
	}
	p, err := eq.Bind(ranks)
	if err != nil {
		return err
	}
	sizes64, err := p.Sizes(shapes)
	if err != nil {
		return err
	}
	sizes := make([]int, len(sizes64))
	for i, s := range sizes64 {
		sizes[i] = int(s)
	}
	if out, ok := einsumAsMatMul(x, p, ins, sizes); ok {
		x.set(0, out)
		return nil
	}
	// Loop order: output labels, then the summed ones.
	order := append([]int{}, p.Output...)
	inOut := make([]bool, p.Labels)
	for _, l := range p.Output {
		inOut[l] = true
	}
	for l := range p.Labels {
		if !inOut[l] {
			order = append(order, l)
		}
	}
	outShape := make([]int, len(p.Output))
	for k, l := range p.Output {
		outShape[k] = sizes[l]
	}
	nOut := numel(outShape)
	inner := 1
	for _, l := range order[len(p.Output):] {
		inner *= sizes[l]
	}
	// stride[i][k] is operand i's step for label order[k]: the sum of its
	// axes' strides with that label (a repeated letter walks the diagonal),
	// 0 on a broadcast axis of size 1.
	stride := make([][]int, nin)
	for i, labels := range p.Operands {
		es := elemStrides(ins[i].shape)
		stride[i] = make([]int, len(order))
		for k, l := range order {
			for a, m := range labels {
				if m == l && !(ins[i].shape[a] == 1 && sizes[l] != 1) {
					stride[i][k] += es[a]
				}
			}
		}
	}
	isFloat := ins[0].isFloating()
	var out *tensor
	if isFloat {
		out = x.newFloatLike(ins[0], outShape)
	} else {
		out = x.newI(ins[0].dt, outShape)
	}
	if nOut == 0 {
		x.set(0, out)
		return nil
	}
	idx := make([]int, len(order))
	off := make([]int, nin)
	step := func() {
		for k := len(order) - 1; k >= 0; k-- {
			idx[k]++
			for i := range off {
				off[i] += stride[i][k]
			}
			if idx[k] < sizes[order[k]] {
				return
			}
			for i := range off {
				off[i] -= stride[i][k] * sizes[order[k]]
			}
			idx[k] = 0
		}
	}
	for o := 0; o < nOut; o++ {
		if isFloat {
			var sum float64
			for range inner {
				prod := 1.0
				for i, t := range ins {
					prod *= t.fl(off[i])
				}
				sum += prod
				step()
			}
			out.setFl(o, sum)
		} else {
			var sum int64
			for range inner {
				prod := int64(1)
				for i, t := range ins {
					prod *= t.i[off[i]]
				}
				sum += prod
				step()
			}
			out.i[o] = sum
		}
	}
	if !isFloat {
		wrapInts(out.dt, out.i)
	}
	x.set(0, out)
	return nil
}
