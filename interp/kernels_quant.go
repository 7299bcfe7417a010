package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Quantized kernels. Integer products accumulate exactly in int64 and
// wrap to int32 as ONNX Runtime's int32 accumulators do. Requantization
// follows ONNX Runtime: the multiplier and the scaled value are float32,
// rounded half to even, then saturated.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"QuantizeLinear":        float32Only(withOp(runQuantizeLinear)),
		"DequantizeLinear":      float32Only(withOp(runDequantizeLinear)),
		"DynamicQuantizeLinear": float32Only(fixed(runDynamicQuantizeLinear)),
		"QLinearConv":           float32Only(withOp(runQLinearConv)),
		"ConvInteger":           float32Only(withOp(runConvInteger)),
		"MatMulInteger":         float32Only(fixed(runMatMulInteger)),
		"QLinearMatMul":         float32Only(fixed(runQLinearMatMul)),
	})
}

// quantIndex maps element i of X to the index of its scale and zero point.
type quantIndex struct {
	perTensor           bool
	d, inner, block, nb int
}

func newQuantIndex(xshape []int, scale *tensor, axis, block int64) (quantIndex, error) {
	sc := scale.shape
	if block == 0 && (len(sc) == 0 || (len(sc) == 1 && sc[0] == 1)) {
		return quantIndex{perTensor: true}, nil
	}
	a, err := normAxis(axis, len(xshape))
	if err != nil {
		return quantIndex{}, err
	}
	q := quantIndex{d: xshape[a], inner: numel(xshape[a+1:]), block: int(block)}
	if block > 0 {
		if len(sc) != len(xshape) {
			return q, fmt.Errorf("blocked scale has shape %v, want the rank of X %v", sc, xshape)
		}
		q.nb = (q.d + q.block - 1) / q.block
		for i := range sc {
			want := xshape[i]
			if i == a {
				want = q.nb
			}
			if sc[i] != want {
				return q, fmt.Errorf("blocked scale has shape %v; X %v with block size %d along axis %d needs %d on axis %d", sc, xshape, block, a, want, i)
			}
		}
		return q, nil
	}
	if len(sc) != 1 || sc[0] != q.d {
		return q, fmt.Errorf("scale has shape %v; per-axis quantization along axis %d of X %v needs %d values", sc, a, xshape, q.d)
	}
	return q, nil
}

func (q quantIndex) at(i int) int {
	switch {
	case q.perTensor:
		return 0
	case q.block == 0:
		return (i / q.inner) % q.d
	}
	o, j, k := i/(q.d*q.inner), (i/q.inner)%q.d, i%q.inner
	return (o*q.nb+j/q.block)*q.inner + k
}

// zeroPoints returns zp's values, or zeros shaped like scale when absent.
func zeroPoints(zp, scale *tensor) ([]int64, error) {
	if zp == nil {
		return make([]int64, scale.size()), nil
	}
	if zp.isFloat() {
		return nil, fmt.Errorf("zero point is %s, want an integer tensor", zp.dt)
	}
	if numel(zp.shape) != numel(scale.shape) {
		return nil, fmt.Errorf("zero point has shape %v but scale has %v", zp.shape, scale.shape)
	}
	return zp.i, nil
}

// quantize is saturate(round_half_even(v / scale) + zp) in float32, as
// ONNX Runtime computes it.
func quantize(v, scale float32, zp, lo, hi int64) int64 {
	r := math.RoundToEven(float64(v / scale))
	if math.IsNaN(r) {
		return zp
	}
	r += float64(zp)
	return int64(math.Max(float64(lo), math.Min(float64(hi), r)))
}

func runQuantizeLinear(x *exec, op *canon.QuantizeLinear) error {
	in, scale, zpT := x.in(0), x.in(1), x.in(2)
	if err := needFloat(scale, "scale"); err != nil {
		return err
	}
	dt := op.OutputDType
	if zpT != nil {
		dt = zpT.dt
	}
	if dt == canon.Undefined {
		dt = canon.Uint8
	}
	if !canon.QuantizedDType(dt) {
		return fmt.Errorf("output type %s is not i8, u8, i16 or u16", dt)
	}
	q, err := newQuantIndex(in.shape, scale, op.Axis, op.BlockSize)
	if err != nil {
		return err
	}
	zp, err := zeroPoints(zpT, scale)
	if err != nil {
		return err
	}
	lo, hi := canon.QuantRange(dt)
	out := x.newI(dt, in.shape)
	for i := range out.i {
		var v float32
		if in.isFloat() {
			v = in.f[i]
		} else {
			v = float32(in.i[i])
		}
		k := q.at(i)
		out.i[i] = quantize(v, scale.f[k], zp[k], lo, hi)
	}
	x.set(0, out)
	return nil
}

func runDequantizeLinear(x *exec, op *canon.DequantizeLinear) error {
	in, scale, zpT := x.in(0), x.in(1), x.in(2)
	if err := needFloat(scale, "scale"); err != nil {
		return err
	}
	if in.isFloat() {
		return fmt.Errorf("X is %s, want an integer tensor", in.dt)
	}
	q, err := newQuantIndex(in.shape, scale, op.Axis, op.BlockSize)
	if err != nil {
		return err
	}
	zp, err := zeroPoints(zpT, scale)
	if err != nil {
		return err
	}
	out := x.newF(in.shape)
	for i, v := range in.i {
		k := q.at(i)
		out.f[i] = float32(int32(v-zp[k])) * scale.f[k]
	}
	x.set(0, out)
	return nil
}

// runDynamicQuantizeLinear follows ONNX Runtime: the range always holds 0,
// a zero range gives scale 1, and the zero point is rounded half to even
// after clamping to [0, 255].
func runDynamicQuantizeLinear(x *exec) error {
	in := x.in(0)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	var lo, hi float32
	for _, v := range in.f {
		if math.IsNaN(float64(v)) {
			return fmt.Errorf("X holds NaN: its quantization range is undefined")
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	scale := float32(1)
	if hi != lo {
		scale = (hi - lo) / 255
	}
	zpf := float32(0) - lo/scale
	zp := int64(math.RoundToEven(float64(max(0, min(255, zpf)))))
	y := x.newI(canon.Uint8, in.shape)
	for i, v := range in.f {
		y.i[i] = quantize(v, scale, zp, 0, 255)
	}
	s := x.newF([]int{})
	s.f[0] = scale
	z := x.newI(canon.Uint8, []int{})
	z.i[0] = zp
	x.set(0, y)
	x.set(1, s)
	x.set(2, z)
	return nil
}

// intConv is an integer convolution of in (N, C, spatial...) with w (M,
// C/group, kernel...): acc[n, m, p] = Σ (x - xzp)(w - wzp[m]), exact.
func intConv(x *exec, op *canon.Conv, in, w *tensor, xzp int64, wzp []int64) (acc []int64, shape []int, err error) {
	if in.isFloat() || w.isFloat() {
		return nil, nil, fmt.Errorf("X (%s) and W (%s) must be integer tensors", in.dt, w.dt)
	}
	if len(w.shape) != len(in.shape) {
		return nil, nil, fmt.Errorf("W has shape %v, X has shape %v: want the same rank", w.shape, in.shape)
	}
	g, err := newGeom3(in.shape, toI64(w.shape[2:]), op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd)
	if err != nil {
		return nil, nil, err
	}
	if err := g.convOut(); err != nil {
		return nil, nil, err
	}
	groups := int(op.Group)
	n, c, m := in.shape[0], in.shape[1], w.shape[0]
	if groups < 1 || c%groups != 0 || m%groups != 0 || w.shape[1]*groups != c {
		return nil, nil, fmt.Errorf("X has %d channels and W shape %v: does not fit group %d", c, w.shape, groups)
	}
	if len(wzp) != 1 && len(wzp) != m {
		return nil, nil, fmt.Errorf("W zero point has %d values, want 1 or %d", len(wzp), m)
	}
	cg, mg := c/groups, m/groups
	K, P, inPlane := g.kernelSize(), g.outSize(), g.inSize()
	// src[p*K+k] is the input plane offset kernel tap k meets at output
	// position p, or -1 in the padding.
	src := make([]int32, checkedNumel([]int{P, K}, 4))
	for p := range P {
		oz, oy, ox := p/(g.out[1]*g.out[2]), (p/g.out[2])%g.out[1], p%g.out[2]
		for k := range K {
			kz, ky, kx := k/(g.k[1]*g.k[2]), (k/g.k[2])%g.k[1], k%g.k[2]
			iz := oz*g.s[0] - g.pb[0] + kz*g.d[0]
			iy := oy*g.s[1] - g.pb[1] + ky*g.d[1]
			ix := ox*g.s[2] - g.pb[2] + kx*g.d[2]
			if iz < 0 || iz >= g.in[0] || iy < 0 || iy >= g.in[1] || ix < 0 || ix >= g.in[2] {
				src[p*K+k] = -1
			} else {
				src[p*K+k] = int32((iz*g.in[1]+iy)*g.in[2] + ix)
			}
		}
	}
	shape = g.outShape(in.shape, n, m)
	acc = make([]int64, checkedNumel(shape, 8))
	for b := range n {
		for oc := range m {
			grp := oc / mg
			zw := wzp[0]
			if len(wzp) > 1 {
				zw = wzp[oc]
			}
			wk := w.i[oc*cg*K : (oc+1)*cg*K]
			out := acc[(b*m+oc)*P : (b*m+oc+1)*P]
			for ci := range cg {
				plane := in.i[(b*c+grp*cg+ci)*inPlane:]
				wc := wk[ci*K : (ci+1)*K]
				for p := range P {
					var s int64
					for k, off := range src[p*K : (p+1)*K] {
						if off >= 0 {
							s += (plane[off] - xzp) * (wc[k] - zw)
						}
					}
					out[p] += s
				}
			}
		}
	}
	return acc, shape, nil
}

// scalarInt is the single value of a scalar or one-element integer input.
func scalarInt(t *tensor, what string) (int64, error) {
	if t == nil {
		return 0, nil
	}
	if t.isFloat() || t.size() != 1 {
		return 0, fmt.Errorf("%s has shape %v and type %s: want one integer", what, t.shape, t.dt)
	}
	return t.i[0], nil
}

// scalarFloat is the single value of a scalar or one-element float input.
func scalarFloat(t *tensor, what string) (float32, error) {
	if !t.isFloat() || t.size() != 1 {
		return 0, fmt.Errorf("%s has shape %v and type %s: want one floating-point value", what, t.shape, t.dt)
	}
	return t.f[0], nil
}

// intsOrZero is t's values, or a single 0 when t is absent.
func intsOrZero(t *tensor, what string) ([]int64, error) {
	if t == nil {
		return []int64{0}, nil
	}
	if t.isFloat() {
		return nil, fmt.Errorf("%s is %s, want an integer tensor", what, t.dt)
	}
	return t.i, nil
}

func wrapInt32(v []int64) {
	for i := range v {
		v[i] = int64(int32(v[i]))
	}
}

func runConvInteger(x *exec, op *canon.ConvInteger) error {
	xzp, err := scalarInt(x.in(2), "x_zero_point")
	if err != nil {
		return err
	}
	wzp, err := intsOrZero(x.in(3), "w_zero_point")
	if err != nil {
		return err
	}
	acc, shape, err := intConv(x, op.Conv(), x.in(0), x.in(1), xzp, wzp)
	if err != nil {
		return err
	}
	wrapInt32(acc)
	x.set(0, &tensor{dt: canon.Int32, shape: shape, i: acc})
	return nil
}

func runQLinearConv(x *exec, op *canon.QLinearConv) error {
	xs, err := scalarFloat(x.in(1), "x_scale")
	if err != nil {
		return err
	}
	xzp, err := scalarInt(x.in(2), "x_zero_point")
	if err != nil {
		return err
	}
	ws, wzpT := x.in(4), x.in(5)
	if err := needFloat(ws, "w_scale"); err != nil {
		return err
	}
	wzp, err := intsOrZero(wzpT, "w_zero_point")
	if err != nil {
		return err
	}
	ys, err := scalarFloat(x.in(6), "y_scale")
	if err != nil {
		return err
	}
	yzpT := x.in(7)
	if yzpT == nil {
		return fmt.Errorf("y_zero_point is required: it gives the output type")
	}
	yzp, err := scalarInt(yzpT, "y_zero_point")
	if err != nil {
		return err
	}
	acc, shape, err := intConv(x, op.Conv(), x.in(0), x.in(3), xzp, wzp)
	if err != nil {
		return err
	}
	m := shape[1]
	if n := ws.size(); n != 1 && n != m {
		return fmt.Errorf("w_scale has %d values, want 1 or %d", n, m)
	}
	var bias []int64
	if b := x.in(8); b != nil {
		if b.isFloat() || b.size() != m {
			return fmt.Errorf("bias has shape %v and type %s, want %d int32 values", b.shape, b.dt, m)
		}
		bias = b.i
	}
	lo, hi := canon.QuantRange(yzpT.dt)
	P := numel(shape[2:])
	y := x.newI(yzpT.dt, shape)
	for i, a := range acc {
		oc := (i / P) % m
		if bias != nil {
			a += bias[oc]
		}
		wsv := ws.f[0]
		if ws.size() > 1 {
			wsv = ws.f[oc]
		}
		mult := xs * wsv / ys
		y.i[i] = requantize(int32(a), mult, yzp, lo, hi)
	}
	x.set(0, y)
	return nil
}

// requantize is saturate(round_half_even(float32(acc) · mult) + zp).
func requantize(acc int32, mult float32, zp, lo, hi int64) int64 {
	r := math.RoundToEven(float64(float32(acc) * mult))
	return int64(math.Max(float64(lo), math.Min(float64(hi), r+float64(zp))))
}

// intMatMul is Σ (a - azp[row]) (b - bzp[col]) over NumPy-broadcast
// batches, exact; it returns the products and the output shape.
func intMatMul(a, b *tensor, azp, bzp []int64) ([]int64, []int, int, int, error) {
	if a.isFloat() || b.isFloat() {
		return nil, nil, 0, 0, fmt.Errorf("A (%s) and B (%s) must be integer tensors", a.dt, b.dt)
	}
	if len(a.shape) == 0 || len(b.shape) == 0 {
		return nil, nil, 0, 0, fmt.Errorf("operands must have rank >= 1, have %v and %v", a.shape, b.shape)
	}
	as, bs := a.shape, b.shape
	if len(as) == 1 {
		as = []int{1, as[0]}
	}
	if len(bs) == 1 {
		bs = []int{bs[0], 1}
	}
	m, k := as[len(as)-2], as[len(as)-1]
	k2, n := bs[len(bs)-2], bs[len(bs)-1]
	if k != k2 {
		return nil, nil, 0, 0, fmt.Errorf("shapes %v and %v: inner dimensions %d and %d differ", a.shape, b.shape, k, k2)
	}
	if len(azp) != 1 && len(azp) != m {
		return nil, nil, 0, 0, fmt.Errorf("A's zero point has %d values, want 1 or %d (one per row)", len(azp), m)
	}
	if len(bzp) != 1 && len(bzp) != n {
		return nil, nil, 0, 0, fmt.Errorf("B's zero point has %d values, want 1 or %d (one per column)", len(bzp), n)
	}
	batch, err := broadcastShape(as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		return nil, nil, 0, 0, err
	}
	var final []int
	final = append(final, batch...)
	if len(a.shape) > 1 {
		final = append(final, m)
	}
	if len(b.shape) > 1 {
		final = append(final, n)
	}
	nb := numel(batch)
	y := make([]int64, checkedNumel(append(append([]int{}, batch...), m, n), 8))
	if len(y) == 0 {
		return y, final, m, n, nil
	}
	offA, offB := []int{0}, []int{0}
	if len(batch) > 0 {
		offA, offB = offA[:0], offB[:0]
		p := newBcast(batch, as[:len(as)-2], bs[:len(bs)-2])
		last := len(p.dims) - 1
		rl, sa, sb := p.dims[last], p.sa[last], p.sb[last]
		p.rows(func(_, oa, ob int) {
			for i := 0; i < rl; i++ {
				offA = append(offA, (oa+i*sa)*m*k)
				offB = append(offB, (ob+i*sb)*k*n)
			}
		})
	}
	at := func(v []int64, i int) int64 {
		if len(v) == 1 {
			return v[0]
		}
		return v[i]
	}
	for bi := range nb {
		av, bv, yv := a.i[offA[bi]:], b.i[offB[bi]:], y[bi*m*n:]
		for i := 0; i < m; i++ {
			za := at(azp, i)
			for j := 0; j < n; j++ {
				zb := at(bzp, j)
				var s int64
				for l := 0; l < k; l++ {
					s += (av[i*k+l] - za) * (bv[l*n+j] - zb)
				}
				yv[i*n+j] = s
			}
		}
	}
	return y, final, m, n, nil
}

func runMatMulInteger(x *exec) error {
	azp, err := intsOrZero(x.in(2), "a_zero_point")
	if err != nil {
		return err
	}
	bzp, err := intsOrZero(x.in(3), "b_zero_point")
	if err != nil {
		return err
	}
	y, shape, _, _, err := intMatMul(x.in(0), x.in(1), azp, bzp)
	if err != nil {
		return err
	}
	wrapInt32(y)
	x.set(0, &tensor{dt: canon.Int32, shape: shape, i: y})
	return nil
}

func runQLinearMatMul(x *exec) error {
	as, bs := x.in(1), x.in(4)
	if err := firstError(needFloat(as, "a_scale"), needFloat(bs, "b_scale")); err != nil {
		return err
	}
	azp, err := intsOrZero(x.in(2), "a_zero_point")
	if err != nil {
		return err
	}
	bzp, err := intsOrZero(x.in(5), "b_zero_point")
	if err != nil {
		return err
	}
	ys, err := scalarFloat(x.in(6), "y_scale")
	if err != nil {
		return err
	}
	yzpT := x.in(7)
	if yzpT == nil {
		return fmt.Errorf("y_zero_point is required: it gives the output type")
	}
	yzp, err := scalarInt(yzpT, "y_zero_point")
	if err != nil {
		return err
	}
	acc, shape, m, n, err := intMatMul(x.in(0), x.in(3), azp, bzp)
	if err != nil {
		return err
	}
	if as.size() != 1 && as.size() != m {
		return fmt.Errorf("a_scale has %d values, want 1 or %d", as.size(), m)
	}
	if bs.size() != 1 && bs.size() != n {
		return fmt.Errorf("b_scale has %d values, want 1 or %d", bs.size(), n)
	}
	lo, hi := canon.QuantRange(yzpT.dt)
	y := x.newI(yzpT.dt, shape)
	for i, a := range acc {
		r, c := (i/n)%m, i%n
		av, bv := as.f[0], bs.f[0]
		if as.size() > 1 {
			av = as.f[r]
		}
		if bs.size() > 1 {
			bv = bs.f[c]
		}
		y.i[i] = requantize(int32(a), av*bv/ys, yzp, lo, hi)
	}
	x.set(0, y)
	return nil
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
