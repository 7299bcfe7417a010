package tfliteimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// window is the canonical form of a TFLite 2-D window (H, W order).
type window struct {
	strides, dilations, padsBegin, padsEnd []int64
}

// tflPads is TFLite's padding along one spatial axis (ComputePadding-
// WithOffset): SAME puts the odd pixel at the end.
func tflPads(same bool, in, k, stride, dil int64) (begin, end, out int64) {
	eff := (k-1)*dil + 1
	if same {
		out = (in + stride - 1) / stride
	} else {
		out = (in + stride - eff) / stride
	}
	total := (out-1)*stride + eff - in
	if total < 0 {
		total = 0
	}
	return total / 2, total - total/2, out
}

// makeWindow computes the canonical window of a 2-D op over an NHWC input
// of shape in with kernel (kh, kw).
func (c *opCtx) makeWindow(in []int64, kh, kw int64, pad tflitefb.Padding, sh, sw, dh, dw int32) (window, error) {
	if sh < 1 || sw < 1 || dh < 1 || dw < 1 {
		return window{}, c.errf("strides (%d, %d) and dilations (%d, %d) must be at least 1", sh, sw, dh, dw)
	}
	if pad != tflitefb.PaddingSAME && pad != tflitefb.PaddingVALID {
		return window{}, c.errf("padding %d is neither SAME nor VALID", pad)
	}
	same := pad == tflitefb.PaddingSAME
	bh, eh, _ := tflPads(same, in[1], kh, int64(sh), int64(dh))
	bw, ew, _ := tflPads(same, in[2], kw, int64(sw), int64(dw))
	return window{strides: []int64{int64(sh), int64(sw)}, dilations: []int64{int64(dh), int64(dw)},
		padsBegin: []int64{bh, bw}, padsEnd: []int64{eh, ew}}, nil
}

// rank4Of checks that tensor i is 4-D and returns its shape.
func (c *opCtx) rank4Of(i int, what string) ([]int64, error) {
	s := c.b.tensor(i).shape
	if len(s) != 4 {
		return nil, c.errf("%s %s has shape %v; a 4-D NHWC tensor is needed", what, c.b.tensorTitle(i), s)
	}
	return s, nil
}

func convConv2D(c *opCtx) error {
	o, err := optionsOf[tflitefb.Conv2DOptions](c, tflitefb.BuiltinOptionsConv2DOptions)
	if err != nil {
		return err
	}
	return c.conv(o.Padding(), o.StrideH(), o.StrideW(), o.DilationHFactor(), o.DilationWFactor(), o.FusedActivationFunction(), false, 0)
}

func convDepthwiseConv2D(c *opCtx) error {
	o, err := optionsOf[tflitefb.DepthwiseConv2DOptions](c, tflitefb.BuiltinOptionsDepthwiseConv2DOptions)
	if err != nil {
		return err
	}
	return c.conv(o.Padding(), o.StrideH(), o.StrideW(), o.DilationHFactor(), o.DilationWFactor(), o.FusedActivationFunction(), true, o.DepthMultiplier())
}

// convGeometry is what CONV_2D and DEPTHWISE_CONV_2D share.
type convGeometry struct {
	x, w, bias, y int
	xs, ws, ys    []int64
	win           window
	group         int64
	perm          []int64 // file weight -> OIHW
}

func (c *opCtx) convGeometry(depthwise bool, mult int32, pad tflitefb.Padding, sh, sw, dh, dw int32) (*convGeometry, error) {
	g := &convGeometry{bias: c.in(2), y: c.out(0), perm: ohwiToOIHW}
	var err error
	if g.x, err = c.need(0); err != nil {
		return nil, err
	}
	if g.w, err = c.need(1); err != nil {
		return nil, err
	}
	if g.xs, err = c.rank4Of(g.x, "input"); err != nil {
		return nil, err
	}
	if g.ws, err = c.rank4Of(g.w, "filter"); err != nil {
		return nil, err
	}
	if g.ys, err = c.rank4Of(g.y, "output"); err != nil {
		return nil, err
	}
	if !c.b.isWeight(g.w) {
		return nil, c.errf("filter %s is computed at run time; only constant filters are supported", c.b.tensorTitle(g.w))
	}
	for _, s := range [][]int64{g.xs, g.ws, g.ys} {
		for _, d := range s {
			if d < 1 {
				return nil, c.errf("input %v, filter %v and output %v must have no empty axis", g.xs, g.ws, g.ys)
			}
		}
	}
	cin := g.xs[3]
	if depthwise {
		g.perm = dwToOIHW
		if g.ws[0] != 1 || cin == 0 || g.ws[3]%cin != 0 {
			return nil, c.errf("depthwise filter %v does not fit %d input channels (want 1×H×W×(C_in·depth_multiplier))", g.ws, cin)
		}
		if mult != 0 && int64(mult)*cin != g.ws[3] {
			return nil, c.errf("depth_multiplier %d disagrees with filter %v and %d input channels", mult, g.ws, cin)
		}
		g.group = cin
	} else {
		if g.ws[3] == 0 || cin%g.ws[3] != 0 {
			return nil, c.errf("filter %v does not fit %d input channels", g.ws, cin)
		}
		g.group = cin / g.ws[3]
	}
	g.win, err = c.makeWindow(g.xs, g.ws[1], g.ws[2], pad, sh, sw, dh, dw)
	return g, err
}

// conv converts CONV_2D and DEPTHWISE_CONV_2D.
func (c *opCtx) conv(pad tflitefb.Padding, sh, sw, dh, dw int32, act tflitefb.ActivationFunctionType, depthwise bool, mult int32) error {
	g, err := c.convGeometry(depthwise, mult, pad, sh, sw, dh, dw)
	if err != nil {
		return err
	}
	if c.b.quantized(g.x) {
		return c.quantConv(g, act)
	}
	b := c.b
	x, err := b.value(g.x, nchwForm)
	if err != nil {
		return err
	}
	w, err := b.weight(g.w, g.perm, "OIHW")
	if err != nil {
		return err
	}
	bias := ""
	if g.bias >= 0 {
		if bias, err = b.weight(g.bias, nil, "O"); err != nil {
			return err
		}
	}
	op := &canon.Conv{Strides: g.win.strides, Dilations: g.win.dilations, PadsBegin: g.win.padsBegin, PadsEnd: g.win.padsEnd, Group: g.group}
	name := b.base(g.y)
	y := b.node(name, op, x, w, bias)
	if y, err = c.floatActivation(act, y, name); err != nil {
		return err
	}
	b.define(g.y, y, nchwForm)
	return nil
}

// transposeConvGeometry is TRANSPOSE_CONV's window as a canonical
// ConvTranspose: TFLite places input pixel i at output i·stride - pad and
// crops the output to the shape it records.
type transposeConvGeometry struct {
	x, w, bias, y int
	xs, ws, ys    []int64
	strides       []int64
	padsBegin     []int64
	padsEnd       []int64
	outPadding    []int64
}

func (c *opCtx) transposeConvGeometry() (*transposeConvGeometry, tflitefb.ActivationFunctionType, error) {
	o, err := optionsOf[tflitefb.TransposeConvOptions](c, tflitefb.BuiltinOptionsTransposeConvOptions)
	if err != nil {
		return nil, 0, err
	}
	g := &transposeConvGeometry{bias: c.in(3), y: c.out(0)}
	if g.w, err = c.need(1); err != nil {
		return nil, 0, err
	}
	if g.x, err = c.need(2); err != nil {
		return nil, 0, err
	}
	if g.xs, err = c.rank4Of(g.x, "input"); err != nil {
		return nil, 0, err
	}
	if g.ws, err = c.rank4Of(g.w, "filter"); err != nil {
		return nil, 0, err
	}
	if g.ys, err = c.rank4Of(g.y, "output"); err != nil {
		return nil, 0, err
	}
	if !c.b.isWeight(g.w) {
		return nil, 0, c.errf("filter %s is computed at run time; only constant filters are supported", c.b.tensorTitle(g.w))
	}
	for _, s := range [][]int64{g.xs, g.ws, g.ys} {
		for _, d := range s {
			if d < 1 {
				return nil, 0, c.errf("input %v, filter %v and output %v must have no empty axis", g.xs, g.ws, g.ys)
			}
		}
	}
	if g.ws[3] != g.xs[3] || g.ws[0] != g.ys[3] {
		return nil, 0, c.errf("filter %v (OHWI) does not map %d input channels to %d output channels (grouped transposed convolutions are not supported)", g.ws, g.xs[3], g.ys[3])
	}
	if sh := c.in(0); sh >= 0 && c.b.isConst(sh) {
		t, err := c.b.fileTensor(sh)
		if err != nil {
			return nil, 0, err
		}
		v, err := t.Int64s()
		if err != nil || len(v) != 4 || v[0] != g.ys[0] || v[1] != g.ys[1] || v[2] != g.ys[2] || v[3] != g.ys[3] {
			return nil, 0, c.errf("output_shape %v disagrees with the output tensor's shape %v", v, g.ys)
		}
	}
	sh, sw := int64(o.StrideH()), int64(o.StrideW())
	if sh < 1 || sw < 1 {
		return nil, 0, c.errf("strides (%d, %d) must be at least 1", sh, sw)
	}
	if o.Padding() != tflitefb.PaddingSAME && o.Padding() != tflitefb.PaddingVALID {
		return nil, 0, c.errf("padding %d is neither SAME nor VALID", o.Padding())
	}
	same := o.Padding() == tflitefb.PaddingSAME
	g.strides = []int64{sh, sw}
	for k, s := range []int64{sh, sw} {
		// TFLite pads as if the output were the input of a forward conv.
		begin, _, _ := tflPads(same, g.ys[1+k], g.ws[1+k], s, 1)
		full := (g.xs[1+k]-1)*s + g.ws[1+k]
		end := full - begin - g.ys[1+k]
		outPad := int64(0)
		if end < 0 {
			outPad, end = -end, 0
		}
		g.padsBegin = append(g.padsBegin, begin)
		g.padsEnd = append(g.padsEnd, end)
		g.outPadding = append(g.outPadding, outPad)
	}
	return g, o.FusedActivationFunction(), nil
}

func convTransposeConv(c *opCtx) error {
	g, act, err := c.transposeConvGeometry()
	if err != nil {
		return err
	}
	if c.b.quantized(g.x) {
		return c.quantTransposeConv(g, act)
	}
	b := c.b
	x, err := b.value(g.x, nchwForm)
	if err != nil {
		return err
	}
	w, err := b.weight(g.w, ohwiToIOHW, "IOHW")
	if err != nil {
		return err
	}
	bias := ""
	if g.bias >= 0 {
		if bias, err = b.weight(g.bias, nil, "O"); err != nil {
			return err
		}
	}
	op := &canon.ConvTranspose{Strides: g.strides, Dilations: []int64{1, 1}, PadsBegin: g.padsBegin, PadsEnd: g.padsEnd, OutputPadding: g.outPadding, Group: 1}
	name := b.base(g.y)
	y := b.node(name, op, x, w, bias)
	if y, err = c.floatActivation(act, y, name); err != nil {
		return err
	}
	b.define(g.y, y, nchwForm)
	return nil
}

func convPool(c *opCtx, max bool) error {
	o, err := optionsOf[tflitefb.Pool2DOptions](c, tflitefb.BuiltinOptionsPool2DOptions)
	if err != nil {
		return err
	}
	x, err := c.need(0)
	if err != nil {
		return err
	}
	xs, err := c.rank4Of(x, "input")
	if err != nil {
		return err
	}
	for _, d := range xs {
		if d < 1 {
			return c.errf("input %v has an empty axis", xs)
		}
	}
	kh, kw := int64(o.FilterHeight()), int64(o.FilterWidth())
	if kh < 1 || kw < 1 {
		return c.errf("filter %d×%d must be at least 1×1", kh, kw)
	}
	win, err := c.makeWindow(xs, kh, kw, o.Padding(), o.StrideH(), o.StrideW(), 1, 1)
	if err != nil {
		return err
	}
	if c.b.quantized(x) {
		return c.quantPool(x, xs, kh, kw, win, max, o.FusedActivationFunction())
	}
	b := c.b
	xv, err := b.value(x, nchwForm)
	if err != nil {
		return err
	}
	var op canon.Op = &canon.AveragePool{Kernel: []int64{kh, kw}, Strides: win.strides, Dilations: []int64{1, 1}, PadsBegin: win.padsBegin, PadsEnd: win.padsEnd}
	if max {
		op = &canon.MaxPool{Kernel: []int64{kh, kw}, Strides: win.strides, Dilations: []int64{1, 1}, PadsBegin: win.padsBegin, PadsEnd: win.padsEnd}
	}
	y := c.out(0)
	name := b.base(y)
	v := b.node(name, op, xv)
	if v, err = c.floatActivation(o.FusedActivationFunction(), v, name); err != nil {
		return err
	}
	b.define(y, v, nchwForm)
	return nil
}
