package torchexport

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The signal ops and DeformConv in plain torch, computed in float64:
// DFT and STFT through torch.fft on the (real, imaginary) pairs made
// complex, the windows from their cosine series, DeformConv as bilinear
// gathers and one grouped product.

func init() {
	window := opWriter{write: writeWindow, detail: "its cosine series over torch.arange in float64"}
	optable.Add(&opWriters, map[string]opWriter{
		"DFT": {write: writeDFT, floatOnly: "a Fourier transform",
			detail: "torch.fft.fft / ifft / rfft / irfft of the pairs made complex, in float64"},
		"STFT": {write: writeSTFT, floatOnly: "a Fourier transform",
			detail: "frames by Tensor.unfold, times the window, torch.fft.rfft / fft, in float64"},
		"HannWindow":      window,
		"HammingWindow":   window,
		"BlackmanWindow":  window,
		"MelWeightMatrix": {write: writeMelWeightMatrix, detail: "ONNX's construction step by step in Python (mel edges in float32, bins in float64)"},
		"DeformConv": {write: writeDeformConv, floatOnly: "convolution",
			detail: "bilinear samples by gathers per offset group and tap, masked, then one grouped product (einsum), in float64"},
	})
}

// scalarOf is the Python int held by input i (a one-element tensor).
func (gen *generator) scalarOf(i int) (string, error) {
	e, err := gen.in(i)
	if err != nil {
		return "", err
	}
	return "int(" + e + ".reshape(-1)[0].item())", nil
}

func writeDFT(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.DFT)
	if gen.given(2) {
		return gen.fail("a DFT axis given at run time is not written")
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	length := "None"
	switch {
	case gen.given(1):
		if length, err = gen.scalarOf(1); err != nil {
			return err
		}
	case op.Length > 0:
		length = fmt.Sprint(op.Length)
	}
	var body []string
	code := func(format string, args ...any) { body = append(body, fmt.Sprintf(format, args...)) }
	code("a = %d %% x.dim()", op.Axis)
	code("xd = x.double()")
	code("z = torch.complex(xd[..., 0], xd[..., 1]) if x.shape[-1] == 2 else xd[..., 0]")
	switch {
	case op.Inverse && op.Onesided:
		code("if not z.is_complex():")
		code("    z = torch.complex(z, torch.zeros_like(z))")
		code("return torch.fft.irfft(z, n=n, dim=a).unsqueeze(-1).to(x.dtype)")
	case op.Inverse:
		code("y = torch.fft.ifft(z, n=n, dim=a)")
	case op.Onesided:
		code("if z.is_complex():")
		code("    y = torch.fft.fft(z, n=n, dim=a)")
		code("    y = y.narrow(a, 0, y.shape[a] // 2 + 1)")
		code("else:")
		code("    y = torch.fft.rfft(z, n=n, dim=a)")
	default:
		code("y = torch.fft.fft(z, n=n, dim=a)")
	}
	if !(op.Inverse && op.Onesided) {
		code("return torch.view_as_real(y.resolve_conj()).to(x.dtype)")
	}
	fn := gen.localFn("dft", "x, n", body)
	gen.assign(fmt.Sprintf("%s(%s, %s)", fn, x, length))
	return nil
}

func writeSTFT(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.STFT)
	sig, err := gen.in(0)
	if err != nil {
		return err
	}
	step, err := gen.scalarOf(1)
	if err != nil {
		return err
	}
	win := "None"
	if gen.given(2) {
		if win, err = gen.in(2); err != nil {
			return err
		}
	}
	frame := "None"
	if gen.given(3) {
		if frame, err = gen.scalarOf(3); err != nil {
			return err
		}
	}
	var body []string
	code := func(format string, args ...any) { body = append(body, fmt.Sprintf(format, args...)) }
	code("xd = x.double()")
	code("z = torch.complex(xd[..., 0], xd[..., 1]) if x.shape[-1] == 2 else xd[..., 0]")
	code("f = frame if frame is not None else win.shape[0]")
	code("frames = z.unfold(1, f, step)")
	code("if win is not None:")
	code("    frames = frames * win.double()")
	if op.Onesided {
		code("y = torch.fft.rfft(frames, dim=-1)")
	} else {
		code("y = torch.fft.fft(frames, dim=-1)")
	}
	code("return torch.view_as_real(y.resolve_conj()).to(x.dtype)")
	fn := gen.localFn("stft", "x, step, win, frame", body)
	gen.assign(fmt.Sprintf("%s(%s, %s, %s, %s)", fn, sig, step, win, frame))
	return nil
}

func writeWindow(gen *generator, n *canon.Node) error {
	size, err := gen.scalarOf(0)
	if err != nil {
		return err
	}
	dt, err := gen.genDType(canon.WindowDType(n.Op))
	if err != nil {
		return err
	}
	a0, a1, a2 := canon.WindowCoefficients(n.Op)
	periodic := "False"
	if canon.WindowPeriodic(n.Op) {
		periodic = "True"
	}
	body := []string{
		"d = size if periodic else size - 1",
		"k = torch.arange(size, dtype=torch.float64)",
		"if d == 0:",
		"    return torch.ones(size, dtype=torch.float64).to(dtype)",
		fmt.Sprintf("t = %s * k / d", pyFloat64(2*math.Pi)),
		fmt.Sprintf("return (%s - %s * torch.cos(t) + %s * torch.cos(2 * t)).to(dtype)", pyFloat64(a0), pyFloat64(a1), pyFloat64(a2)),
	}
	fn := gen.localFn("window", "size, periodic, dtype", body)
	gen.assign(fmt.Sprintf("%s(%s, %s, %s)", fn, size, periodic, dt))
	return nil
}

func pyFloat64(v float64) string { return fmt.Sprintf("%.17g", v) }

func writeDeformConv(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.DeformConv)
	ins := make([]string, 5)
	for i := range ins {
		ins[i] = "None"
		if gen.given(i) {
			e, err := gen.in(i)
			if err != nil {
				return err
			}
			ins[i] = e
		}
	}
	var body []string
	code := func(format string, args ...any) { body = append(body, fmt.Sprintf(format, args...)) }
	code("N, C, H, W = x.shape")
	code("O, Cg, kh, kw = w.shape")
	code("oh, ow = off.shape[2], off.shape[3]")
	code("og, T = %d, kh * kw", op.OffsetGroup)
	code("xd = x.double().reshape(N, og, C // og, H * W)")
	code("o = off.double().reshape(N, og, T, 2, oh, ow)")
	code("ti = torch.arange(T)")
	code("by = ((torch.arange(oh) * %d - %d).view(1, oh, 1) + (ti // kw * %d).view(T, 1, 1)).double()", op.Strides[0], op.PadsBegin[0], op.Dilations[0])
	code("bx = ((torch.arange(ow) * %d - %d).view(1, 1, ow) + (ti %% kw * %d).view(T, 1, 1)).double()", op.Strides[1], op.PadsBegin[1], op.Dilations[1])
	code("py = by + o[:, :, :, 0]")
	code("px = bx + o[:, :, :, 1]")
	code("valid = (py > -1) & (py < H) & (px > -1) & (px < W)")
	code("y0, x0 = torch.floor(py), torch.floor(px)")
	code("ly, lx = py - y0, px - x0")
	code("cols = torch.zeros(N, og, C // og, T * oh * ow, dtype=torch.float64)")
	code("for dy, dx, wt in ((0, 0, (1 - ly) * (1 - lx)), (0, 1, (1 - ly) * lx), (1, 0, ly * (1 - lx)), (1, 1, ly * lx)):")
	code("    yy, xx = y0 + dy, x0 + dx")
	code("    inside = valid & (yy >= 0) & (yy < H) & (xx >= 0) & (xx < W)")
	code("    idx = (yy.clamp(0, H - 1) * W + xx.clamp(0, W - 1)).long().reshape(N, og, 1, T * oh * ow)")
	code("    g = torch.gather(xd, 3, idx.expand(N, og, C // og, T * oh * ow))")
	code("    cols = cols + g * (wt * inside).reshape(N, og, 1, T * oh * ow)")
	code("cols = cols.reshape(N, og, C // og, T, oh, ow)")
	code("if mask is not None:")
	code("    cols = cols * mask.double().reshape(N, og, 1, T, oh, ow)")
	code("G = %d", op.Group)
	code("cols = cols.reshape(N, G, Cg * T, oh * ow)")
	code("y = torch.einsum('gok,ngkp->ngop', w.double().reshape(G, O // G, Cg * T), cols).reshape(N, O, oh, ow)")
	code("if b is not None:")
	code("    y = y + b.double().view(1, O, 1, 1)")
	code("return y.to(x.dtype)")
	fn := gen.localFn("deform_conv", "x, w, off, b, mask", body)
	gen.assign(fmt.Sprintf("%s(%s, %s, %s, %s, %s)", fn, ins[0], ins[1], ins[2], ins[3], ins[4]))
	return nil
}

// writeMelWeightMatrix builds the filter bank as the interpreter does: the
// mel edges of the float32 bounds and their step in float32
// (numpy.float32), the rest in float64.
func writeMelWeightMatrix(gen *generator, n *canon.Node) error {
	var args [5]string
	for i := range args {
		e, err := gen.in(i)
		if err != nil {
			return err
		}
		args[i] = e + ".reshape(-1)[0].item()"
	}
	dt, err := gen.genDType(n.Op.(*canon.MelWeightMatrix).DType)
	if err != nil {
		return err
	}
	body := []string{
		"bins, dft, rate = int(bins), int(dft), int(rate)",
		"f32 = lambda v: torch.tensor(v, dtype=torch.float32)",
		"mel = lambda f: f32(2595) * torch.log10(f32(1) + f32(f) / 700)",
		"lo, hi = mel(lo), mel(hi)",
		"step = ((hi - lo) / (bins + 2)).double()",
		"f = torch.arange(bins + 2, dtype=torch.float64) * step + lo.double()",
		"f = 700 * (torch.pow(10.0, f / 2595) - 1)",
		"edges = torch.floor((dft + 1) * f / rate).long().tolist()",
		"out = torch.zeros(dft // 2 + 1, bins, dtype=torch.float64)",
		"for i in range(bins):",
		"    l, c, h = edges[i], edges[i + 1], edges[i + 2]",
		"    if c == l:",
		"        out[c, i] = 1",
		"    else:",
		"        for j in range(l, c + 1):",
		"            out[j, i] = (j - l) / (c - l)",
		"    for j in range(c, h):",
		"        out[j, i] = (h - j) / (h - c)",
		"return out.to(dtype)",
	}
	fn := gen.localFn("mel_weights", "bins, dft, rate, lo, hi, dtype", body)
	gen.assign(fmt.Sprintf("%s(%s, %s, %s, %s, %s, %s)", fn, args[0], args[1], args[2], args[3], args[4], dt))
	return nil
}
