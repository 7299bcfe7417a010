package tfliteexport

import (
	"math"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

func init() {
	optable.Add(&writers, map[string]writer{
		"Conv":          {writeConv, "CONV_2D (OHWI), DEPTHWISE_CONV_2D (1HWO, depth_multiplier); other groups as SPLIT + CONV_2D per group + CONCATENATION; a following BatchNormalization folded, Relu/Relu6 fused; 2-D only"},
		"ConvTranspose": {writeConvTranspose, "TRANSPOSE_CONV (OHWI, output_shape input) + ADD of the bias; groups as SPLIT + one per group + CONCATENATION; dilation as a kernel with zeros between taps; VALID padding, begin pads cropped by STRIDED_SLICE; 2-D"},
		"MaxPool":       {writeMaxPool, "MAX_POOL_2D (explicit pads as PADV2 with -inf, ceil mode as more end padding); 2-D, dilation 1, no indices output"},
		"AveragePool":   {writeAveragePool, "AVERAGE_POOL_2D (SAME when the pads are TFLite's; otherwise PAD, and pads outside the divisor by a MUL with k·k/count per pixel); 2-D, dilation 1"},
		"GlobalAveragePool": {func(e *exporter, n *canon.Node) error {
			return e.reduceOver(n, tflitefb.BuiltinOperatorMEAN, spatialAxes(e, n), true)
		}, "MEAN over H, W"},
		"GlobalMaxPool": {func(e *exporter, n *canon.Node) error {
			return e.reduceOver(n, tflitefb.BuiltinOperatorREDUCE_MAX, spatialAxes(e, n), true)
		}, "REDUCE_MAX over H, W"},
		"Linear":             {writeLinear, "FULLY_CONNECTED (a Flatten of an NHWC value before it absorbed into its weight columns); Relu/Relu6 fused"},
		"MatMul":             {writeMatMul, "FULLY_CONNECTED when B is a constant matrix (keep_num_dims for batched A); a B computed at run time is refused"},
		"BatchNormalization": {writeBatchNorm, "folded into the CONV_2D before it, otherwise MUL + ADD by per-channel constants"},
	})
}

func (e *exporter) outName(n *canon.Node) string {
	if o, ok := e.finalOut[n]; ok {
		return o
	}
	return n.Outputs[0]
}

// window2D is the geometry of a 2-D windowed op over an NCHW input.
type window2D struct {
	in, k, s, d, pb, pe, out [2]int64
}

func (w window2D) effK(i int) int64 { return (w.k[i]-1)*w.d[i] + 1 }

// padding returns TFLite's padding mode when it reproduces the explicit
// pads exactly.
func (w window2D) padding() (tflitefb.Padding, bool) {
	valid, same := true, true
	for i := 0; i < 2; i++ {
		if w.pb[i] != 0 || w.pe[i] != 0 || w.out[i] != (w.in[i]-w.effK(i))/w.s[i]+1 {
			valid = false
		}
		o := (w.in[i] + w.s[i] - 1) / w.s[i]
		total := (o-1)*w.s[i] + w.effK(i) - w.in[i]
		if total < 0 {
			total = 0
		}
		if w.out[i] != o || w.pb[i] != total/2 || w.pe[i] != total-total/2 {
			same = false
		}
	}
	switch {
	case valid:
		return tflitefb.PaddingVALID, true
	case same:
		return tflitefb.PaddingSAME, true
	}
	return 0, false
}

// explicitPad writes PAD (fill 0) or PADV2 of x by the window's pads plus
// extra at the end of each spatial axis; the result is read with VALID.
func (e *exporter) explicitPad(n *canon.Node, x int32, xs []int64, w window2D, extra [2]int64, fill float32) (int32, error) {
	pads := []int32{0, 0, int32(w.pb[0]), int32(w.pe[0] + extra[0]), int32(w.pb[1]), int32(w.pe[1] + extra[1]), 0, 0}
	for _, p := range pads {
		if p < 0 {
			return 0, nodeErr(n, "negative pads (cropping) are not written to TFLite")
		}
	}
	shape := []int32{int32(xs[0]), int32(xs[2] + w.pb[0] + w.pe[0] + extra[0]), int32(xs[3] + w.pb[1] + w.pe[1] + extra[1]), int32(xs[1])}
	pt, err := e.constI32(n.Name+"/paddings", []int32{4, 2}, pads)
	if err != nil {
		return 0, err
	}
	out, err := e.scratch(n.Name+"/padded", shape, e.dtype(n.Inputs[0]))
	if err != nil {
		return 0, err
	}
	if fill == 0 && !math.Signbit(float64(fill)) {
		e.emit(tflitefb.BuiltinOperatorPAD, []int32{x, pt}, []int32{out}, tflitefb.BuiltinOptionsPadOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.PadOptionsStart(b)
			return tflitefb.PadOptionsEnd(b)
		})
		return out, nil
	}
	ft, err := e.scalarF32(n.Name+"/fill", fill)
	if err != nil {
		return 0, err
	}
	e.emit(tflitefb.BuiltinOperatorPADV2, []int32{x, pt, ft}, []int32{out}, tflitefb.BuiltinOptionsPadV2Options, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.PadV2OptionsStart(b)
		return tflitefb.PadV2OptionsEnd(b)
	})
	return out, nil
}

// scalarF32 adds a one-element float32 constant, always float32 (options
// such as a pad value are read as constants by runtimes).
func (e *exporter) scalarF32(name string, v float32) (int32, error) {
	return e.addTensor(name, []int32{1}, canon.Float32, f32le([]float32{v}))
}

func f32le(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		bits := math.Float32bits(x)
		out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24)
	}
	return out
}

// geometry reads the 2-D window of node n from its input and output shapes.
func (e *exporter) geometry(n *canon.Node, k, s, d, pb, pe []int64) (window2D, []int64, error) {
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return window2D{}, nil, nodeErr(n, "%v", err)
	}
	ys, err := e.shape(n.Outputs[0])
	if err != nil {
		return window2D{}, nil, nodeErr(n, "%v", err)
	}
	if len(xs) != 4 || len(k) != 2 {
		return window2D{}, nil, nodeErr(n, "TFLite's windowed ops are 2-D; this one has %d spatial axes", len(xs)-2)
	}
	var w window2D
	for i := 0; i < 2; i++ {
		w.in[i], w.k[i], w.out[i] = xs[2+i], k[i], ys[2+i]
		w.s[i], w.d[i] = at(s, i, 1), at(d, i, 1)
		w.pb[i], w.pe[i] = at(pb, i, 0), at(pe, i, 0)
	}
	return w, xs, nil
}

func at(v []int64, i int, def int64) int64 {
	if i < len(v) {
		return v[i]
	}
	return def
}

func convOptions(pad tflitefb.Padding, w window2D, act tflitefb.ActivationFunctionType) func(*flatbuffers.Builder) flatbuffers.UOffsetT {
	return func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.Conv2DOptionsStart(b)
		tflitefb.Conv2DOptionsAddPadding(b, pad)
		tflitefb.Conv2DOptionsAddStrideH(b, int32(w.s[0]))
		tflitefb.Conv2DOptionsAddStrideW(b, int32(w.s[1]))
		tflitefb.Conv2DOptionsAddDilationHFactor(b, int32(w.d[0]))
		tflitefb.Conv2DOptionsAddDilationWFactor(b, int32(w.d[1]))
		tflitefb.Conv2DOptionsAddFusedActivationFunction(b, act)
		return tflitefb.Conv2DOptionsEnd(b)
	}
}

// convWeights returns Conv n's OIHW weight and bias as float32, with a
// folded batch norm applied; bias is zeros when the node has none.
func (e *exporter) convWeights(n *canon.Node) (*canon.Tensor, []float32, error) {
	wt := e.constOf(n.Inputs[1])
	if wt == nil {
		return nil, nil, nodeErr(n, "its weights are computed at run time; TFLite convolutions take constant filters")
	}
	o := wt.Shape[0]
	bias := make([]float32, o)
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		bt := e.constOf(n.Inputs[2])
		if bt == nil {
			return nil, nil, nodeErr(n, "its bias is computed at run time; TFLite convolutions take a constant bias")
		}
		v, err := floats(bt)
		if err != nil {
			return nil, nil, nodeErr(n, "%v", err)
		}
		copy(bias, v)
	}
	bn := e.bnOf[n]
	if bn == nil {
		return wt, bias, nil
	}
	ab, err := bnAffine(e, bn, bn.Op.(*canon.BatchNorm))
	if err != nil {
		return nil, nil, err
	}
	v, err := floats(wt)
	if err != nil {
		return nil, nil, nodeErr(n, "%v", err)
	}
	per := int64(len(v)) / o
	for oc := int64(0); oc < o; oc++ {
		for j := int64(0); j < per; j++ {
			v[oc*per+j] *= ab[0][oc]
		}
		bias[oc] = bias[oc]*ab[0][oc] + ab[1][oc]
	}
	t := canon.NewFloat32Tensor(wt.Name+"/folded", wt.Shape, v)
	t.Layout = wt.Layout
	return t, bias, nil
}

func writeConv(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.Conv)
	wt, bias, err := e.convWeights(n)
	if err != nil {
		return err
	}
	if len(wt.Shape) != 4 {
		return nodeErr(n, "TFLite's CONV_2D is 2-D; this convolution has %d spatial axes", len(wt.Shape)-2)
	}
	w, xs, err := e.geometry(n, wt.Shape[2:], op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd)
	if err != nil {
		return err
	}
	x, err := e.input(n.Inputs[0], nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	pad, ok := w.padding()
	if !ok {
		if x, err = e.explicitPad(n, x, xs, w, [2]int64{}, 0); err != nil {
			return err
		}
		pad = tflitefb.PaddingVALID
	}
	act := e.fusedAct[n]
	out, err := e.define(e.outName(n), nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	cin, cout, g := xs[1], wt.Shape[0], op.Group
	if g <= 1 {
		return e.conv2D(n, x, wt, bias, out, pad, w, act)
	}
	if g == cin && wt.Shape[1] == 1 {
		wf, err := e.constTensor(wt.Name, wt, []int{1, 2, 3, 0})
		if err != nil {
			return err
		}
		bf, err := e.constF32(n.Name+"/bias", []int32{int32(cout)}, bias)
		if err != nil {
			return err
		}
		mult := cout / cin
		e.emit(tflitefb.BuiltinOperatorDEPTHWISE_CONV_2D, []int32{x, wf, bf}, []int32{out}, tflitefb.BuiltinOptionsDepthwiseConv2DOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.DepthwiseConv2DOptionsStart(b)
			tflitefb.DepthwiseConv2DOptionsAddPadding(b, pad)
			tflitefb.DepthwiseConv2DOptionsAddStrideH(b, int32(w.s[0]))
			tflitefb.DepthwiseConv2DOptionsAddStrideW(b, int32(w.s[1]))
			tflitefb.DepthwiseConv2DOptionsAddDepthMultiplier(b, int32(mult))
			tflitefb.DepthwiseConv2DOptionsAddDilationHFactor(b, int32(w.d[0]))
			tflitefb.DepthwiseConv2DOptionsAddDilationWFactor(b, int32(w.d[1]))
			tflitefb.DepthwiseConv2DOptionsAddFusedActivationFunction(b, act)
			return tflitefb.DepthwiseConv2DOptionsEnd(b)
		})
		return nil
	}
	// A grouped convolution is one CONV_2D per group over its slice of the
	// input channels, concatenated: exactly the grouped sum.
	parts, err := e.splitChannels(n, x, xs, w, pad, g)
	if err != nil {
		return err
	}
	ys, err := e.shape(n.Outputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	outs := make([]int32, g)
	per := cout / g
	for j := int64(0); j < g; j++ {
		sub := sliceAxis0(wt, j*per, per)
		if outs[j], err = e.scratch(n.Name+"/group", []int32{int32(ys[0]), int32(ys[2]), int32(ys[3]), int32(per)}, e.dtype(n.Inputs[0])); err != nil {
			return err
		}
		if err := e.conv2D(n, parts[j], sub, bias[j*per:(j+1)*per], outs[j], pad, w, act); err != nil {
			return err
		}
	}
	e.concat(outs, out, 3)
	return nil
}

// splitChannels writes SPLIT of NHWC x into g equal channel groups,
// returning the padded-or-not group tensors.
func (e *exporter) splitChannels(n *canon.Node, x int32, xs []int64, w window2D, pad tflitefb.Padding, g int64) ([]int32, error) {
	shape := append([]int32{}, e.m.tensors[x].shape...)
	shape[3] /= int32(g)
	ax, err := e.constI32(n.Name+"/split_axis", []int32{}, []int32{3})
	if err != nil {
		return nil, err
	}
	parts := make([]int32, g)
	for j := range parts {
		if parts[j], err = e.scratch(n.Name+"/group_in", shape, e.dtype(n.Inputs[0])); err != nil {
			return nil, err
		}
	}
	e.emit(tflitefb.BuiltinOperatorSPLIT, []int32{ax, x}, parts, tflitefb.BuiltinOptionsSplitOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.SplitOptionsStart(b)
		tflitefb.SplitOptionsAddNumSplits(b, int32(g))
		return tflitefb.SplitOptionsEnd(b)
	})
	return parts, nil
}

func (e *exporter) concat(in []int32, out int32, axis int32) {
	e.emit(tflitefb.BuiltinOperatorCONCATENATION, in, []int32{out}, tflitefb.BuiltinOptionsConcatenationOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.ConcatenationOptionsStart(b)
		tflitefb.ConcatenationOptionsAddAxis(b, axis)
		return tflitefb.ConcatenationOptionsEnd(b)
	})
}

// sliceAxis0 returns rows [from, from+count) of t along its first axis.
func sliceAxis0(t *canon.Tensor, from, count int64) *canon.Tensor {
	row := int64(len(t.Data)) / t.Shape[0]
	shape := append([]int64{count}, t.Shape[1:]...)
	return &canon.Tensor{Name: t.Name + "/rows" + itoa(from), DType: t.DType, Shape: shape, Layout: t.Layout, Data: t.Data[from*row : (from+count)*row]}
}

func (e *exporter) conv2D(n *canon.Node, x int32, wt *canon.Tensor, bias []float32, out int32, pad tflitefb.Padding, w window2D, act tflitefb.ActivationFunctionType) error {
	wf, err := e.constTensor(wt.Name, wt, nhwc)
	if err != nil {
		return err
	}
	bf, err := e.constF32(n.Name+"/bias", []int32{int32(len(bias))}, bias)
	if err != nil {
		return err
	}
	e.emit(tflitefb.BuiltinOperatorCONV_2D, []int32{x, wf, bf}, []int32{out}, tflitefb.BuiltinOptionsConv2DOptions, convOptions(pad, w, act))
	return nil
}

func writeConvTranspose(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.ConvTranspose)
	wt := e.constOf(n.Inputs[1])
	if wt == nil {
		return nodeErr(n, "its weights are computed at run time; TFLite's TRANSPOSE_CONV takes a constant filter")
	}
	if len(wt.Shape) != 4 {
		return nodeErr(n, "TFLite's TRANSPOSE_CONV is 2-D; this one has %d spatial axes", len(wt.Shape)-2)
	}
	if at(op.Dilations, 0, 1) != 1 || at(op.Dilations, 1, 1) != 1 {
		// TFLite's TRANSPOSE_CONV has no dilation: the kernel with zeros
		// between its taps is the same sum.
		var err error
		if wt, err = dilateKernel(wt, at(op.Dilations, 0, 1), at(op.Dilations, 1, 1)); err != nil {
			return nodeErr(n, "%v", err)
		}
	}
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	ys, err := e.shape(n.Outputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	g := op.Group
	if g < 1 {
		g = 1
	}
	cin, per := wt.Shape[0], wt.Shape[1]
	cout := per * g
	bias := make([]float32, cout)
	hasBias := len(n.Inputs) > 2 && n.Inputs[2] != ""
	if hasBias {
		bt := e.constOf(n.Inputs[2])
		if bt == nil {
			return nodeErr(n, "its bias is computed at run time; TFLite export adds only a constant bias")
		}
		v, err := floats(bt)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		copy(bias, v)
	}
	// TFLite places input pixel i at output i·stride + k - pad_before,
	// keeping what falls inside output_shape. VALID (pad_before 0) gives
	// any crop at the end and any output padding; begin pads are cropped
	// by a STRIDED_SLICE. SAME is not written: runtimes disagree on
	// whether its pad_before comes from the output or the input size.
	var s, pb [2]int64
	for i := 0; i < 2; i++ {
		s[i], pb[i] = at(op.Strides, i, 1), at(op.PadsBegin, i, 0)
	}
	pad := tflitefb.PaddingVALID
	full := [2]int64{ys[2] + pb[0], ys[3] + pb[1]}
	x, err := e.input(n.Inputs[0], nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	final, err := e.define(e.outName(n), nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	out := final
	cropped := full != [2]int64{ys[2], ys[3]}
	dt := e.dtype(n.Inputs[0])
	if cropped {
		if out, err = e.scratch(n.Name+"/uncropped", []int32{int32(ys[0]), int32(full[0]), int32(full[1]), int32(cout)}, dt); err != nil {
			return err
		}
	}
	ins := []int32{x}
	if g > 1 {
		if ins, err = e.splitChannels(n, x, xs, window2D{}, pad, g); err != nil {
			return err
		}
	}
	outs := []int32{out}
	if g > 1 {
		outs = make([]int32, g)
		for j := range outs {
			if outs[j], err = e.scratch(n.Name+"/group", []int32{int32(ys[0]), int32(full[0]), int32(full[1]), int32(per)}, dt); err != nil {
				return err
			}
		}
	}
	for j := int64(0); j < g; j++ {
		sub := sliceAxis0(wt, j*(cin/g), cin/g)
		// IOHW -> OHWI.
		wf, err := e.constTensor(sub.Name, sub, []int{1, 2, 3, 0})
		if err != nil {
			return err
		}
		os, err := e.constI32(n.Name+"/output_shape", []int32{4}, []int32{int32(ys[0]), int32(full[0]), int32(full[1]), int32(per)})
		if err != nil {
			return err
		}
		// The bias is an ADD after the op, as TensorFlow's converter
		// writes it: runtimes before TFLite 2.5 take three inputs.
		raw := outs[j]
		if hasBias {
			if raw, err = e.scratch(n.Name+"/unbiased", e.m.tensors[outs[j]].shape, dt); err != nil {
				return err
			}
		}
		e.emit(tflitefb.BuiltinOperatorTRANSPOSE_CONV, []int32{os, wf, ins[j]}, []int32{raw}, tflitefb.BuiltinOptionsTransposeConvOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.TransposeConvOptionsStart(b)
			tflitefb.TransposeConvOptionsAddPadding(b, pad)
			tflitefb.TransposeConvOptionsAddStrideH(b, int32(s[0]))
			tflitefb.TransposeConvOptionsAddStrideW(b, int32(s[1]))
			return tflitefb.TransposeConvOptionsEnd(b)
		})
		if hasBias {
			bf, err := e.constF32(n.Name+"/bias", []int32{1, 1, 1, int32(per)}, bias[j*per:(j+1)*per])
			if err != nil {
				return err
			}
			e.binaryOp(tflitefb.BuiltinOperatorADD, raw, bf, outs[j], 0)
		}
	}
	if g > 1 {
		e.concat(outs, out, 3)
	}
	if cropped {
		return e.slice4(n, out, final, []int32{0, int32(pb[0]), int32(pb[1]), 0}, []int32{int32(ys[0]), int32(ys[2]), int32(ys[3]), int32(cout)})
	}
	return nil
}

// slice4 writes STRIDED_SLICE of begin and size (stride 1).
func (e *exporter) slice4(n *canon.Node, in, out int32, begin, size []int32) error {
	end := make([]int32, len(begin))
	ones := make([]int32, len(begin))
	for i := range end {
		end[i], ones[i] = begin[i]+size[i], 1
	}
	bt, err := e.constI32(n.Name+"/begin", []int32{int32(len(begin))}, begin)
	if err != nil {
		return err
	}
	et, err := e.constI32(n.Name+"/end", []int32{int32(len(end))}, end)
	if err != nil {
		return err
	}
	st, err := e.constI32(n.Name+"/strides", []int32{int32(len(ones))}, ones)
	if err != nil {
		return err
	}
	e.emit(tflitefb.BuiltinOperatorSTRIDED_SLICE, []int32{in, bt, et, st}, []int32{out}, tflitefb.BuiltinOptionsStridedSliceOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.StridedSliceOptionsStart(b)
		return tflitefb.StridedSliceOptionsEnd(b)
	})
	return nil
}

func poolOptions(pad tflitefb.Padding, w window2D) func(*flatbuffers.Builder) flatbuffers.UOffsetT {
	return func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.Pool2DOptionsStart(b)
		tflitefb.Pool2DOptionsAddPadding(b, pad)
		tflitefb.Pool2DOptionsAddStrideH(b, int32(w.s[0]))
		tflitefb.Pool2DOptionsAddStrideW(b, int32(w.s[1]))
		tflitefb.Pool2DOptionsAddFilterHeight(b, int32(w.k[0]))
		tflitefb.Pool2DOptionsAddFilterWidth(b, int32(w.k[1]))
		return tflitefb.Pool2DOptionsEnd(b)
	}
}

// ceilExtra is how much more end padding each axis needs for the output
// size the model has (ceil mode) over the floor-mode one.
func (w window2D) ceilExtra() [2]int64 {
	var ex [2]int64
	for i := 0; i < 2; i++ {
		need := (w.out[i]-1)*w.s[i] + w.effK(i) - (w.in[i] + w.pb[i] + w.pe[i])
		if need > 0 {
			ex[i] = need
		}
	}
	return ex
}

func writeMaxPool(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.MaxPool)
	if len(n.Outputs) > 1 && n.Outputs[1] != "" && len(e.consumers[n.Outputs[1]]) > 0 || len(n.Outputs) > 1 && e.isOutput[n.Outputs[1]] {
		return nodeErr(n, "its indices output is used; TFLite's MAX_POOL_2D has none")
	}
	w, xs, err := e.geometry(n, op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd)
	if err != nil {
		return err
	}
	if w.d != [2]int64{1, 1} {
		return nodeErr(n, "dilation %v: TFLite's MAX_POOL_2D has none", op.Dilations)
	}
	x, err := e.input(n.Inputs[0], nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	pad, ok := w.padding()
	if !ok {
		// Padding with -inf never wins a maximum: the same as ONNX's
		// windows clipped to the input, ceil mode's included.
		fill := float32(math.Inf(-1))
		if e.nonNegative(n.Inputs[0]) {
			// Zeros never win over values >= 0 either, and PAD is read
			// by more runtimes than PADV2.
			fill = 0
		}
		if x, err = e.explicitPad(n, x, xs, w, w.ceilExtra(), fill); err != nil {
			return err
		}
		pad = tflitefb.PaddingVALID
	}
	out, err := e.define(n.Outputs[0], nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.emit(tflitefb.BuiltinOperatorMAX_POOL_2D, []int32{x}, []int32{out}, tflitefb.BuiltinOptionsPool2DOptions, poolOptions(pad, w))
	return nil
}

func writeAveragePool(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.AveragePool)
	w, xs, err := e.geometry(n, op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd)
	if err != nil {
		return err
	}
	if w.d != [2]int64{1, 1} {
		return nodeErr(n, "dilation %v: TFLite's AVERAGE_POOL_2D has none", op.Dilations)
	}
	x, err := e.input(n.Inputs[0], nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	pad, ok := w.padding()
	if pad == tflitefb.PaddingSAME && op.CountIncludePad {
		ok = false // TFLite's SAME averages over the input pixels only
	}
	if !ok {
		if w.ceilExtra() != [2]int64{} {
			return nodeErr(n, "ceil mode adds windows that overhang the input, whose divisor TFLite's AVERAGE_POOL_2D cannot match")
		}
		if x, err = e.explicitPad(n, x, xs, w, [2]int64{}, 0); err != nil {
			return err
		}
		pad = tflitefb.PaddingVALID
		if !op.CountIncludePad {
			return e.averageExcludingPads(n, x, w)
		}
	}
	out, err := e.define(n.Outputs[0], nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.emit(tflitefb.BuiltinOperatorAVERAGE_POOL_2D, []int32{x}, []int32{out}, tflitefb.BuiltinOptionsPool2DOptions, poolOptions(pad, w))
	return nil
}

// averageExcludingPads averages zero-padded x over whole windows, then
// rescales each output pixel by k·k / (input pixels in its window): the
// average over the input pixels only, as ONNX's count_include_pad=0.
func (e *exporter) averageExcludingPads(n *canon.Node, x int32, w window2D) error {
	ys, err := e.shape(n.Outputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	inside := func(i int, o int64) int64 {
		lo := o*w.s[i] - w.pb[i]
		hi := lo + w.k[i]
		return max(0, min(hi, w.in[i])-max(lo, 0))
	}
	scale := make([]float32, w.out[0]*w.out[1])
	for oh := int64(0); oh < w.out[0]; oh++ {
		for ow := int64(0); ow < w.out[1]; ow++ {
			cnt := inside(0, oh) * inside(1, ow)
			if cnt == 0 {
				return nodeErr(n, "a window covers only padding, whose average ONNX leaves undefined")
			}
			scale[oh*w.out[1]+ow] = float32(w.k[0]*w.k[1]) / float32(cnt)
		}
	}
	mid, err := e.scratch(n.Name+"/padded_avg", fileShape(ys, nhwc), e.dtype(n.Inputs[0]))
	if err != nil {
		return err
	}
	e.emit(tflitefb.BuiltinOperatorAVERAGE_POOL_2D, []int32{x}, []int32{mid}, tflitefb.BuiltinOptionsPool2DOptions, poolOptions(tflitefb.PaddingVALID, w))
	st, err := e.constF32(n.Name+"/divisor", []int32{1, int32(w.out[0]), int32(w.out[1]), 1}, scale)
	if err != nil {
		return err
	}
	out, err := e.define(n.Outputs[0], nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.binaryOp(tflitefb.BuiltinOperatorMUL, mid, st, out, 0)
	return nil
}

func spatialAxes(e *exporter, n *canon.Node) []int64 {
	s, _ := e.shape(n.Inputs[0])
	var ax []int64
	for i := 2; i < len(s); i++ {
		ax = append(ax, int64(i))
	}
	return ax
}

func writeBatchNorm(e *exporter, n *canon.Node) error {
	ab, err := bnAffine(e, n, n.Op.(*canon.BatchNorm))
	if err != nil {
		return err
	}
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	r := len(xs)
	if r < 2 {
		return nodeErr(n, "input of rank %d has no channel axis", r)
	}
	perm := natural(r)
	cs := make([]int64, r)
	for i := range cs {
		cs[i] = 1
	}
	cs[1] = xs[1]
	x, err := e.input(n.Inputs[0], perm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	a, err := e.constF32(n.Name+"/scale", fileShape(cs, perm), ab[0])
	if err != nil {
		return err
	}
	b, err := e.constF32(n.Name+"/shift", fileShape(cs, perm), ab[1])
	if err != nil {
		return err
	}
	mid, err := e.scratch(n.Name+"/scaled", fileShape(xs, perm), e.dtype(n.Inputs[0]))
	if err != nil {
		return err
	}
	out, err := e.define(n.Outputs[0], perm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.binaryOp(tflitefb.BuiltinOperatorMUL, x, a, mid, 0)
	e.binaryOp(tflitefb.BuiltinOperatorADD, mid, b, out, 0)
	return nil
}

// dilateKernel spreads a 4-D kernel's taps dh, dw apart with zeros.
func dilateKernel(wt *canon.Tensor, dh, dw int64) (*canon.Tensor, error) {
	v, err := floats(wt)
	if err != nil {
		return nil, err
	}
	a, b, kh, kw := wt.Shape[0], wt.Shape[1], wt.Shape[2], wt.Shape[3]
	nh, nw := (kh-1)*dh+1, (kw-1)*dw+1
	out := make([]float32, a*b*nh*nw)
	for p := int64(0); p < a*b; p++ {
		for i := int64(0); i < kh; i++ {
			for j := int64(0); j < kw; j++ {
				out[(p*nh+i*dh)*nw+j*dw] = v[(p*kh+i)*kw+j]
			}
		}
	}
	t := canon.NewFloat32Tensor(wt.Name+"/dilated", []int64{a, b, nh, nw}, out)
	t.Layout = wt.Layout
	return t, nil
}
