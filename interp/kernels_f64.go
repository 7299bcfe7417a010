package interp

import (
	"fmt"
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// float64 paths of the kernels that compute in float64 natively (see
// computesF64 in the kernel table). Each kernel checks for float64 storage first and comes here;
// float32 data keeps its own, faster loops.

// isFloating reports float storage of either width.
func (t *tensor) isFloating() bool { return t.isFloat() || t.isF64() }

// fl reads element i of float storage (either width) as a float64.
func (t *tensor) fl(i int) float64 {
	if t.isF64() {
		return t.d[i]
	}
	return float64(t.f[i])
}

// setFl writes element i of float storage, rounding to float32 storage.
func (t *tensor) setFl(i int, v float64) {
	if t.isF64() {
		t.d[i] = v
		return
	}
	t.f[i] = float32(v)
}

// num reads element i of any storage as a float64 (uint64 unsigned).
func (t *tensor) num(i int) float64 {
	switch {
	case t.isF64():
		return t.d[i]
	case t.isFloat():
		return float64(t.f[i])
	}
	return intValue(t.dt, t.i[i])
}

// newFloatLike returns a float tensor of t's storage width.
func (x *exec) newFloatLike(t *tensor, shape []int) *tensor {
	if t.isF64() {
		return x.newD(shape)
	}
	return x.newF(shape)
}

// needFloating reports an error unless t holds floating-point data.
func needFloating(t *tensor, what string) error {
	if !t.isFloating() {
		return fmt.Errorf("%s is %s, want a floating-point tensor", what, t.dt)
	}
	return nil
}

// sameFloat fails unless a and b are both float64.
func bothF64(a, b *tensor) error {
	if a.isF64() != b.isF64() {
		return fmt.Errorf("operands have different dtypes %s and %s", a.dt, b.dt)
	}
	return nil
}

func runBinaryF64(x *exec, fn binFn) error {
	a, b := x.in(0), x.in(1)
	if err := bothF64(a, b); err != nil {
		return err
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return err
	}
	if fn == binPRelu && !slices.Equal(shape, a.shape) {
		return fmt.Errorf("slope of shape %v does not broadcast to X of shape %v", b.shape, a.shape)
	}
	out := x.newD(shape)
	bcastWalk(shape, [][]int{a.shape, b.shape}, func(o int, offs []int) {
		av, bv := a.d[offs[0]], b.d[offs[1]]
		var r float64
		switch fn {
		case binAdd:
			r = av + bv
		case binSub:
			r = av - bv
		case binMul:
			r = av * bv
		case binDiv:
			r = av / bv
		case binPRelu:
			r = av
			if av < 0 {
				r = av * bv
			}
		}
		out.d[o] = r
	})
	x.set(0, out)
	return nil
}

// unary64 is one activation in float64.
func unary64(op unaryOp, v float64) float64 {
	a, b := float64(op.a), float64(op.b)
	switch op.fn {
	case uRelu:
		return max(v, 0)
	case uSigmoid:
		return 1 / (1 + math.Exp(-v))
	case uTanh:
		return math.Tanh(v)
	case uHardSwish:
		return v * max(0, min(1, v/6+0.5))
	case uLeakyRelu:
		if v < 0 {
			return v * a
		}
		return v
	case uClip:
		return min(max(v, a), b)
	case uHardSigmoid:
		return max(0, min(1, a*v+b))
	case uSoftplus:
		if v > 40 {
			return v
		}
		return max(v, 0) + math.Log1p(math.Exp(-math.Abs(v)))
	case uSoftsign:
		return v / (1 + math.Abs(v))
	case uElu:
		if v > 0 {
			return v
		}
		return a * math.Expm1(v)
	case uSelu:
		if v > 0 {
			return b * v
		}
		return b * a * math.Expm1(v)
	case uGelu:
		return gelu(v)
	case uGeluTanh:
		return geluTanh(v)
	}
	return v
}

func runUnaryF64(x *exec, op unaryOp, lo, hi float64) error {
	in := x.in(0)
	out := x.take(0)
	if out == nil {
		out = x.newD(in.shape)
	}
	for i, v := range in.d {
		if op.fn == uClip {
			// NaN passes through, as in ONNX Runtime.
			if v < lo {
				v = lo
			}
			if v > hi {
				v = hi
			}
			out.d[i] = v
			continue
		}
		out.d[i] = unary64(op, v)
	}
	x.set(0, out)
	return nil
}

// runFloatMapF64 applies f to every float64 element of input 0.
func runFloatMapF64(x *exec, f func(float64) float64) error {
	in := x.in(0)
	out := x.take(0)
	if out == nil {
		out = x.newD(in.shape)
	}
	for i, v := range in.d {
		out.d[i] = f(v)
	}
	x.set(0, out)
	return nil
}

// alongAxisF64 is runAlongAxis for float64 data.
func alongAxisF64(x *exec, axis int64, row func(src, dst []float64, n, stride int)) error {
	in := x.in(0)
	a, err := normAxis(axis, len(in.shape))
	if err != nil {
		return err
	}
	outer, n, inner := numel(in.shape[:a]), in.shape[a], numel(in.shape[a+1:])
	out := x.newD(in.shape)
	for o := 0; o < outer; o++ {
		for j := 0; j < inner; j++ {
			base := o*n*inner + j
			row(in.d[base:], out.d[base:], n, inner)
		}
	}
	x.set(0, out)
	return nil
}

func softmaxRow64(src, dst []float64, n, stride int) {
	m := math.Inf(-1)
	for k := 0; k < n; k++ {
		m = max(m, src[k*stride])
	}
	var sum float64
	for k := 0; k < n; k++ {
		e := math.Exp(src[k*stride] - m)
		dst[k*stride] = e
		sum += e
	}
	for k := 0; k < n; k++ {
		dst[k*stride] /= sum
	}
}

func logSoftmaxRow64(src, dst []float64, n, stride int) {
	m := math.Inf(-1)
	for k := 0; k < n; k++ {
		m = max(m, src[k*stride])
	}
	var sum float64
	for k := 0; k < n; k++ {
		sum += math.Exp(src[k*stride] - m)
	}
	ls := math.Log(sum)
	for k := 0; k < n; k++ {
		dst[k*stride] = src[k*stride] - m - ls
	}
}

func hardmaxRow64(src, dst []float64, n, stride int) {
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

// matMulF64 multiplies one m×k by one k×n float64 matrix into y (row
// major), accumulating in float64.
func matMulF64(m, n, k int, a []float64, lda int, transA bool, b []float64, ldb int, transB bool, y []float64, alpha float64) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for l := 0; l < k; l++ {
				var av, bv float64
				if transA {
					av = a[l*lda+i]
				} else {
					av = a[i*lda+l]
				}
				if transB {
					bv = b[j*ldb+l]
				} else {
					bv = b[l*ldb+j]
				}
				s += av * bv
			}
			y[i*n+j] += alpha * s
		}
	}
}

func runLinearF64(x *exec, op *canon.Linear) error {
	a, w, c := x.in(0), x.in(1), x.in(2)
	if err := bothF64(a, w); err != nil {
		return err
	}
	if len(a.shape) != 2 {
		return fmt.Errorf("A has shape %v, want (M, K)", a.shape)
	}
	if len(w.shape) != 2 || w.shape[1] != a.shape[1] {
		return fmt.Errorf("W has shape %v (layout OI), want (N, %d) to match A %v", w.shape, a.shape[1], a.shape)
	}
	m, k, n := a.shape[0], a.shape[1], w.shape[0]
	y := x.newD([]int{m, n})
	clear(y.d)
	if c != nil && op.Beta != 0 {
		if !c.isF64() {
			return fmt.Errorf("C is %s, want float64 like A", c.dt)
		}
		bs, err := broadcastShape([]int{m, n}, c.shape)
		if err != nil || !slices.Equal(bs, []int{m, n}) {
			return fmt.Errorf("C: shape %v does not broadcast to %v", c.shape, []int{m, n})
		}
		beta := float64(op.Beta)
		bcastWalk([]int{m, n}, [][]int{c.shape}, func(o int, offs []int) {
			y.d[o] = beta * c.d[offs[0]]
		})
	}
	matMulF64(m, n, k, a.d, k, false, w.d, k, true, y.d, float64(op.Alpha))
	x.set(0, y)
	return nil
}

// copyElem sets dst[di] = src[si]; both have the same storage.
func copyElem(dst *tensor, di int, src *tensor, si int) {
	switch {
	case src.isFloat():
		dst.f[di] = src.f[si]
	case src.isF64():
		dst.d[di] = src.d[si]
	default:
		dst.i[di] = src.i[si]
	}
}

// setNum writes number v into element i of any storage.
func (t *tensor) setNum(i int, v float64) {
	switch {
	case t.isFloat():
		t.f[i] = float32(v)
	case t.isF64():
		t.d[i] = v
	default:
		t.i[i] = int64(v)
	}
}

// bitsOrFloat reads element i of float data, whether stored as float32,
// float64, or float64 carried by its bits (f64Bits kernels).
func (t *tensor) bitsOrFloat(i int) float64 {
	if t.dt == canon.Float64 && t.i != nil {
		return math.Float64frombits(uint64(t.i[i]))
	}
	return t.fl(i)
}

// scatterF64Bits is scatter's reduction for float64 data carried by its
// bits.
func scatterF64Bits(dst, src *tensor, offs []int, slice int, r canon.ScatterReduction) {
	for j, o := range offs {
		d, s := dst.i[o:o+slice], src.i[j*slice:(j+1)*slice]
		for e := range d {
			a, b := math.Float64frombits(uint64(d[e])), math.Float64frombits(uint64(s[e]))
			switch r {
			case canon.ScatterAdd:
				a += b
			case canon.ScatterMul:
				a *= b
			case canon.ScatterMax:
				a = math.Max(a, b)
			case canon.ScatterMin:
				a = math.Min(a, b)
			}
			d[e] = int64(math.Float64bits(a))
		}
	}
}

// uint64Bounds are Relu's (clip false) or Clip's float bounds lo and hi as
// uint64 values: lo rounded up, hi rounded down, both within uint64.
func uint64Bounds(clip bool, lo, hi float32) (uint64, uint64) {
	var l, h uint64 = 0, math.MaxUint64
	if !clip {
		return l, h
	}
	if f := math.Ceil(float64(lo)); f > 0 {
		l = uint64(castFloatToInt(canon.Uint64, f))
	}
	if f := math.Floor(float64(hi)); !math.IsInf(f, 1) {
		h = 0
		if f > 0 {
			h = uint64(castFloatToInt(canon.Uint64, f))
		}
	}
	return l, h
}

// clipUint64 bounds uint64 values (stored by their bits) by lo and hi,
// compared unsigned, as max then min (ONNX Runtime's order).
func clipUint64(dst, src []int64, lo, hi uint64) {
	for i, v := range src {
		dst[i] = int64(min(max(uint64(v), lo), hi))
	}
}

// intToFloat32 converts an integer storage value of dtype dt to float32
// with one rounding (through float64 it could round twice).
func intToFloat32(dt canon.DType, v int64) float32 {
	if dt == canon.Uint64 {
		return float32(uint64(v))
	}
	return float32(v)
}
