package torchscript

import (
	"encoding/binary"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// torch.fft, torch.stft and torch's window functions. Transforms map onto
// DFT one axis at a time (complex values as (real, imaginary) pairs, see
// ops_signal_complex.go), with the norm mode's scale as one Mul per axis;
// windows of a length known at import are constants computed here.

func init() {
	dft := []string{"DFT", "Unsqueeze", "Squeeze", "Mul"}
	fft := func(kind fftKind, multi bool) opEntry { return entry(opFFT(kind, multi), dft...) }
	optable.Add(&opTable, map[string]opEntry{
		"torch.fft_fft":    fft(fftC2C, false),
		"torch.fft_ifft":   fft(fftC2CInverse, false),
		"torch.fft_rfft":   fft(fftR2C, false),
		"torch.fft_irfft":  fft(fftC2R, false),
		"torch.fft_fft2":   fft(fftC2C, true),
		"torch.fft_fftn":   fft(fftC2C, true),
		"torch.fft_ifft2":  fft(fftC2CInverse, true),
		"torch.fft_ifftn":  fft(fftC2CInverse, true),
		"torch.fft_rfft2":  fft(fftR2C, true),
		"torch.fft_rfftn":  fft(fftR2C, true),
		"torch.fft_irfft2": fft(fftC2R, true),
		"torch.fft_irfftn": fft(fftC2R, true),
		"torch.fft_hfft":   fft(fftHermitian, false),
		"torch.fft_ihfft":  fft(fftIHermitian, false),
		"torch.stft":       entry(opSTFT, "STFT", "Unsqueeze", "Squeeze", "Transpose", "Pad", "Mul"),
		"torch.istft":      entry(opISTFT, "DFT", "Unsqueeze", "Transpose", "Mul", "Reshape", "ConvTranspose", "Slice", "Div", "Squeeze"),
		"torch.hann_window": entry(opWindow(func(n, N float64, _ []float64) float64 {
			return 0.5 - 0.5*math.Cos(2*math.Pi*n/N)
		})),
		"torch.hamming_window": entry(opWindow(func(n, N float64, p []float64) float64 {
			return p[0] - p[1]*math.Cos(2*math.Pi*n/N)
		}, "alpha=0.54", "beta=0.46")),
		"torch.blackman_window": entry(opWindow(func(n, N float64, _ []float64) float64 {
			return 0.42 - 0.5*math.Cos(2*math.Pi*n/N) + 0.08*math.Cos(4*math.Pi*n/N)
		})),
		"torch.bartlett_window": entry(opWindow(func(n, N float64, _ []float64) float64 {
			if n <= N/2 {
				return 2 * n / N
			}
			return 2 - 2*n/N
		})),
		"torch.kaiser_window": entry(opWindow(func(n, N float64, p []float64) float64 {
			a := N / 2
			r := (n - a) / a
			return besselI0(p[0]*math.Sqrt(math.Abs(1-r*r))) / besselI0(p[0])
		}, "beta=12.0")),
	})
	for name := range opTable {
		if len(name) > 10 && name[:10] == "torch.fft_" {
			complexReaders[name] = true
		}
	}
}

type fftKind uint8

const (
	fftC2C        fftKind = iota // fft: forward, complex (or real) input
	fftC2CInverse                // ifft
	fftR2C                       // rfft: real input, one-sided output
	fftC2R                       // irfft: one-sided input, real output
	fftHermitian                 // hfft: irfft of the conjugate, scaled as a forward transform
	fftIHermitian                // ihfft: conjugate of rfft, scaled as an inverse transform
)

// opFFT reads fft(input, n=None, dim=-1, norm=None) and the 2-D / N-D
// forms (input, s=None, dim=None or [-2, -1], norm=None).
func opFFT(called fftKind, multi bool) opHandler {
	return func(c *opCall) (value, error) {
		kind := called
		if multi {
			dflt := "dim=None"
			if c.name[len(c.name)-1] == '2' {
				dflt = "dim=[-2;-1]"
			}
			if err := c.bind("self", "s=None", dflt, "norm=None"); err != nil {
				return nil, err
			}
		} else if err := c.bind("self", "n=None", "dim=-1", "norm=None"); err != nil {
			return nil, err
		}
		x, err := c.tensor(0)
		if err != nil {
			return nil, err
		}
		b := c.b()
		complexIn := b.isComplex(x)
		hermitian := kind == fftHermitian || kind == fftIHermitian
		switch kind {
		case fftHermitian:
			kind = fftC2R
		case fftIHermitian:
			kind = fftR2C
		}
		if kind == fftR2C && complexIn {
			return nil, c.errf("takes a real tensor (torch refuses complex input too)")
		}
		vi := b.info(x)
		if !vi.DType.IsFloat() {
			return nil, c.errf("takes a floating-point tensor, got %s (cast it to float first)", vi.DType)
		}
		if !vi.RankKnown {
			return nil, c.errf("the rank of the input is not known at import; give the input shape")
		}
		rank := len(vi.Shape)
		if complexIn {
			rank--
		}
		norm := "backward"
		if !c.isNone(3) {
			s, ok := c.bound[3].(string)
			if !ok || (s != "backward" && s != "ortho" && s != "forward") {
				return nil, c.errf("norm must be \"backward\", \"ortho\" or \"forward\", got %v", c.bound[3])
			}
			norm = s
		}
		if hermitian {
			// hfft is a forward transform and ihfft an inverse one: their
			// norm modes scale as irfft's and rfft's opposite modes do.
			norm = map[string]string{"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
		}
		dims, sizes, err := fftAxes(c, multi, rank)
		if err != nil {
			return nil, err
		}
		rep := x
		if !complexIn {
			if rep, err = b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{-1}}, x); err != nil {
				return nil, err
			}
		}
		if hermitian && complexIn {
			if rep, err = c.conjPairs(rep); err != nil {
				return nil, err
			}
		}
		last := len(dims) - 1
		for k, d := range dims {
			step := kind
			switch {
			case kind == fftR2C && k > 0:
				step = fftC2C // rfftn: one-sided along its last axis (done first), full along the rest
			case kind == fftC2R && k != last:
				step = fftC2CInverse // irfftn: full inverse along the others first, real along the last
			}
			if rep, err = c.dftStep(rep, d, sizes[k], step, norm); err != nil {
				return nil, err
			}
		}
		if kind == fftC2R {
			return b.emit1(c.scope, &canon.Squeeze{Axes: []int64{-1}}, rep)
		}
		if hermitian {
			if rep, err = c.conjPairs(rep); err != nil {
				return nil, err
			}
		}
		return b.markComplex(rep), nil
	}
}

// conjPairs negates the imaginary parts of (real, imaginary) pairs.
func (c *opCall) conjPairs(z *tensorVal) (*tensorVal, error) {
	dt := c.b().info(z).DType
	return c.b().emit1(c.scope, &canon.Binary{Fn: canon.Mul}, z, &tensorVal{konst: floatConst(dt, []int64{2}, []float64{1, -1})})
}

// fftAxes resolves the transformed axes and their lengths (0: the input's
// own) in the order they are transformed: for rfftn the last axis first.
func fftAxes(c *opCall, multi bool, rank int) (dims []int64, sizes []int64, err error) {
	if !multi {
		d, err := c.int(2)
		if err != nil {
			return nil, nil, err
		}
		if d, err = c.axis(d, rank); err != nil {
			return nil, nil, err
		}
		n := int64(0)
		if !c.isNone(1) {
			if n, err = c.int(1); err != nil {
				return nil, nil, err
			}
			if n < 1 {
				return nil, nil, c.errf("n %d must be positive", n)
			}
		}
		return []int64{d}, []int64{n}, nil
	}
	var s []int64
	if !c.isNone(1) {
		if s, err = c.ints(1, 0); err != nil {
			return nil, nil, err
		}
	}
	switch {
	case !c.isNone(2):
		if dims, err = c.ints(2, 0); err != nil {
			return nil, nil, err
		}
	case s != nil:
		for i := rank - len(s); i < rank; i++ {
			dims = append(dims, int64(i))
		}
	default:
		for i := range rank {
			dims = append(dims, int64(i))
		}
	}
	if s != nil && len(s) != len(dims) {
		return nil, nil, c.errf("s has %d sizes for %d dims", len(s), len(dims))
	}
	if len(dims) == 0 {
		return nil, nil, c.errf("transforms no axis")
	}
	seen := map[int64]bool{}
	for i := range dims {
		if dims[i], err = c.axis(dims[i], rank); err != nil {
			return nil, nil, err
		}
		if seen[dims[i]] {
			return nil, nil, c.errf("dims repeat axis %d", dims[i])
		}
		seen[dims[i]] = true
	}
	sizes = make([]int64, len(dims))
	for i := range s {
		if s[i] == -1 {
			continue // -1: no change along that axis
		}
		if s[i] < 1 {
			return nil, nil, c.errf("s[%d] = %d must be positive", i, s[i])
		}
		sizes[i] = s[i]
	}
	// rfftn halves the last axis: it is transformed first.
	if c.name == "torch.fft_rfft2" || c.name == "torch.fft_rfftn" {
		l := len(dims) - 1
		dims = append([]int64{dims[l]}, dims[:l]...)
		sizes = append([]int64{sizes[l]}, sizes[:l]...)
	}
	return dims, sizes, nil
}

// dftStep transforms the pair representation rep along logical axis d to
// length n (0: unchanged) and scales it as norm asks.
func (c *opCall) dftStep(rep *tensorVal, d, n int64, kind fftKind, norm string) (*tensorVal, error) {
	b := c.b()
	op := &canon.DFT{Axis: d, Length: n, Inverse: kind == fftC2CInverse || kind == fftC2R, Onesided: kind == fftR2C || kind == fftC2R}
	vi := b.info(rep)
	m := vi.Shape[d]
	if !m.Known() {
		return nil, c.errf("the length of axis %d is not known at import; give the input shape", d)
	}
	size, _ := canon.DFTSizes(op, m.Size, n)
	if size < 1 {
		return nil, c.errf("the transform along axis %d would have length %d", d, size)
	}
	out, err := b.emit1(c.scope, op, rep)
	if err != nil {
		return nil, err
	}
	// DFT's inverse divides by n: torch's "backward" norm.
	scale := 1.0
	switch {
	case norm == "ortho" && op.Inverse:
		scale = math.Sqrt(float64(size))
	case norm == "ortho":
		scale = 1 / math.Sqrt(float64(size))
	case norm == "forward" && op.Inverse:
		scale = float64(size)
	case norm == "forward":
		scale = 1 / float64(size)
	}
	if scale == 1 {
		return out, nil
	}
	return b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, out, &tensorVal{konst: floatConst(vi.DType, []int64{}, []float64{scale})})
}

// floatConst is a constant of float dtype dt (float32 for the 16-bit
// types, whose Mul then promotes nothing: their graphs compute in float32).
func floatConst(dt canon.DType, shape []int64, v []float64) *canon.Tensor {
	if dt == canon.Float64 {
		data := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(x))
		}
		return &canon.Tensor{DType: canon.Float64, Shape: shape, Data: data}
	}
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return canon.NewFloat32Tensor("", shape, f)
}

// opSTFT reads stft(input, n_fft, hop_length=None, win_length=None,
// window=None, normalized=False, onesided=None, return_complex=None) of a
// real signal (length) or (batch, length); center padding is traced before
// it as a reflect pad. The window (ones when absent) of win_length samples
// is centered in n_fft with zeros, as torch pads it; normalized scales by
// n_fft^-1/2. The output is (batch, bins, frames) complex, or its pairs
// when return_complex is False.
func opSTFT(c *opCall) (value, error) {
	if err := c.bind("self", "n_fft", "hop_length=None", "win_length=None", "window=None", "normalized=False", "onesided=None", "return_complex=None"); err != nil {
		return nil, err
	}
	x, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	b := c.b()
	vi := b.info(x)
	if !vi.DType.IsFloat() {
		return nil, c.errf("takes a floating-point signal, got %s", vi.DType)
	}
	nfft, err := c.int(1)
	if err != nil {
		return nil, err
	}
	hop, win := nfft/4, nfft
	if !c.isNone(2) {
		if hop, err = c.int(2); err != nil {
			return nil, err
		}
	}
	if !c.isNone(3) {
		if win, err = c.int(3); err != nil {
			return nil, err
		}
	}
	if nfft < 1 || hop < 1 || win < 1 || win > nfft {
		return nil, c.errf("n_fft %d, hop_length %d and win_length %d must be positive with win_length <= n_fft", nfft, hop, win)
	}
	normalized, err := c.bool(5)
	if err != nil {
		return nil, err
	}
	onesided := true
	if !c.isNone(6) {
		if onesided, err = c.bool(6); err != nil {
			return nil, err
		}
	}
	returnComplex := false
	if !c.isNone(7) {
		if returnComplex, err = c.bool(7); err != nil {
			return nil, err
		}
	}
	window, err := c.optTensor(4)
	if err != nil {
		return nil, err
	}
	left := (nfft - win) / 2
	if window == nil {
		ones := make([]float64, nfft)
		for i := left; i < left+win; i++ {
			ones[i] = 1
		}
		window = &tensorVal{konst: floatConst(vi.DType, []int64{nfft}, ones)}
	} else {
		wi := b.info(window)
		if s, ok := wi.StaticShape(); !ok || len(s) != 1 || s[0] != win {
			return nil, c.errf("window must be a vector of win_length %d samples", win)
		}
		if wi.DType != vi.DType {
			return nil, c.errf("window is %s but the signal is %s", wi.DType, vi.DType)
		}
		if win < nfft {
			if window, err = b.emit1(c.scope, &canon.Pad{Mode: canon.PadConstant, PadsBegin: []int64{left}, PadsEnd: []int64{nfft - win - left}}, window); err != nil {
				return nil, err
			}
		}
	}
	if !vi.RankKnown || (len(vi.Shape) != 1 && len(vi.Shape) != 2) {
		return nil, c.errf("takes a signal of shape (length) or (batch, length)")
	}
	batched := len(vi.Shape) == 2
	axes := []int64{-1}
	if !batched {
		axes = []int64{0, 2}
	}
	sig, err := b.emit1(c.scope, &canon.Unsqueeze{Axes: axes}, x)
	if err != nil {
		return nil, err
	}
	step := &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{hop})}
	frame := &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{nfft})}
	out, err := b.emit1(c.scope, &canon.STFT{Onesided: onesided}, sig, step, window, frame)
	if err != nil {
		return nil, err
	}
	if out, err = b.emit1(c.scope, &canon.Transpose{Perm: []int64{0, 2, 1, 3}}, out); err != nil {
		return nil, err
	}
	if normalized {
		k := &tensorVal{konst: floatConst(vi.DType, []int64{}, []float64{1 / math.Sqrt(float64(nfft))})}
		if out, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, out, k); err != nil {
			return nil, err
		}
	}
	if !batched {
		if out, err = b.emit1(c.scope, &canon.Squeeze{Axes: []int64{0}}, out); err != nil {
			return nil, err
		}
	}
	if returnComplex {
		return b.markComplex(out), nil
	}
	return out, nil
}

// opISTFT reads istft(input, n_fft, hop_length=None, win_length=None,
// window=None, center=True, normalized=False, onesided=None, length=None,
// return_complex=False) of a one-sided spectrum (batch, bins, frames) or
// (bins, frames): each frame's real inverse transform times the window,
// overlapped and added by a ConvTranspose with a one-hot kernel (stride
// hop_length), then divided by the window's squared overlap-add, a
// constant, and trimmed (n_fft/2 at both ends when centered, or to
// length). As torch does, a window whose envelope is (nearly) zero
// inside the output is refused.
func opISTFT(c *opCall) (value, error) {
	if err := c.bind("self", "n_fft", "hop_length=None", "win_length=None", "window=None", "center=True", "normalized=False",
		"onesided=None", "length=None", "return_complex=False"); err != nil {
		return nil, err
	}
	z, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	b := c.b()
	if !b.isComplex(z) {
		return nil, c.errf("takes a complex spectrum")
	}
	nfft, err := c.int(1)
	if err != nil {
		return nil, err
	}
	hop, win := nfft/4, nfft
	if !c.isNone(2) {
		if hop, err = c.int(2); err != nil {
			return nil, err
		}
	}
	if !c.isNone(3) {
		if win, err = c.int(3); err != nil {
			return nil, err
		}
	}
	if nfft < 1 || hop < 1 || win < 1 || win > nfft || nfft > 1<<16 {
		return nil, c.errf("n_fft %d, hop_length %d and win_length %d must be positive with win_length <= n_fft", nfft, hop, win)
	}
	var flags [3]bool
	for i, k := range []int{5, 6, 9} {
		if flags[i], err = c.bool(k); err != nil {
			return nil, err
		}
	}
	center, normalized, returnComplex := flags[0], flags[1], flags[2]
	if returnComplex {
		return nil, c.errf("return_complex=True (a two-sided complex signal) is not read")
	}
	vi := b.info(z)
	s, ok := vi.StaticShape()
	if !ok || (len(s) != 3 && len(s) != 4) {
		return nil, c.errf("takes a spectrum of static shape (bins, frames) or (batch, bins, frames)")
	}
	bins, frames := s[len(s)-3], s[len(s)-2]
	if !c.isNone(7) {
		onesided, err := c.bool(7)
		if err != nil {
			return nil, err
		}
		if !onesided {
			return nil, c.errf("onesided=False is not read (only the real inverse of a one-sided spectrum)")
		}
	}
	if bins != nfft/2+1 {
		return nil, c.errf("the spectrum has %d bins; a one-sided spectrum of n_fft %d has %d", bins, nfft, nfft/2+1)
	}
	// The window, centered in n_fft, must be known: its envelope divides.
	w := make([]float64, nfft)
	left := (nfft - win) / 2
	if c.isNone(4) {
		for i := left; i < left+win; i++ {
			w[i] = 1
		}
	} else {
		wt, err := c.tensor(4)
		if err != nil {
			return nil, err
		}
		name, err := b.valueName(wt)
		if err != nil {
			return nil, err
		}
		k := b.vals[name].Const
		if k == nil || k.NumElements() != win {
			return nil, c.errf("needs a window of win_length %d samples known at import (its squared overlap-add divides the output)", win)
		}
		v, err := k.Float64s()
		if err != nil {
			return nil, c.errf("window: %v", err)
		}
		copy(w[left:], v)
	}
	full := (frames-1)*hop + nfft
	env := make([]float64, full)
	for t := range frames {
		for j, x := range w {
			env[t*hop+int64(j)] += x * x
		}
	}
	start, end := int64(0), full
	if center {
		start, end = nfft/2, full-nfft/2
	}
	if !c.isNone(8) {
		l, err := c.int(8)
		if err != nil {
			return nil, err
		}
		if l < 0 || start+l > full {
			return nil, c.errf("length %d is longer than the %d samples the frames cover", l, full-start)
		}
		end = start + l
	}
	for i := start; i < end; i++ {
		if math.Abs(env[i]) < 1e-11 {
			return nil, c.errf("the window's squared overlap-add is zero at sample %d (torch refuses this too: nonzero overlap-add constraint)", i-start)
		}
	}
	rep := z
	if len(s) == 3 {
		if rep, err = b.emit1(c.scope, &canon.Unsqueeze{Axes: []int64{0}}, rep); err != nil {
			return nil, err
		}
	}
	// (batch, bins, frames, 2) -> (batch, frames, bins, 2) -> frames of n_fft samples.
	if rep, err = b.emit1(c.scope, &canon.Transpose{Perm: []int64{0, 2, 1, 3}}, rep); err != nil {
		return nil, err
	}
	if rep, err = b.emit1(c.scope, &canon.DFT{Axis: 2, Length: nfft, Inverse: true, Onesided: true}, rep); err != nil {
		return nil, err
	}
	scale := 1.0
	if normalized {
		scale = math.Sqrt(float64(nfft))
	}
	wcol := make([]float64, nfft)
	for j := range w {
		wcol[j] = w[j] * scale
	}
	// (batch, frames, n_fft, 1) times the window, as (batch, n_fft, frames).
	if rep, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, rep, &tensorVal{konst: floatConst(vi.DType, []int64{nfft, 1}, wcol)}); err != nil {
		return nil, err
	}
	if rep, err = b.emit1(c.scope, &canon.Reshape{Shape: []int64{0, frames, nfft}}, rep); err != nil {
		return nil, err
	}
	if rep, err = b.emit1(c.scope, &canon.Transpose{Perm: []int64{0, 2, 1}}, rep); err != nil {
		return nil, err
	}
	eye := make([]float64, nfft*nfft)
	for j := range nfft {
		eye[j*nfft+j] = 1
	}
	kernel := &tensorVal{konst: floatConst(vi.DType, []int64{nfft, 1, nfft}, eye)}
	op := &canon.ConvTranspose{Strides: []int64{hop}, Dilations: []int64{1}, PadsBegin: []int64{0}, PadsEnd: []int64{0}, OutputPadding: []int64{0}, Group: 1}
	if rep, err = b.emit1(c.scope, op, rep, kernel); err != nil {
		return nil, err
	}
	if rep, err = b.emit1(c.scope, &canon.Slice{Starts: []int64{start}, Ends: []int64{end}, Axes: []int64{2}, Steps: []int64{1}}, rep); err != nil {
		return nil, err
	}
	inv := make([]float64, end-start)
	for i := range inv {
		inv[i] = env[start+int64(i)]
	}
	if rep, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Div}, rep, &tensorVal{konst: floatConst(vi.DType, []int64{end - start}, inv)}); err != nil {
		return nil, err
	}
	axes := []int64{1}
	if len(s) == 3 {
		axes = []int64{0, 1}
	}
	return b.emit1(c.scope, &canon.Squeeze{Axes: axes}, rep)
}

// opWindow reads torch's window functions: (window_length, periodic=True,
// [parameters,] *, dtype=None, layout, device, pin_memory) with a length
// known at import. fn(n, N, params) is sample n of the symmetric window of
// N+1 samples; a periodic window of L samples is the first L of the
// symmetric window of L+1, and a window of one sample is 1.
func opWindow(fn func(n, N float64, params []float64) float64, params ...string) opHandler {
	return func(c *opCall) (value, error) {
		schema := append([]string{"window_length", "periodic=True"}, params...)
		schema = append(schema, "dtype=None", "layout=None", "device=None", "pin_memory=None")
		if err := c.bind(schema...); err != nil {
			return nil, err
		}
		length, err := c.int(0)
		if err != nil {
			return nil, err
		}
		if length < 0 || length > 1<<24 {
			return nil, c.errf("window_length %d is out of range", length)
		}
		periodic, err := c.bool(1)
		if err != nil {
			return nil, err
		}
		p := make([]float64, len(params))
		for i := range p {
			if p[i], err = c.float(2 + i); err != nil {
				return nil, err
			}
		}
		dt, err := factoryDType(c, 2+len(params), canon.Float32)
		if err != nil {
			return nil, err
		}
		if dt != canon.Float32 && dt != canon.Float64 {
			return nil, c.errf("dtype %s: windows are read as float32 or float64", dt)
		}
		v := make([]float64, length)
		N := float64(length - 1)
		if periodic {
			N = float64(length)
		}
		for i := range v {
			if length == 1 {
				v[i] = 1
				continue
			}
			v[i] = fn(float64(i), N, p)
		}
		return &tensorVal{konst: floatConst(dt, []int64{length}, v)}, nil
	}
}

// besselI0 is the modified Bessel function of the first kind of order 0,
// by its power series (which converges for every argument).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	q := x * x / 4
	for k := 1; k < 500; k++ {
		term *= q / float64(k*k)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.fft_fftshift":  entry(opFFTShift(false), "Slice", "Concat"),
		"torch.fft_ifftshift": entry(opFFTShift(true), "Slice", "Concat"),
		"torch.fft_fftfreq":   entry(opFFTFreq(false)),
		"torch.fft_rfftfreq":  entry(opFFTFreq(true)),
	})
	complexReaders["torch.fft_fftshift"] = true
	complexReaders["torch.fft_ifftshift"] = true
}

// opFFTShift: fftshift(input, dim=None) rolls each axis (all when None) by
// n/2, moving the zero frequency to the middle; ifftshift rolls by
// -(n/2), undoing it. A complex input's pairs move together.
func opFFTShift(inverse bool) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("input", "dim=None")
		if err != nil {
			return nil, err
		}
		b := c.b()
		complexIn := b.isComplex(x)
		vi := b.info(x)
		s, ok := vi.StaticShape()
		if !ok {
			return nil, c.errf("the shape of the input is not known at import; give the input shape")
		}
		rank := len(s)
		if complexIn {
			rank--
		}
		var dims []int64
		if c.isNone(1) {
			for i := range rank {
				dims = append(dims, int64(i))
			}
		} else if dims, err = c.ints(1, 0); err != nil {
			return nil, err
		}
		out := x
		for _, d := range dims {
			if d, err = c.axis(d, rank); err != nil {
				return nil, err
			}
			n := s[d]
			k := n / 2 // the last k entries come first
			if inverse {
				k = n - n/2
			}
			if k == 0 || k == n {
				continue
			}
			tail, err := b.emit1(c.scope, &canon.Slice{Starts: []int64{n - k}, Ends: []int64{n}, Axes: []int64{d}, Steps: []int64{1}}, out)
			if err != nil {
				return nil, err
			}
			head, err := b.emit1(c.scope, &canon.Slice{Starts: []int64{0}, Ends: []int64{n - k}, Axes: []int64{d}, Steps: []int64{1}}, out)
			if err != nil {
				return nil, err
			}
			if out, err = b.emit1(c.scope, &canon.Concat{Axis: d}, tail, head); err != nil {
				return nil, err
			}
		}
		if complexIn && out != x {
			b.markComplex(out)
		}
		return out, nil
	}
}

// opFFTFreq: fftfreq(n, d=1.0) is the sample frequencies of an n-point
// transform, [0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (d·n); rfftfreq the
// n/2+1 non-negative ones. A constant.
func opFFTFreq(onesided bool) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("n", "d=1.0", "dtype=None", "layout=None", "device=None", "pin_memory=None"); err != nil {
			return nil, err
		}
		n, err := c.int(0)
		if err != nil {
			return nil, err
		}
		d, err := c.float(1)
		if err != nil {
			return nil, err
		}
		if n < 1 || n > 1<<24 || d == 0 || !isFinite(d) {
			return nil, c.errf("n %d must be positive and d %g finite and not 0", n, d)
		}
		dt, err := factoryDType(c, 2, canon.Float32)
		if err != nil {
			return nil, err
		}
		if dt != canon.Float32 && dt != canon.Float64 {
			return nil, c.errf("dtype %s: frequencies are read as float32 or float64", dt)
		}
		count := n
		if onesided {
			count = n/2 + 1
		}
		v := make([]float64, count)
		for i := range v {
			k := int64(i)
			if !onesided && k > (n-1)/2 {
				k -= n
			}
			v[i] = float64(k) / (d * float64(n))
		}
		return &tensorVal{konst: floatConst(dt, []int64{count}, v)}, nil
	}
}
