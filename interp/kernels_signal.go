package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The signal kernels: DFT, STFT and the window generators, all computed in
// float64 (transforms as direct sums with exact twiddle indices (j·k mod
// n), which is what the float32 results of an FFT approximate).

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"DFT":            computesF64(withOp(runDFT)),
		"STFT":           computesF64(withOp(runSTFT)),
		"HannWindow":     computesF64(runWindow),
		"HammingWindow":  computesF64(runWindow),
		"BlackmanWindow": computesF64(runWindow),
	})
}

// maxDFTWork bounds the multiply-adds of one transform node: the direct
// sum is quadratic in its length.
const maxDFTWork = 1 << 34

// twiddles are cos and sin of 2πk/n for k < n.
func twiddles(n int) (cos, sin []float64) {
	cos, sin = make([]float64, n), make([]float64, n)
	for k := range n {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		cos[k], sin[k] = c, s
	}
	return cos, sin
}

// scalarInt reads input k as one integer.
func (x *exec) scalarInt(k int, what string) (int64, error) {
	t := x.in(k)
	if t.isFloating() || t.size() != 1 {
		return 0, fmt.Errorf("%s is %s%v, want one integer", what, t.dt, t.shape)
	}
	return t.i[0], nil
}

func runDFT(x *exec, op *canon.DFT) error {
	in := x.in(0)
	if err := needFloating(in, "input X"); err != nil {
		return err
	}
	r := len(in.shape)
	if r < 2 || (in.shape[r-1] != 1 && in.shape[r-1] != 2) {
		return fmt.Errorf("input X has shape %v: want (..., 1) for a real or (..., 2) for a complex signal", in.shape)
	}
	axis, length := op.Axis, op.Length
	if x.in(2) != nil {
		v, err := x.scalarInt(2, "Axis input")
		if err != nil {
			return err
		}
		axis = v
	}
	if x.in(1) != nil {
		v, err := x.scalarInt(1, "Length input")
		if err != nil {
			return err
		}
		if v < 1 {
			return fmt.Errorf("Length input is %d, want a positive length", v)
		}
		length = v
	}
	given := axis
	if axis < 0 {
		axis += int64(r)
	}
	if axis < 0 || axis >= int64(r-1) {
		return fmt.Errorf("axis %d is not a signal axis of X %v (the last axis holds the real and imaginary parts)", given, in.shape)
	}
	a, comps := int(axis), in.shape[r-1]
	m := in.shape[a]
	n64, size64 := canon.DFTSizes(op, int64(m), length)
	if n64 < 1 || n64 > 1<<30 {
		return fmt.Errorf("the transform along axis %d of X %v would have length %d", a, in.shape, n64)
	}
	n, size := int(n64), int(size64)
	outer, inner := 1, 1
	for _, d := range in.shape[:a] {
		outer *= d
	}
	for _, d := range in.shape[a+1 : r-1] {
		inner *= d
	}
	if w := float64(outer) * float64(inner) * float64(n) * float64(size); w > maxDFTWork {
		return fmt.Errorf("a direct transform of length %d over %d signals is %.3g operations, more than the interpreter's %d", n, outer*inner, w, int64(maxDFTWork))
	}
	outComps := 2
	if op.Inverse && op.Onesided {
		outComps = 1
	}
	shape := append([]int(nil), in.shape...)
	shape[a], shape[r-1] = size, outComps
	out := x.newFloatLike(in, shape)
	cos, sin := twiddles(n)
	re, im := make([]float64, n), make([]float64, n)
	for o := range outer {
		for i := range inner {
			// Gather the signal (cut or padded with zeros).
			clear(re)
			clear(im)
			for j := range min(m, n) {
				p := ((o*m+j)*inner + i) * comps
				re[j] = in.fl(p)
				if comps == 2 {
					im[j] = in.fl(p + 1)
				}
			}
			put := func(k int, vr, vi float64) {
				p := ((o*size+k)*inner + i) * outComps
				out.setFl(p, vr)
				if outComps == 2 {
					out.setFl(p+1, vi)
				}
			}
			switch {
			case op.Inverse && op.Onesided:
				irfftLine(re, im, n, cos, sin, put)
			default:
				sign := -1.0
				scale := 1.0
				if op.Inverse {
					sign, scale = 1, 1/float64(n)
				}
				for k := range size {
					var sr, si float64
					for j := range min(m, n) {
						t := (j * k) % n
						c, s := cos[t], sign*sin[t]
						sr += re[j]*c - im[j]*s
						si += re[j]*s + im[j]*c
					}
					put(k, sr*scale, si*scale)
				}
			}
		}
	}
	x.set(0, out)
	return nil
}

// irfftLine is the real inverse of a one-sided spectrum re+i·im (its first
// n/2+1 entries are used; the rest of the spectrum is their conjugate
// mirror): y[t] = (X0 + 2 Σ Re(X[k] e^{2πikt/n}) + X[n/2](-1)^t) / n.
func irfftLine(re, im []float64, n int, cos, sin []float64, put func(int, float64, float64)) {
	half := n / 2
	for t := range n {
		sum := re[0]
		for k := 1; k <= half; k++ {
			if k < len(re) && (re[k] != 0 || im[k] != 0) {
				w := (k * t) % n
				v := re[k]*cos[w] - im[k]*sin[w]
				if 2*k != n {
					v *= 2
				}
				sum += v
			}
		}
		put(t, sum/float64(n), 0)
	}
}

func runSTFT(x *exec, op *canon.STFT) error {
	sig := x.in(0)
	if err := needFloating(sig, "Signal"); err != nil {
		return err
	}
	if len(sig.shape) != 3 || (sig.shape[2] != 1 && sig.shape[2] != 2) {
		return fmt.Errorf("Signal has shape %v, want (batch, length, 1 or 2)", sig.shape)
	}
	if op.Onesided && sig.shape[2] == 2 {
		return fmt.Errorf("a one-sided STFT takes a real signal, not %v", sig.shape)
	}
	step, err := x.scalarInt(1, "FrameStep")
	if err != nil {
		return err
	}
	win := x.in(2)
	var frame int64
	switch {
	case x.in(3) != nil:
		if frame, err = x.scalarInt(3, "FrameLength"); err != nil {
			return err
		}
		if win != nil && (len(win.shape) != 1 || int64(win.shape[0]) != frame) {
			return fmt.Errorf("Window has shape %v but FrameLength is %d", win.shape, frame)
		}
	case win != nil:
		if len(win.shape) != 1 {
			return fmt.Errorf("Window has shape %v, want a vector", win.shape)
		}
		frame = int64(win.shape[0])
	default:
		return fmt.Errorf("neither a Window nor a FrameLength is given")
	}
	if win != nil {
		if err := needFloating(win, "Window"); err != nil {
			return err
		}
	}
	batch, length, comps := sig.shape[0], sig.shape[1], sig.shape[2]
	if step < 1 || frame < 1 || frame > int64(length) {
		return fmt.Errorf("FrameStep %d and FrameLength %d do not frame a signal of length %d", step, frame, length)
	}
	f := int(frame)
	frames := int((int64(length)-frame)/step) + 1
	bins := f
	if op.Onesided {
		bins = f/2 + 1
	}
	if w := float64(batch) * float64(frames) * float64(f) * float64(bins); w > maxDFTWork {
		return fmt.Errorf("a direct STFT of %d frames of %d is %.3g operations, more than the interpreter's %d", frames, f, w, int64(maxDFTWork))
	}
	out := x.newFloatLike(sig, []int{batch, frames, bins, 2})
	cos, sin := twiddles(f)
	re, im := make([]float64, f), make([]float64, f)
	for b := range batch {
		for fr := range frames {
			start := fr * int(step)
			for t := range f {
				p := (b*length + start + t) * comps
				w := 1.0
				if win != nil {
					w = win.fl(t)
				}
				re[t] = sig.fl(p) * w
				im[t] = 0
				if comps == 2 {
					im[t] = sig.fl(p+1) * w
				}
			}
			for k := range bins {
				var sr, si float64
				for t := range f {
					j := (t * k) % f
					sr += re[t]*cos[j] + im[t]*sin[j]
					si += im[t]*cos[j] - re[t]*sin[j]
				}
				p := ((b*frames+fr)*bins + k) * 2
				out.setFl(p, sr)
				out.setFl(p+1, si)
			}
		}
	}
	x.set(0, out)
	return nil
}

// WindowValues computes a window op's samples in float64.
func WindowValues(op canon.Op, size int) []float64 {
	a0, a1, a2 := canon.WindowCoefficients(op)
	n := float64(size)
	if !canon.WindowPeriodic(op) {
		n--
	}
	out := make([]float64, size)
	for k := range out {
		if n == 0 {
			out[k] = 1
			continue
		}
		t := 2 * math.Pi * float64(k) / n
		out[k] = a0 - a1*math.Cos(t) + a2*math.Cos(2*t)
	}
	return out
}

func runWindow(op canon.Op) kernel {
	dt := canon.WindowDType(op)
	return func(x *exec) error {
		size, err := x.scalarInt(0, "Size")
		if err != nil {
			return err
		}
		if size < 0 || size > 1<<28 {
			return fmt.Errorf("window size %d is out of range", size)
		}
		var out *tensor
		switch {
		case dt == canon.Float64:
			out = x.newD([]int{int(size)})
		case dt.IsFloat():
			out = x.newF([]int{int(size)})
			out.dt = dt
		default:
			out = x.newI(dt, []int{int(size)})
		}
		for k, v := range WindowValues(op, int(size)) {
			out.setNum(k, v)
		}
		x.set(0, out)
		return nil
	}
}

func init() {
	optable.Add(&kernels, map[string]kernelEntry{"MelWeightMatrix": computesF64(withOp(runMelWeightMatrix))})
}

// runMelWeightMatrix follows ONNX's definition step by step: the mel
// edges of the float32 hertz bounds and their step in float32, the rest
// in float64.
func runMelWeightMatrix(x *exec, op *canon.MelWeightMatrix) error {
	var ints [3]int64
	for i, what := range []string{"NumMelBins", "DFTLength", "SampleRate"} {
		v, err := x.scalarInt(i, what)
		if err != nil {
			return err
		}
		ints[i] = v
	}
	bins, dft, rate := ints[0], ints[1], ints[2]
	var hz [2]float64
	for i := range hz {
		t := x.in(3 + i)
		if !t.isFloating() || t.size() != 1 {
			return fmt.Errorf("the hertz bounds must be float scalars, got %s%v", t.dt, t.shape)
		}
		hz[i] = t.fl(0)
	}
	if bins < 1 || bins > 1<<16 || dft < 1 || dft > 1<<24 || rate < 1 {
		return fmt.Errorf("num_mel_bins %d, dft_length %d and sample_rate %d must be positive and moderate", bins, dft, rate)
	}
	mel := func(f float64) float64 {
		return float64(float32(2595) * float32(math.Log10(float64(float32(1)+float32(f)/700))))
	}
	lo, hi := mel(hz[0]), mel(hz[1])
	step := float64((float32(hi) - float32(lo)) / float32(bins+2))
	edges := make([]int, bins+2)
	for i := range edges {
		f := 700 * (math.Pow(10, (float64(i)*step+lo)/2595) - 1)
		edges[i] = int(math.Floor(float64(dft+1) * f / float64(rate)))
	}
	rows := int(dft/2 + 1)
	vals := make([]float64, rows*int(bins))
	set := func(j, i int, v float64) error {
		if j < 0 || j >= rows {
			return fmt.Errorf("mel edge bin %d is outside the %d spectrum bins (check the hertz bounds against sample_rate)", j, rows)
		}
		vals[j*int(bins)+i] = v
		return nil
	}
	for i := range int(bins) {
		l, c, h := edges[i], edges[i+1], edges[i+2]
		if c == l {
			if err := set(c, i, 1); err != nil {
				return err
			}
		} else {
			for j := l; j <= c; j++ {
				if err := set(j, i, float64(j-l)/float64(c-l)); err != nil {
					return err
				}
			}
		}
		for j := c; j < h; j++ {
			if err := set(j, i, float64(h-j)/float64(h-c)); err != nil {
				return err
			}
		}
	}
	var out *tensor
	shape := []int{rows, int(bins)}
	switch {
	case op.DType == canon.Float64:
		out = x.newD(shape)
	case op.DType.IsFloat():
		out = x.newF(shape)
		out.dt = op.DType
	default:
		out = x.newI(op.DType, shape)
	}
	for k, v := range vals {
		out.setNum(k, v)
	}
	x.set(0, out)
	return nil
}
