package canon

// The signal family: DFT (ONNX DFT-17/20, torch.fft.*), STFT (ONNX
// STFT-17, torch.stft) and the window generators HannWindow,
// HammingWindow and BlackmanWindow (ONNX 17). A complex value is a float
// tensor whose last axis holds (real, imaginary); a real signal may be
// given with a last axis of 1.

func init() {
	Register(withReason(&OpDef{
		Kind: "DFT", Summary: "discrete Fourier transform along one axis of a (re, im) or (re) signal; inverse, one-sided, length",
		HalfUnsafe: "long accumulating sums",
		New:        func() Op { return &DFT{Axis: 1} },
		Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.dft(c.n.Op.(*DFT))) },
		Check: func(c *CheckCtx) error {
			if op := c.N.Op.(*DFT); op.Length < 0 {
				return c.Errorf("Length %d must be positive (0: the input's length)", op.Length)
			}
			return nil
		},
		Example: func() Example {
			return Example{Op: &DFT{Axis: 1, Onesided: true}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 6, 3, 1}}}}
		},
	}, signalWithout))
	Register(withReason(&OpDef{
		Kind: "STFT", Summary: "short-time Fourier transform: windowed frames of a (re, im) or (re) signal, each transformed",
		HalfUnsafe: "long accumulating sums",
		New:        func() Op { return &STFT{Onesided: true} },
		Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.stft(c.n.Op.(*STFT))) },
		Example: func() Example {
			return Example{Op: &STFT{Onesided: true}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 20, 1}},
				{DType: Int64, Shape: []int64{}, Const: NewInt64Tensor("", []int64{}, []int64{3})},
				{DType: Float32, Shape: []int64{6}}}}
		},
	}, signalWithout))
	for _, w := range []struct {
		kind, summary string
		new           func(periodic bool, dt DType) Op
	}{
		{"HannWindow", "Hann window 0.5 - 0.5 cos(2πn/N) of a given length (periodic or symmetric)",
			func(p bool, dt DType) Op { return &HannWindow{Periodic: p, DType: dt} }},
		{"HammingWindow", "Hamming window 25/46 - 21/46 cos(2πn/N) of a given length (periodic or symmetric)",
			func(p bool, dt DType) Op { return &HammingWindow{Periodic: p, DType: dt} }},
		{"BlackmanWindow", "Blackman window 0.42 - 0.5 cos(2πn/N) + 0.08 cos(4πn/N) of a given length (periodic or symmetric)",
			func(p bool, dt DType) Op { return &BlackmanWindow{Periodic: p, DType: dt} }},
	} {
		Register(withReason(&OpDef{
			Kind: w.kind, Summary: w.summary,
			New:   func() Op { return w.new(true, Float32) },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.window()) },
			Check: func(c *CheckCtx) error {
				if dt := WindowDType(c.N.Op); dt == Undefined || dt == Bool || dt.Size() == 0 {
					return c.Errorf("output dtype %s is not a number type", dt)
				}
				return nil
			},
			Example: func() Example {
				// A float64 window: its dtype is an attribute, which
				// retyping the example's float32 data does not change.
				return Example{Op: w.new(false, Float64), Inputs: []ExampleInput{
					{DType: Int64, Shape: []int64{}, Const: NewInt64Tensor("", []int64{}, []int64{7})}}}
			},
		}, signalWithout))
	}
}

// DFT transforms X along one axis. X is (..., 1) for a real signal or
// (..., 2) for a complex one; the output is complex (..., 2), except for
// the inverse one-sided transform, whose output is real (..., 1).
//
// Axis indexes X's axes (negative: from the end, so -2 is the last signal
// axis); an Axis input, when given, replaces it (ONNX DFT-20). Length, or
// the Length input, is the transform size n: the signal is cut or padded
// with zeros to n (0: its own length). Onesided keeps the n/2+1
// non-negative frequencies of the forward transform. Inverse divides by n;
// Inverse with Onesided is the inverse of a real signal's one-sided
// spectrum (torch.fft.irfft, numpy.fft.irfft): X holds n/2+1 frequencies
// (cut or padded with zeros), n defaults to 2(m-1) for m given, and the
// imaginary parts of the zero and Nyquist frequencies do not matter.
type DFT struct {
	Axis     int64
	Length   int64
	Inverse  bool
	Onesided bool
}

func (*DFT) Kind() string         { return "DFT" }
func (*DFT) Signature() Signature { return sig(1, inX, param("Length"), param("Axis")) }

// AttrGiven: Length is unset at 0; Axis always has a value (ONNX's
// default), which an Axis input replaces.
func (o *DFT) AttrGiven(slot int) (string, bool) {
	if slot == 1 {
		return "Length", o.Length != 0
	}
	return "Axis", false
}

// DFTSizes are the sizes of one DFT: the input's length m along the axis,
// the transform size n, and the output's length along the axis.
func DFTSizes(op *DFT, m, length int64) (n, out int64) {
	n = length
	switch {
	case n > 0:
	case op.Inverse && op.Onesided:
		n = 2 * (m - 1)
	default:
		n = m
	}
	out = n
	if op.Onesided && !op.Inverse {
		out = n/2 + 1
	}
	return n, out
}

func (c *InferCtx) dft(op *DFT) (ValueInfo, error) {
	x := c.in[0]
	if dt := x.DType; dt != Undefined && !dt.IsFloat() {
		return ValueInfo{}, c.errf("input X is %s: DFT takes floating-point signals", dt)
	}
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	r := len(x.Shape)
	if r < 2 {
		return ValueInfo{}, c.errf("input X has shape %s: want (..., 1) for a real or (..., 2) for a complex signal", fmtShape(x))
	}
	if d := x.Shape[r-1]; d.Known() && d.Size != 1 && d.Size != 2 {
		return ValueInfo{}, c.errf("input X has shape %s: its last axis must be 1 (real) or 2 (real, imaginary)", fmtShape(x))
	}
	last := knownDim(2)
	if op.Inverse && op.Onesided {
		last = knownDim(1)
	}
	axis, length := op.Axis, op.Length
	if c.present(2) {
		k := constAny(c.in[2])
		if k == nil {
			out := unknownDims(r)
			out[r-1] = last
			return shaped(x.DType, out), nil
		}
		v, err := k.Int64s()
		if err != nil || len(v) != 1 {
			return ValueInfo{}, c.errf("Axis input %q must hold one integer", c.n.Inputs[2])
		}
		axis = v[0]
	}
	a, ok := normAxis(axis, r)
	if !ok || a == r-1 {
		return ValueInfo{}, c.errf("axis %d is not a signal axis of X %s (the last axis holds the real and imaginary parts)", axis, fmtShape(x))
	}
	out := cloneDims(x.Shape)
	out[r-1] = last
	if c.present(1) {
		k := constAny(c.in[1])
		if k == nil {
			out[a] = unknownDim
			return shaped(x.DType, out), nil
		}
		v, err := k.Int64s()
		if err != nil || len(v) != 1 || v[0] < 1 {
			return ValueInfo{}, c.errf("Length input %q must hold one positive integer", c.n.Inputs[1])
		}
		length = v[0]
	}
	m := x.Shape[a]
	if !m.Known() && length == 0 {
		out[a] = unknownDim
		return shaped(x.DType, out), nil
	}
	n, size := DFTSizes(op, m.Size, length)
	if n < 1 {
		return ValueInfo{}, c.errf("the transform along axis %d of X %s would have length %d", a, fmtShape(x), n)
	}
	out[a] = knownDim(size)
	return shaped(x.DType, out), nil
}

// STFT splits Signal (batch, length, 1 or 2) into frames of FrameLength
// samples every FrameStep samples, multiplies each by Window (when given)
// and transforms it: the output is (batch, frames, bins, 2) with frames =
// (length - FrameLength) / FrameStep + 1 and bins FrameLength, or
// FrameLength/2+1 when Onesided (real signals only). FrameLength defaults
// to the window's length.
type STFT struct {
	Onesided bool
}

func (*STFT) Kind() string { return "STFT" }
func (*STFT) Signature() Signature {
	return sig(1, InputSpec{Name: "Signal"}, InputSpec{Name: "FrameStep"}, InputSpec{Name: "Window", Optional: true},
		InputSpec{Name: "FrameLength", Optional: true})
}

func (c *InferCtx) stft(op *STFT) (ValueInfo, error) {
	x := c.in[0]
	if dt := x.DType; dt != Undefined && !dt.IsFloat() {
		return ValueInfo{}, c.errf("Signal is %s: STFT takes floating-point signals", dt)
	}
	if err := c.needRank(0, 3, "STFT (batch, length, 1 or 2)"); err != nil {
		return ValueInfo{}, err
	}
	if d := dimAt(x, 2); d.Known() && d.Size != 1 && d.Size != 2 {
		return ValueInfo{}, c.errf("Signal has shape %s: its last axis must be 1 (real) or 2 (real, imaginary)", fmtShape(x))
	}
	if d := dimAt(x, 2); op.Onesided && d.Known() && d.Size == 2 {
		return ValueInfo{}, c.errf("a one-sided STFT takes a real signal, not %s", fmtShape(x))
	}
	scalar := func(i int) (int64, bool, error) {
		k := constAny(c.in[i])
		if k == nil {
			return 0, false, nil
		}
		v, err := k.Int64s()
		if err != nil || len(v) != 1 || v[0] < 1 {
			return 0, false, c.errf("%s %q must hold one positive integer", c.slot(i), c.n.Inputs[i])
		}
		return v[0], true, nil
	}
	step, stepKnown, err := scalar(1)
	if err != nil {
		return ValueInfo{}, err
	}
	frame, frameKnown := int64(0), false
	if c.present(3) {
		if frame, frameKnown, err = scalar(3); err != nil {
			return ValueInfo{}, err
		}
	} else if c.present(2) {
		if d := dimAt(c.in[2], 0); d.Known() {
			frame, frameKnown = d.Size, true
		}
	} else {
		return ValueInfo{}, c.errf("gives neither a Window nor a FrameLength: the frame length is unknown")
	}
	out := []Dim{dimAt(x, 0), unknownDim, unknownDim, knownDim(2)}
	if frameKnown {
		out[2] = knownDim(frame)
		if op.Onesided {
			out[2] = knownDim(frame/2 + 1)
		}
		if l := dimAt(x, 1); l.Known() && stepKnown {
			if l.Size < frame {
				return ValueInfo{}, c.errf("Signal %s is shorter than one frame of %d", fmtShape(x), frame)
			}
			out[1] = knownDim((l.Size-frame)/step + 1)
		}
	}
	return shaped(x.DType, out), nil
}

// HannWindow is the Hann window of Size (a scalar input) samples as
// DType: 0.5 - 0.5 cos(2πk/N) with N = Size when Periodic, Size-1
// otherwise (a symmetric window of one sample is 1).
type HannWindow struct {
	Periodic bool
	DType    DType
}

// HammingWindow is 25/46 - 21/46 cos(2πk/N), N as HannWindow's (ONNX's
// coefficients; torch's hamming_window uses 0.54 and 0.46).
type HammingWindow struct {
	Periodic bool
	DType    DType
}

// BlackmanWindow is 0.42 - 0.5 cos(2πk/N) + 0.08 cos(4πk/N), N as
// HannWindow's.
type BlackmanWindow struct {
	Periodic bool
	DType    DType
}

var inSize = InputSpec{Name: "Size"}

func (*HannWindow) Kind() string             { return "HannWindow" }
func (*HannWindow) Signature() Signature     { return sig(1, inSize) }
func (*HammingWindow) Kind() string          { return "HammingWindow" }
func (*HammingWindow) Signature() Signature  { return sig(1, inSize) }
func (*BlackmanWindow) Kind() string         { return "BlackmanWindow" }
func (*BlackmanWindow) Signature() Signature { return sig(1, inSize) }

// WindowDType and WindowPeriodic read the attributes every window op has.
func WindowDType(op Op) DType {
	switch w := op.(type) {
	case *HannWindow:
		return w.DType
	case *HammingWindow:
		return w.DType
	case *BlackmanWindow:
		return w.DType
	}
	return Undefined
}

func WindowPeriodic(op Op) bool {
	switch w := op.(type) {
	case *HannWindow:
		return w.Periodic
	case *HammingWindow:
		return w.Periodic
	case *BlackmanWindow:
		return w.Periodic
	}
	return false
}

// WindowCoefficients are the cosine-series coefficients a0, a1, a2 of a
// window op: w[k] = a0 - a1 cos(2πk/N) + a2 cos(4πk/N).
func WindowCoefficients(op Op) (a0, a1, a2 float64) {
	switch op.(type) {
	case *HannWindow:
		return 0.5, 0.5, 0
	case *HammingWindow:
		return 25.0 / 46, 21.0 / 46, 0
	case *BlackmanWindow:
		return 0.42, 0.5, 0.08
	}
	return 0, 0, 0
}

func (c *InferCtx) window() (ValueInfo, error) {
	dt := WindowDType(c.n.Op)
	if s := c.in[0]; s.DType != Undefined && !s.DType.IsInt() {
		return ValueInfo{}, c.errf("Size %q is %s, want an integer scalar", c.n.Inputs[0], s.DType)
	}
	k := constAny(c.in[0])
	if k == nil {
		return shaped(dt, []Dim{c.countDim()}), nil
	}
	v, err := k.Int64s()
	if err != nil || len(v) != 1 || v[0] < 0 {
		return ValueInfo{}, c.errf("Size %q must hold one non-negative integer", c.n.Inputs[0])
	}
	return shaped(dt, []Dim{knownDim(v[0])}), nil
}

// MelWeightMatrix is the (DFTLength/2+1, NumMelBins) matrix of triangular
// mel filters that maps a one-sided magnitude spectrum to mel bands, as
// ONNX's MelWeightMatrix-17 defines it: NumMelBins+2 edges evenly spaced
// on the mel scale (2595 log10(1 + f/700)) from LowerEdgeHertz to
// UpperEdgeHertz, each edge's spectrum bin floor((DFTLength+1)·f /
// SampleRate), and filter i rising linearly from edge i to edge i+1 and
// falling to edge i+2. The five inputs are scalars; the output is DType.
type MelWeightMatrix struct {
	DType DType
}

func (*MelWeightMatrix) Kind() string { return "MelWeightMatrix" }
func (*MelWeightMatrix) Signature() Signature {
	return sig(1, InputSpec{Name: "NumMelBins"}, InputSpec{Name: "DFTLength"}, InputSpec{Name: "SampleRate"},
		InputSpec{Name: "LowerEdgeHertz"}, InputSpec{Name: "UpperEdgeHertz"})
}

func init() {
	Register(withReason(&OpDef{
		Kind: "MelWeightMatrix", Summary: "triangular mel filter bank mapping a one-sided spectrum to mel bands",
		New:   func() Op { return &MelWeightMatrix{DType: Float32} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.melWeightMatrix(c.n.Op.(*MelWeightMatrix))) },
		Check: func(c *CheckCtx) error {
			if dt := c.N.Op.(*MelWeightMatrix).DType; dt == Undefined || dt == Bool || dt.Size() == 0 {
				return c.Errorf("output dtype %s is not a number type", dt)
			}
			return nil
		},
		Example: func() Example {
			i := func(v int64) ExampleInput {
				return ExampleInput{DType: Int64, Shape: []int64{}, Const: NewInt64Tensor("", []int64{}, []int64{v})}
			}
			f := func(v float32) ExampleInput {
				return ExampleInput{DType: Float32, Shape: []int64{}, Const: NewFloat32Tensor("", []int64{}, []float32{v})}
			}
			return Example{Op: &MelWeightMatrix{DType: Float64}, Inputs: []ExampleInput{i(5), i(16), i(8000), f(100), f(3800)}}
		},
	}, signalWithout))
}

func (c *InferCtx) melWeightMatrix(op *MelWeightMatrix) (ValueInfo, error) {
	for i := range 5 {
		v := c.in[i]
		if s, ok := v.StaticShape(); ok && NumElements(s) != 1 {
			return ValueInfo{}, c.errf("%s %q has shape %s, want a scalar", c.slot(i), c.n.Inputs[i], fmtShape(v))
		}
		if i < 3 && v.DType != Undefined && !v.DType.IsInt() {
			return ValueInfo{}, c.errf("%s %q is %s, want an integer", c.slot(i), c.n.Inputs[i], v.DType)
		}
		if i >= 3 && v.DType != Undefined && !v.DType.IsFloat() {
			return ValueInfo{}, c.errf("%s %q is %s, want a float", c.slot(i), c.n.Inputs[i], v.DType)
		}
	}
	dims := []Dim{unknownDim, unknownDim}
	for k, slot := range []int{1, 0} {
		t := constAny(c.in[slot])
		if t == nil {
			continue
		}
		v, err := t.Int64s()
		if err != nil || len(v) != 1 || v[0] < 1 {
			return ValueInfo{}, c.errf("%s %q must hold one positive integer", c.slot(slot), c.n.Inputs[slot])
		}
		if k == 0 {
			dims[0] = knownDim(v[0]/2 + 1)
		} else {
			dims[1] = knownDim(v[0])
		}
	}
	return shaped(op.DType, dims), nil
}

// signalWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var signalWithout = Without{Accumulation: SumsNoProducts, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
