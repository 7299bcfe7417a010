package caffeimport

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/caffepb"
)

// layerConv converts one Caffe layer type. tops is the number of tops it
// needs (-1: any), bottoms the number of bottoms (0: at least minBottoms).
type layerConv struct {
	fn                    func(c *layerCtx) ([]string, error)
	tops, bottoms, minBot int
	kinds                 []string // canonical kinds it may produce
}

func (l layerConv) arity() string {
	b := fmt.Sprintf("%d bottoms", l.bottoms)
	if l.bottoms == 0 {
		b = fmt.Sprintf("at least %d bottoms", l.minBot)
	}
	if l.tops < 0 {
		return b
	}
	return fmt.Sprintf("%s and %d tops", b, l.tops)
}

var layerTable map[string]layerConv

func init() {
	one := func(fn func(*layerCtx) ([]string, error), kinds ...string) layerConv {
		return layerConv{fn: fn, tops: 1, bottoms: 1, kinds: kinds}
	}
	un := func(op func(c *layerCtx) canon.Op, kind string) layerConv {
		return one(func(c *layerCtx) ([]string, error) { return c.unary(op(c)) }, kind)
	}
	layerTable = map[string]layerConv{
		"Convolution":   one(convolution, "Conv"),
		"Deconvolution": one(deconvolution, "ConvTranspose"),
		"Pooling":       one(pooling, "MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool"),
		"InnerProduct":  one(innerProduct, "Linear", "Flatten", "Reshape"),
		"BatchNorm":     one(batchNorm, "BatchNormalization"),
		"Scale":         {fn: scaleLayer, tops: 1, minBot: 1, kinds: []string{"Mul", "Add", "Reshape"}},
		"Bias":          {fn: biasLayer, tops: 1, minBot: 1, kinds: []string{"Add", "Reshape"}},
		"ReLU":          one(relu, "Relu", "LeakyRelu"),
		"PReLU":         one(prelu, "PRelu"),
		"Sigmoid":       un(func(*layerCtx) canon.Op { return &canon.Unary{Fn: canon.Sigmoid} }, "Sigmoid"),
		"TanH":          un(func(*layerCtx) canon.Op { return &canon.Unary{Fn: canon.Tanh} }, "Tanh"),
		"BNLL":          un(func(*layerCtx) canon.Op { return &canon.Unary{Fn: canon.Softplus} }, "Softplus"),
		"ELU": un(func(c *layerCtx) canon.Op {
			return &canon.Elu{Alpha: c.l.GetEluParam().GetAlpha()}
		}, "Elu"),
		"Clip": un(func(c *layerCtx) canon.Op {
			return &canon.Clip{Min: c.l.GetClipParam().GetMin(), Max: c.l.GetClipParam().GetMax()}
		}, "Clip"),
		"Swish":    one(swish, "Sigmoid", "Mul"),
		"AbsVal":   one(absVal, "Abs"),
		"Exp":      one(expLayer, "Exp", "Mul", "Add"),
		"Log":      one(logLayer, "Log", "Mul", "Add"),
		"Power":    one(power, "Pow", "Mul", "Add", "Identity"),
		"Eltwise":  {fn: eltwise, tops: 1, minBot: 1, kinds: []string{"Add", "Sub", "Mul", "Max", "Identity"}},
		"Concat":   {fn: concat, tops: 1, minBot: 1, kinds: []string{"Concat"}},
		"Slice":    {fn: slice, tops: -1, bottoms: 1, kinds: []string{"Split"}},
		"Split":    {fn: split, tops: -1, bottoms: 1},
		"Silence":  {fn: func(*layerCtx) ([]string, error) { return nil, nil }, tops: 0, minBot: 1},
		"Flatten":  one(flatten, "Flatten", "Reshape"),
		"Reshape":  one(reshape, "Reshape"),
		"Crop":     {fn: crop, tops: 1, bottoms: 2, kinds: []string{"Slice"}},
		"Softmax":  one(softmax, "Softmax"),
		"Dropout":  {fn: dropout, tops: 1, bottoms: 1},
		"LRN":      one(lrn, "LRN", "Mul", "Add", "AveragePool", "Pow"),
		"MVN":      one(mvn, "MeanVarianceNormalization", "ReduceMean", "Sub", "Mul", "Sqrt", "Add", "Div"),
		"Identity": {fn: split, tops: 1, bottoms: 1},
	}
}

// unsupported names the Caffe layers that are refused, and why.
var unsupported = map[string]string{
	"Data": dataLayer, "ImageData": dataLayer, "HDF5Data": dataLayer, "MemoryData": dataLayer,
	"WindowData": dataLayer, "DummyData": dataLayer, "Python": "a Python layer runs user code that is not in the files",
	"SoftmaxWithLoss": lossLayer, "EuclideanLoss": lossLayer, "HingeLoss": lossLayer, "InfogainLoss": lossLayer,
	"MultinomialLogisticLoss": lossLayer, "SigmoidCrossEntropyLoss": lossLayer, "ContrastiveLoss": lossLayer,
	"Accuracy": lossLayer, "HDF5Output": "it writes files during training",
	"Threshold": "it needs comparison and cast ops the canonical IR does not have in this build",
	"ArgMax":    "it needs an ArgMax/TopK op the canonical IR does not have in this build",
}

const (
	dataLayer = "a data source for training; read a deploy prototxt, whose inputs are Input layers or input:/input_dim:"
	lossLayer = "a training-only loss or metric; read the deploy prototxt"
)

// Ops is the importer's coverage: the canonical kinds its layers produce,
// and the kinds no BVLC Caffe layer reads as (lacks). A kind in neither is
// a gap that the op-matrix test reports.
func Ops() canon.Coverage {
	byKind := map[string][]string{}
	for name, l := range layerTable {
		for _, k := range l.kinds {
			if canon.Lookup(k) != nil {
				byKind[k] = append(byKind[k], name)
			}
		}
	}
	cov := canon.Coverage{}
	for k, why := range lacks {
		cov[k] = canon.Lacks(why)
	}
	for k, names := range byKind {
		sort.Strings(names)
		cov[k] = canon.Handles(strings.Join(names, ", "))
	}
	return cov
}

// opNamed makes an op of a kind other families register (Exp, Pow, Max...),
// refusing the layer by name when this build lacks it.
func (c *layerCtx) opNamed(kind string) (canon.Op, error) {
	d := canon.Lookup(kind)
	if d == nil {
		return nil, c.errf("needs the canonical %s op, which this build of modelbridge does not have", kind)
	}
	return d.New(), nil
}

// spatial resolves a repeated size with its _h/_w spelling to one value
// per spatial axis; def < 0 means the value is required.
func (c *layerCtx) spatial(what string, rep []uint32, h, w *uint32, nd int, def int64) ([]int64, error) {
	out := make([]int64, nd)
	if h != nil || w != nil {
		if nd != 2 {
			return nil, c.errf("%s_h/%s_w are for 2-D inputs; this one has %d spatial axes", what, what, nd)
		}
		if len(rep) > 0 {
			return nil, c.errf("gives both %s and %s_h/%s_w", what, what, what)
		}
		if h == nil || w == nil {
			if def < 0 {
				return nil, c.errf("gives only one of %s_h and %s_w", what, what)
			}
			out[0], out[1] = def, def
		}
		if h != nil {
			out[0] = int64(*h)
		}
		if w != nil {
			out[1] = int64(*w)
		}
		return out, nil
	}
	switch len(rep) {
	case 0:
		if def < 0 {
			return nil, c.errf("gives no %s", what)
		}
		for i := range out {
			out[i] = def
		}
	case 1:
		for i := range out {
			out[i] = int64(rep[0])
		}
	case nd:
		for i := range out {
			out[i] = int64(rep[i])
		}
	default:
		return nil, c.errf("gives %d values of %s for %d spatial axes", len(rep), what, nd)
	}
	return out, nil
}

func one32(p *uint32) []uint32 {
	if p == nil {
		return nil
	}
	return []uint32{*p}
}

// convGeometry reads the shared Convolution/Deconvolution parameters.
func (c *layerCtx) convGeometry(p *caffepb.ConvolutionParameter) (xs, kernel, stride, pad, dil []int64, err error) {
	if p.GetAxis() != 1 {
		return nil, nil, nil, nil, nil, c.errf("axis %d: only channels on axis 1 are supported", p.GetAxis())
	}
	if xs, err = c.shape(0, c.l.GetType()); err != nil {
		return
	}
	nd := len(xs) - 2
	if nd < 1 || nd > 3 {
		return nil, nil, nil, nil, nil, c.errf("input has rank %d, want 3 to 5 (N, C, spatial...)", len(xs))
	}
	if xs[1] < 0 {
		return nil, nil, nil, nil, nil, c.errf("the input's channel count is unknown; pass the input shapes")
	}
	if kernel, err = c.spatial("kernel", p.KernelSize, p.KernelH, p.KernelW, nd, -1); err != nil {
		return
	}
	if stride, err = c.spatial("stride", p.Stride, p.StrideH, p.StrideW, nd, 1); err != nil {
		return
	}
	if pad, err = c.spatial("pad", p.Pad, p.PadH, p.PadW, nd, 0); err != nil {
		return
	}
	if dil, err = c.spatial("dilation", p.Dilation, nil, nil, nd, 1); err != nil {
		return
	}
	for i := range kernel {
		if kernel[i] < 1 || stride[i] < 1 || dil[i] < 1 {
			return nil, nil, nil, nil, nil, c.errf("kernel %v, stride %v and dilation %v must be positive", kernel, stride, dil)
		}
	}
	return
}

func convolution(c *layerCtx) ([]string, error) {
	p := c.l.GetConvolutionParam()
	if p == nil {
		p = &caffepb.ConvolutionParameter{} // every field at its default
	}
	xs, kernel, stride, pad, dil, err := c.convGeometry(p)
	if err != nil {
		return nil, err
	}
	group, nout := int64(p.GetGroup()), int64(p.GetNumOutput())
	if group < 1 || nout < 1 || xs[1]%group != 0 || nout%group != 0 {
		return nil, c.errf("num_output %d and the %d input channels must both be positive multiples of group %d", nout, xs[1], group)
	}
	w, err := c.weights(0, "weight", canon.RoleConvWeight, append([]int64{nout, xs[1] / group}, kernel...))
	if err != nil {
		return nil, err
	}
	ins := []string{c.ins[0], w}
	if p.GetBiasTerm() {
		bias, err := c.weights(1, "bias", canon.RoleBias, []int64{nout})
		if err != nil {
			return nil, err
		}
		ins = append(ins, bias)
	}
	op := &canon.Conv{Strides: stride, Dilations: dil, PadsBegin: pad, PadsEnd: append([]int64{}, pad...), Group: group}
	return c.outs, c.emit(c.l.GetName(), op, ins, c.outs[0])
}

// deconvolution: Caffe stores the weights as (C_in, C_out/group, k...),
// the canonical IO layout, and num_output is C_out.
func deconvolution(c *layerCtx) ([]string, error) {
	p := c.l.GetConvolutionParam()
	if p == nil {
		p = &caffepb.ConvolutionParameter{} // every field at its default
	}
	xs, kernel, stride, pad, dil, err := c.convGeometry(p)
	if err != nil {
		return nil, err
	}
	group, nout := int64(p.GetGroup()), int64(p.GetNumOutput())
	if group < 1 || nout < 1 || xs[1]%group != 0 || nout%group != 0 {
		return nil, c.errf("num_output %d and the %d input channels must both be positive multiples of group %d", nout, xs[1], group)
	}
	w, err := c.weights(0, "weight", canon.RoleDeconvWeight, append([]int64{xs[1], nout / group}, kernel...))
	if err != nil {
		return nil, err
	}
	ins := []string{c.ins[0], w}
	if p.GetBiasTerm() {
		bias, err := c.weights(1, "bias", canon.RoleBias, []int64{nout})
		if err != nil {
			return nil, err
		}
		ins = append(ins, bias)
	}
	op := &canon.ConvTranspose{Strides: stride, Dilations: dil, PadsBegin: pad, PadsEnd: append([]int64{}, pad...),
		OutputPadding: make([]int64, len(pad)), Group: group}
	return c.outs, c.emit(c.l.GetName(), op, ins, c.outs[0])
}

// caffePooledSize is Caffe's PoolingLayer::Reshape: ceil (or floor) of
// the window count, then the last window dropped when it would start in
// the end padding.
func caffePooledSize(in, k, s, pad int64, ceil bool) int64 {
	span := in + 2*pad - k
	var out int64
	if ceil {
		out = (span+s-1)/s + 1
	} else {
		out = span/s + 1
	}
	if pad > 0 && (out-1)*s >= in+pad {
		out--
	}
	return out
}

// pooling resolves Caffe's pooling. Its output size (ceil, with a last
// window starting in the end padding dropped) is the canonical CeilMode
// rule with symmetric pads, and its AVE divisor (the window clipped to the
// padded input, so padding counts but the ceil overhang beyond it does
// not) is the canonical CountIncludePad divisor. CeilMode is set only
// where it changes the size, so most pools export as plain floor pools.
func pooling(c *layerCtx) ([]string, error) {
	p := c.l.GetPoolingParam()
	if p == nil {
		p = &caffepb.PoolingParameter{} // every field at its default
	}
	xs, err := c.shape(0, "Pooling")
	if err != nil {
		return nil, err
	}
	if len(xs) != 4 {
		return nil, c.errf("input has rank %d; Caffe pools 4-D (N, C, H, W) blobs", len(xs))
	}
	method := p.GetPool()
	if method == caffepb.PoolingParameter_STOCHASTIC {
		return nil, c.errf("STOCHASTIC pooling is not supported (its inference form, a value-weighted average, has no canonical op)")
	}
	isMax := method == caffepb.PoolingParameter_MAX
	pad, err := c.spatial("pad", one32(p.Pad), p.PadH, p.PadW, 2, 0)
	if err != nil {
		return nil, err
	}
	stride, err := c.spatial("stride", one32(p.Stride), p.StrideH, p.StrideW, 2, 1)
	if err != nil {
		return nil, err
	}
	if p.GetGlobalPooling() {
		if pad[0] != 0 || pad[1] != 0 || stride[0] != 1 || stride[1] != 1 {
			return nil, c.errf("global pooling takes no pad and stride 1 (Caffe checks this)")
		}
		if p.KernelSize != nil || p.KernelH != nil || p.KernelW != nil {
			return nil, c.errf("global pooling takes no kernel size")
		}
		if isMax {
			return c.unary(&canon.GlobalMaxPool{})
		}
		return c.unary(&canon.GlobalAveragePool{})
	}
	kernel, err := c.spatial("kernel", one32(p.KernelSize), p.KernelH, p.KernelW, 2, -1)
	if err != nil {
		return nil, err
	}
	ceil := p.GetRoundMode() == caffepb.PoolingParameter_CEIL
	useCeil := false
	for i := range kernel {
		if kernel[i] < 1 || stride[i] < 1 {
			return nil, c.errf("kernel %v and stride %v must be positive", kernel, stride)
		}
		if pad[i] >= kernel[i] {
			return nil, c.errf("pad %v must be smaller than the kernel %v (Caffe checks this)", pad, kernel)
		}
		in := xs[2+i]
		if in < 0 {
			useCeil = useCeil || ceil // the canonical rule is Caffe's; keep it
			continue
		}
		if in+2*pad[i] < kernel[i] {
			return nil, c.errf("kernel %v is larger than the padded input %v", kernel, xs[2:])
		}
		if caffePooledSize(in, kernel[i], stride[i], pad[i], ceil) != caffePooledSize(in, kernel[i], stride[i], pad[i], false) {
			useCeil = true
		}
	}
	ones := []int64{1, 1}
	var op canon.Op
	if isMax {
		op = &canon.MaxPool{Kernel: kernel, Strides: stride, Dilations: ones, PadsBegin: pad, PadsEnd: append([]int64{}, pad...), CeilMode: useCeil}
	} else {
		op = &canon.AveragePool{Kernel: kernel, Strides: stride, Dilations: ones, PadsBegin: pad, PadsEnd: append([]int64{}, pad...), CeilMode: useCeil, CountIncludePad: true}
	}
	return c.unary(op)
}

// innerProduct flattens from axis, multiplies by W (N, K), or by its
// transpose when transpose is set, and restores the leading dims.
func innerProduct(c *layerCtx) ([]string, error) {
	p := c.l.GetInnerProductParam()
	if p == nil {
		p = &caffepb.InnerProductParameter{} // every field at its default
	}
	xs, err := c.shape(0, "InnerProduct")
	if err != nil {
		return nil, err
	}
	ax, err := c.axis(p.GetAxis(), len(xs), "axis")
	if err != nil {
		return nil, err
	}
	k := int64(1)
	for _, d := range xs[ax:] {
		if d < 0 {
			return nil, c.errf("the input dims from axis %d are not all known (%v); pass the input shapes", ax, xs)
		}
		k *= d
		if k > 1<<40 {
			return nil, c.errf("input %v is too large", xs)
		}
	}
	n := int64(p.GetNumOutput())
	if n < 1 {
		return nil, c.errf("num_output must be positive")
	}
	var w string
	if p.GetTranspose() && c.b.blobs != nil {
		// Stored (K, N): transpose once, into the canonical OI.
		vals, err := c.blobFloats(0, "weight", k*n)
		if err != nil {
			return nil, err
		}
		if raw, _ := c.blob(0, "weight"); !sameShape(raw.Shape(), []int64{k, n}) {
			return nil, c.errf("its weight (blob 0) has shape %v, but with transpose the layer needs %v", raw.Shape(), []int64{k, n})
		}
		t := make([]float32, k*n)
		for i := int64(0); i < k; i++ {
			for j := int64(0); j < n; j++ {
				t[j*k+i] = vals[i*n+j]
			}
		}
		if w, err = c.constant("weight", []int64{n, k}, t); err != nil {
			return nil, err
		}
	} else if w, err = c.weights(0, "weight", canon.RoleLinearWeight, []int64{n, k}); err != nil {
		return nil, err
	}
	ins := []string{"", w}
	if p.GetBiasTerm() {
		bias, err := c.weights(1, "bias", canon.RoleData, []int64{n})
		if err != nil {
			return nil, err
		}
		ins = append(ins, bias)
	}
	x := c.ins[0]
	if !(len(xs) == 2 && ax == 1) {
		flat := c.tmp("flat")
		if err := c.emit(c.l.GetName()+"_flatten", &canon.Flatten{Axis: int64(ax)}, []string{x}, flat); err != nil {
			return nil, err
		}
		x = flat
	}
	ins[0] = x
	if ax == 1 {
		return c.outs, c.emit(c.l.GetName(), &canon.Linear{Alpha: 1, Beta: 1}, ins, c.outs[0])
	}
	mm := c.tmp("2d")
	if err := c.emit(c.l.GetName(), &canon.Linear{Alpha: 1, Beta: 1}, ins, mm); err != nil {
		return nil, err
	}
	// The output keeps the dims before axis and ends in num_output. The
	// product is 2-D, so Reshape's 0 (copy a dim) cannot name them: they
	// are written out, one unknown dim at most (as -1).
	shape := make([]int64, 0, ax+1)
	unknown := 0
	for _, d := range xs[:ax] {
		if d < 0 {
			unknown++
			d = -1
		}
		shape = append(shape, d)
	}
	if unknown > 1 {
		return nil, c.errf("the input dims before axis %d are not known (%v); pass the input shapes (--input-shape data=1,3,224,224)", ax, xs)
	}
	shape = append(shape, n)
	return c.outs, c.emit(c.l.GetName()+"_reshape", &canon.Reshape{Shape: shape}, []string{mm}, c.outs[0])
}

// batchNorm: Caffe's blobs are the mean and variance sums and a scale
// factor; the statistics are the sums divided by it (0 when it is 0). The
// layer has no affine part (a Scale layer follows), so scale is 1 and
// bias 0.
func batchNorm(c *layerCtx) ([]string, error) {
	p := c.l.GetBatchNormParam()
	if p == nil {
		p = &caffepb.BatchNormParameter{} // every field at its default
	}
	if p.UseGlobalStats != nil && !p.GetUseGlobalStats() {
		return nil, c.errf("use_global_stats is false, so Caffe normalizes with each batch's statistics; set it to true (or remove it) for inference")
	}
	xs, err := c.shape(0, "BatchNorm")
	if err != nil {
		return nil, err
	}
	if len(xs) < 2 || xs[1] < 0 {
		return nil, c.errf("input %v needs a known channel axis 1", xs)
	}
	ch := xs[1]
	var mean, variance string
	if c.b.blobs == nil {
		if mean, err = c.weights(0, "mean", canon.RoleChannel, []int64{ch}); err != nil {
			return nil, err
		}
		if variance, err = c.weights(1, "variance", canon.RoleChannel, []int64{ch}); err != nil {
			return nil, err
		}
	} else {
		f, err := c.blobFloats(2, "scale factor", 1)
		if err != nil {
			return nil, err
		}
		s := float32(0)
		if f[0] != 0 {
			s = 1 / f[0]
		}
		m, err := c.blobFloats(0, "mean", ch)
		if err != nil {
			return nil, err
		}
		v, err := c.blobFloats(1, "variance", ch)
		if err != nil {
			return nil, err
		}
		for i := range m {
			m[i] *= s
			v[i] *= s
		}
		if mean, err = c.constant("mean", []int64{ch}, m); err != nil {
			return nil, err
		}
		if variance, err = c.constant("variance", []int64{ch}, v); err != nil {
			return nil, err
		}
	}
	scale, err := c.filled("scale", []int64{ch}, 1)
	if err != nil {
		return nil, err
	}
	bias, err := c.filled("bias", []int64{ch}, 0)
	if err != nil {
		return nil, err
	}
	return c.unary2(&canon.BatchNorm{Epsilon: p.GetEps()}, []string{c.ins[0], scale, bias, mean, variance})
}

func (c *layerCtx) unary2(op canon.Op, ins []string) ([]string, error) {
	return c.outs, c.emit(c.l.GetName(), op, ins, c.outs[0])
}

// broadcastShape is the shape a Scale/Bias operand of dims s, applied from
// axis ax of a rank-r input, takes to broadcast NumPy-style: s followed by
// ones.
func broadcastShape(s []int64, ax, r int) []int64 {
	out := append([]int64{}, s...)
	for len(out) < r-ax {
		out = append(out, 1)
	}
	return out
}

// reshapeConst gives a constant made by weights() the broadcast shape (its
// data is unchanged).
func (c *layerCtx) reshapeConst(name string, shape []int64) {
	b := c.b
	if t := b.g.Initializer(name); t != nil {
		t.Shape = shape
		t.Layout = ""
		b.vals[name] = canon.ValueInfo{Name: name, DType: t.DType, Shape: canon.DimsOf(shape...), RankKnown: true, Const: t}
		return
	}
	for i := range b.g.Inputs {
		if b.g.Inputs[i].Name == name {
			b.g.Inputs[i].Shape = canon.DimsOf(shape...)
			b.vals[name] = b.g.Inputs[i]
		}
	}
}

// operand returns the Scale/Bias operand: the second bottom (reshaped to
// broadcast) or blob k of the dims the axis and num_axes select.
func (c *layerCtx) operand(k int, what string, axis, numAxes int32, bottom int) (string, error) {
	xs, err := c.shape(0, c.l.GetType())
	if err != nil {
		return "", err
	}
	ax, err := c.axis(axis, len(xs), "axis")
	if err != nil {
		return "", err
	}
	if bottom < len(c.ins) {
		ys, err := c.staticShape(bottom, c.l.GetType())
		if err != nil {
			return "", err
		}
		if ax+len(ys) > len(xs) {
			return "", c.errf("operand %v does not fit input %v from axis %d", ys, xs, ax)
		}
		shape := broadcastShape(ys, ax, len(xs))
		r := c.tmp(what)
		return r, c.emit(c.l.GetName()+"_"+what+"_reshape", &canon.Reshape{Shape: shape}, []string{c.ins[bottom]}, r)
	}
	n := int(numAxes)
	if n < 0 {
		n = len(xs) - ax
	}
	if ax+n > len(xs) {
		return "", c.errf("num_axes %d from axis %d does not fit a rank-%d input", numAxes, ax, len(xs))
	}
	dims := xs[ax : ax+n]
	v, err := c.weights(k, what, canon.RoleData, dims)
	if err != nil {
		return "", err
	}
	c.reshapeConst(v, broadcastShape(dims, ax, len(xs)))
	return v, nil
}

// scaleLayer multiplies by a learned (or second-bottom) scale broadcast
// from axis over num_axes dims, then adds the bias when bias_term is set.
func scaleLayer(c *layerCtx) ([]string, error) {
	p := c.l.GetScaleParam()
	if p == nil {
		p = &caffepb.ScaleParameter{} // every field at its default
	}
	if len(c.ins) > 2 {
		return nil, c.errf("takes one or two bottoms")
	}
	s, err := c.operand(0, "scale", p.GetAxis(), p.GetNumAxes(), 1)
	if err != nil {
		return nil, err
	}
	if !p.GetBiasTerm() {
		return c.unary2(&canon.Binary{Fn: canon.Mul}, []string{c.ins[0], s})
	}
	k := 1
	if len(c.ins) == 2 {
		k = 0
	}
	bias, err := c.operand(k, "bias", p.GetAxis(), p.GetNumAxes(), 99)
	if err != nil {
		return nil, err
	}
	if len(c.ins) == 2 {
		// The bias has the scale's shape, which the second bottom gave.
		ys, _ := c.b.shapeOf(s)
		c.reshapeConst(bias, ys)
	}
	m := c.tmp("scaled")
	if err := c.emit(c.l.GetName()+"_mul", &canon.Binary{Fn: canon.Mul}, []string{c.ins[0], s}, m); err != nil {
		return nil, err
	}
	return c.outs, c.emit(c.l.GetName(), &canon.Binary{Fn: canon.Add}, []string{m, bias}, c.outs[0])
}

func biasLayer(c *layerCtx) ([]string, error) {
	p := c.l.GetBiasParam()
	if p == nil {
		p = &caffepb.BiasParameter{} // every field at its default
	}
	if len(c.ins) > 2 {
		return nil, c.errf("takes one or two bottoms")
	}
	bias, err := c.operand(0, "bias", p.GetAxis(), p.GetNumAxes(), 1)
	if err != nil {
		return nil, err
	}
	return c.unary2(&canon.Binary{Fn: canon.Add}, []string{c.ins[0], bias})
}

func relu(c *layerCtx) ([]string, error) {
	if s := c.l.GetReluParam().GetNegativeSlope(); s != 0 {
		return c.unary(&canon.LeakyRelu{Alpha: s})
	}
	return c.unary(&canon.Unary{Fn: canon.Relu})
}

// prelu: the slope is (C,) or, channel_shared, (1,); it is reshaped to
// (C, 1, ...) to broadcast along axis 1.
func prelu(c *layerCtx) ([]string, error) {
	xs, err := c.shape(0, "PReLU")
	if err != nil {
		return nil, err
	}
	if len(xs) < 2 || xs[1] < 0 {
		return nil, c.errf("input %v needs a known channel axis 1", xs)
	}
	n := xs[1]
	if c.l.GetPreluParam().GetChannelShared() {
		n = 1
	}
	slope, err := c.weights(0, "slope", canon.RoleWeight, []int64{n})
	if err != nil {
		return nil, err
	}
	c.reshapeConst(slope, broadcastShape([]int64{n}, 1, len(xs)))
	return c.unary2(&canon.PRelu{}, []string{c.ins[0], slope})
}

func swish(c *layerCtx) ([]string, error) {
	x := c.ins[0]
	beta := c.l.GetSwishParam().GetBeta()
	bx, err := c.affine(x, beta, 0, "beta_x")
	if err != nil {
		return nil, err
	}
	s := c.tmp("sigmoid")
	if err := c.emit(c.l.GetName()+"_sigmoid", &canon.Unary{Fn: canon.Sigmoid}, []string{bx}, s); err != nil {
		return nil, err
	}
	return c.unary2(&canon.Binary{Fn: canon.Mul}, []string{x, s})
}

func absVal(c *layerCtx) ([]string, error) {
	op, err := c.opNamed("Abs")
	if err != nil {
		return nil, err
	}
	return c.unary(op)
}

// affine returns scale*x + shift, emitting only the ops that change x.
func (c *layerCtx) affine(x string, scale, shift float32, what string) (string, error) {
	if scale != 1 {
		s, err := c.scalar(what+"_scale", scale)
		if err != nil {
			return "", err
		}
		y := c.tmp(what + "_scaled")
		if err := c.emit(c.l.GetName()+"_scale", &canon.Binary{Fn: canon.Mul}, []string{x, s}, y); err != nil {
			return "", err
		}
		x = y
	}
	if shift != 0 {
		s, err := c.scalar(what+"_shift", shift)
		if err != nil {
			return "", err
		}
		y := c.tmp(what + "_shifted")
		if err := c.emit(c.l.GetName()+"_shift", &canon.Binary{Fn: canon.Add}, []string{x, s}, y); err != nil {
			return "", err
		}
		x = y
	}
	return x, nil
}

// finish writes v into the layer's top, with an Identity when v is the
// input itself (every op was a no-op).
func (c *layerCtx) finish(v string) ([]string, error) {
	if v == c.ins[0] {
		return c.unary(&canon.Identity{})
	}
	// Rename the last node's output to the top.
	last := c.b.g.Nodes[len(c.b.g.Nodes)-1]
	for i, o := range last.Outputs {
		if o == v {
			last.Outputs[i] = c.outs[0]
			vi := c.b.vals[v]
			vi.Name = c.outs[0]
			c.b.vals[c.outs[0]] = vi
			delete(c.b.vals, v)
			return c.outs, nil
		}
	}
	return nil, c.errf("internal: value %s is not the last node's output", v)
}

// expLayer: y = base^(shift + scale·x) = exp(ln(base)·(shift + scale·x));
// base -1 means e.
func expLayer(c *layerCtx) ([]string, error) {
	p := c.l.GetExpParam()
	if p == nil {
		p = &caffepb.ExpParameter{} // every field at its default
	}
	lnBase := float64(1)
	if b := p.GetBase(); b != -1 {
		if !(b > 0) {
			return nil, c.errf("base %g must be positive (or -1 for e)", b)
		}
		lnBase = math.Log(float64(b))
	}
	op, err := c.opNamed("Exp")
	if err != nil {
		return nil, err
	}
	a, err := c.affine(c.ins[0], float32(lnBase*float64(p.GetScale())), float32(lnBase*float64(p.GetShift())), "arg")
	if err != nil {
		return nil, err
	}
	return c.outs, c.emit(c.l.GetName(), op, []string{a}, c.outs[0])
}

// logLayer: y = log_base(shift + scale·x) = ln(shift + scale·x) / ln(base).
func logLayer(c *layerCtx) ([]string, error) {
	p := c.l.GetLogParam()
	if p == nil {
		p = &caffepb.LogParameter{} // every field at its default
	}
	op, err := c.opNamed("Log")
	if err != nil {
		return nil, err
	}
	a, err := c.affine(c.ins[0], p.GetScale(), p.GetShift(), "arg")
	if err != nil {
		return nil, err
	}
	if b := p.GetBase(); b != -1 {
		if !(b > 0) || b == 1 {
			return nil, c.errf("base %g must be positive and not 1 (or -1 for e)", b)
		}
		l := c.tmp("ln")
		if err := c.emit(c.l.GetName()+"_ln", op, []string{a}, l); err != nil {
			return nil, err
		}
		inv, err := c.scalar("inv_ln_base", float32(1/math.Log(float64(b))))
		if err != nil {
			return nil, err
		}
		return c.unary2(&canon.Binary{Fn: canon.Mul}, []string{l, inv})
	}
	return c.outs, c.emit(c.l.GetName(), op, []string{a}, c.outs[0])
}

// power: y = (shift + scale·x)^power. Caffe fills a constant when
// power·scale is 0.
func power(c *layerCtx) ([]string, error) {
	p := c.l.GetPowerParam()
	if p == nil {
		p = &caffepb.PowerParameter{} // every field at its default
	}
	pw, scale, shift := p.GetPower(), p.GetScale(), p.GetShift()
	if pw*scale == 0 {
		v := float32(1)
		if pw != 0 {
			v = float32(math.Pow(float64(shift), float64(pw)))
		}
		z, err := c.affine(c.ins[0], 0, v, "const")
		if err != nil {
			return nil, err
		}
		return c.finish(z)
	}
	a, err := c.affine(c.ins[0], scale, shift, "base")
	if err != nil {
		return nil, err
	}
	switch pw {
	case 1:
		return c.finish(a)
	case 2:
		return c.unary2(&canon.Binary{Fn: canon.Mul}, []string{a, a})
	}
	op, err := c.opNamed("Pow")
	if err != nil {
		return nil, err
	}
	e, err := c.scalar("exponent", pw)
	if err != nil {
		return nil, err
	}
	return c.unary2(op, []string{a, e})
}

func (c *layerCtx) sameShapes(what string) error {
	var first []int64
	for k := range c.ins {
		s, ok := c.b.vals[c.ins[k]].StaticShape()
		if !ok {
			continue
		}
		if first == nil {
			first = s
		} else if !sameShape(s, first) || len(s) != len(first) {
			return c.errf("%s needs bottoms of one shape; have %v and %v", what, first, s)
		}
	}
	return nil
}

// eltwise: SUM (with coefficients), PROD, MAX over same-shape bottoms.
func eltwise(c *layerCtx) ([]string, error) {
	p := c.l.GetEltwiseParam()
	if p == nil {
		p = &caffepb.EltwiseParameter{} // every field at its default
	}
	if err := c.sameShapes("Eltwise"); err != nil {
		return nil, err
	}
	coeff := p.Coeff
	if len(coeff) > 0 && (p.GetOperation() != caffepb.EltwiseParameter_SUM || len(coeff) != len(c.ins)) {
		return nil, c.errf("coeff is for SUM, one per bottom (have %d for %d bottoms)", len(coeff), len(c.ins))
	}
	if len(c.ins) == 1 {
		if len(coeff) == 1 && coeff[0] != 1 {
			s, err := c.scalar("coeff", coeff[0])
			if err != nil {
				return nil, err
			}
			return c.unary2(&canon.Binary{Fn: canon.Mul}, []string{c.ins[0], s})
		}
		return c.unary(&canon.Identity{})
	}
	var mk func() (canon.Op, error)
	switch p.GetOperation() {
	case caffepb.EltwiseParameter_SUM:
		mk = func() (canon.Op, error) { return &canon.Binary{Fn: canon.Add}, nil }
	case caffepb.EltwiseParameter_PROD:
		mk = func() (canon.Op, error) { return &canon.Binary{Fn: canon.Mul}, nil }
	case caffepb.EltwiseParameter_MAX:
		mk = func() (canon.Op, error) { return c.opNamed("Max") }
	default:
		return nil, c.errf("unknown operation %v", p.GetOperation())
	}
	term := func(k int) (string, error) {
		if len(coeff) == 0 || coeff[k] == 1 || (k > 0 && coeff[k] == -1) {
			return c.ins[k], nil
		}
		s, err := c.scalar(fmt.Sprintf("coeff%d", k), coeff[k])
		if err != nil {
			return "", err
		}
		y := c.tmp(fmt.Sprintf("term%d", k))
		return y, c.emit(fmt.Sprintf("%s_coeff%d", c.l.GetName(), k), &canon.Binary{Fn: canon.Mul}, []string{c.ins[k], s}, y)
	}
	acc, err := term(0)
	if err != nil {
		return nil, err
	}
	for k := 1; k < len(c.ins); k++ {
		t, err := term(k)
		if err != nil {
			return nil, err
		}
		op, err := mk()
		if err != nil {
			return nil, err
		}
		if len(coeff) > 0 && coeff[k] == -1 {
			op = &canon.Binary{Fn: canon.Sub} // exactly Caffe's axpy with -1
		}
		out := c.outs[0]
		if k < len(c.ins)-1 {
			out = c.tmp(fmt.Sprintf("acc%d", k))
		}
		name := c.l.GetName()
		if k < len(c.ins)-1 {
			name = fmt.Sprintf("%s_%d", name, k)
		}
		if err := c.emit(name, op, []string{acc, t}, out); err != nil {
			return nil, err
		}
		acc = out
	}
	return c.outs, nil
}

func concat(c *layerCtx) ([]string, error) {
	p := c.l.GetConcatParam()
	if p == nil {
		p = &caffepb.ConcatParameter{} // every field at its default
	}
	xs, err := c.shape(0, "Concat")
	if err != nil {
		return nil, err
	}
	a := p.GetAxis()
	if p.ConcatDim != nil {
		a = int32(p.GetConcatDim())
	}
	ax, err := c.axis(a, len(xs), "axis")
	if err != nil {
		return nil, err
	}
	if len(c.ins) == 1 {
		return c.unary(&canon.Identity{})
	}
	return c.unary2(&canon.Concat{Axis: int64(ax)}, c.ins)
}

// slice: slice_point gives the cut positions; without it the axis is cut
// into equal parts, one per top.
func slice(c *layerCtx) ([]string, error) {
	p := c.l.GetSliceParam()
	if p == nil {
		p = &caffepb.SliceParameter{} // every field at its default
	}
	if len(c.outs) < 1 {
		return nil, c.errf("has no tops")
	}
	xs, err := c.shape(0, "Slice")
	if err != nil {
		return nil, err
	}
	a := p.GetAxis()
	if p.SliceDim != nil {
		a = int32(p.GetSliceDim())
	}
	ax, err := c.axis(a, len(xs), "axis")
	if err != nil {
		return nil, err
	}
	dim := xs[ax]
	if dim < 0 {
		return nil, c.errf("the size of axis %d is unknown; pass the input shapes", ax)
	}
	n := int64(len(c.outs))
	var sizes []int64
	if len(p.SlicePoint) > 0 {
		if int64(len(p.SlicePoint)) != n-1 {
			return nil, c.errf("%d slice points for %d tops; want one fewer than the tops", len(p.SlicePoint), n)
		}
		prev := int64(0)
		for _, pt := range p.SlicePoint {
			if int64(pt) <= prev || int64(pt) >= dim {
				return nil, c.errf("slice points %v must increase strictly within (0, %d)", p.SlicePoint, dim)
			}
			sizes = append(sizes, int64(pt)-prev)
			prev = int64(pt)
		}
		sizes = append(sizes, dim-prev)
	} else {
		if dim%n != 0 {
			return nil, c.errf("axis %d of size %d does not split evenly into %d tops; give slice_point", ax, dim, n)
		}
		for range n {
			sizes = append(sizes, dim/n)
		}
	}
	if n == 1 {
		return c.unary(&canon.Identity{})
	}
	return c.outs, c.emit(c.l.GetName(), &canon.Split{Axis: int64(ax), Sizes: sizes}, []string{c.ins[0]}, c.outs...)
}

// split copies its bottom to every top: the tops are the same value.
func split(c *layerCtx) ([]string, error) {
	out := make([]string, len(c.outs))
	for i := range out {
		out[i] = c.ins[0]
	}
	return out, nil
}

func flatten(c *layerCtx) ([]string, error) {
	p := c.l.GetFlattenParam()
	if p == nil {
		p = &caffepb.FlattenParameter{} // every field at its default
	}
	xs, err := c.shape(0, "Flatten")
	if err != nil {
		return nil, err
	}
	ax, err := c.axis(p.GetAxis(), len(xs), "axis")
	if err != nil {
		return nil, err
	}
	end, err := c.axis(p.GetEndAxis(), len(xs), "end_axis")
	if err != nil {
		return nil, err
	}
	if end < ax {
		return nil, c.errf("end_axis %d is before axis %d", end, ax)
	}
	if ax == 1 && end == len(xs)-1 {
		return c.unary(&canon.Flatten{Axis: 1})
	}
	shape := make([]int64, 0, len(xs))
	for i := 0; i < ax; i++ {
		shape = append(shape, 0)
	}
	m := int64(1)
	for _, d := range xs[ax : end+1] {
		if d < 0 {
			m = -1
			break
		}
		m *= d
	}
	shape = append(shape, m)
	for _, d := range xs[end+1:] {
		if d < 0 {
			return nil, c.errf("the dims after end_axis must be known (%v); pass the input shapes", xs)
		}
		shape = append(shape, d)
	}
	return c.unary(&canon.Reshape{Shape: shape})
}

// reshape: the spec replaces dims [axis, axis+num_axes); within it 0
// copies the input dim at the same position and -1 is inferred.
func reshape(c *layerCtx) ([]string, error) {
	p := c.l.GetReshapeParam()
	if p == nil {
		p = &caffepb.ReshapeParameter{} // every field at its default
	}
	xs, err := c.shape(0, "Reshape")
	if err != nil {
		return nil, err
	}
	r := len(xs)
	ax := int(p.GetAxis())
	if ax < 0 {
		ax += r + 1
	}
	if ax < 0 || ax > r {
		return nil, c.errf("axis %d is out of range for a rank-%d input", p.GetAxis(), r)
	}
	na := int(p.GetNumAxes())
	if na == -1 {
		na = r - ax
	}
	if na < 0 || ax+na > r {
		return nil, c.errf("num_axes %d from axis %d does not fit a rank-%d input", p.GetNumAxes(), ax, r)
	}
	spec := p.GetShape().GetDim()
	if len(spec) > 32 {
		return nil, c.errf("shape has %d dims", len(spec))
	}
	shape := make([]int64, 0, r-na+len(spec))
	for i := 0; i < ax; i++ {
		shape = append(shape, 0)
	}
	infer := 0
	for i, d := range spec {
		switch {
		case d == 0:
			if ax+i >= r {
				return nil, c.errf("shape dim %d is 0 (copy), but the input has no dim %d", i, ax+i)
			}
		case d == -1:
			infer++
		case d < -1:
			return nil, c.errf("shape dim %d is %d", i, d)
		}
		shape = append(shape, d)
	}
	if infer > 1 {
		return nil, c.errf("shape %v infers more than one dim", spec)
	}
	for j, d := range xs[ax+na:] {
		if ax+len(spec)+j == ax+na+j {
			shape = append(shape, 0)
		} else if d < 0 {
			return nil, c.errf("the trailing dims %v must be known; pass the input shapes", xs[ax+na:])
		} else {
			shape = append(shape, d)
		}
	}
	// With a static input the shape is written out in full.
	if s, ok := c.b.vals[c.ins[0]].StaticShape(); ok {
		known, neg := int64(1), -1
		for i, d := range shape {
			if d == 0 {
				shape[i] = s[i]
			}
			if shape[i] == -1 {
				neg = i
			} else {
				known *= shape[i]
			}
		}
		if neg >= 0 && known > 0 {
			shape[neg] = canon.NumElements(s) / known
		}
	}
	return c.unary(&canon.Reshape{Shape: shape})
}

// crop cuts bottom 0 to bottom 1's dims from axis on, at the offsets.
func crop(c *layerCtx) ([]string, error) {
	p := c.l.GetCropParam()
	if p == nil {
		p = &caffepb.CropParameter{} // every field at its default
	}
	xs, err := c.staticShape(0, "Crop")
	if err != nil {
		return nil, err
	}
	ref, err := c.staticShape(1, "Crop")
	if err != nil {
		return nil, err
	}
	if len(ref) != len(xs) {
		return nil, c.errf("bottoms %v and %v have different ranks", xs, ref)
	}
	ax, err := c.axis(p.GetAxis(), len(xs), "axis")
	if err != nil {
		return nil, err
	}
	n := len(xs) - ax
	if len(p.Offset) != 0 && len(p.Offset) != 1 && len(p.Offset) != n {
		return nil, c.errf("%d offsets; want 0, 1 or %d", len(p.Offset), n)
	}
	op := &canon.Slice{}
	for i := 0; i < n; i++ {
		off := int64(0)
		switch len(p.Offset) {
		case 1:
			off = int64(p.Offset[0])
		case n:
			off = int64(p.Offset[i])
		}
		a := ax + i
		if off+ref[a] > xs[a] {
			return nil, c.errf("offset %d + size %d exceeds axis %d of size %d", off, ref[a], a, xs[a])
		}
		op.Starts = append(op.Starts, off)
		op.Ends = append(op.Ends, off+ref[a])
		op.Axes = append(op.Axes, int64(a))
		op.Steps = append(op.Steps, 1)
	}
	return c.outs, c.emit(c.l.GetName(), op, []string{c.ins[0]}, c.outs[0])
}

func softmax(c *layerCtx) ([]string, error) {
	xs, err := c.shape(0, "Softmax")
	if err != nil {
		return nil, err
	}
	ax, err := c.axis(c.l.GetSoftmaxParam().GetAxis(), len(xs), "axis")
	if err != nil {
		return nil, err
	}
	return c.unary(&canon.Softmax{Axis: int64(ax)})
}

// dropout is the identity at inference (BVLC Caffe scales at training).
func dropout(c *layerCtx) ([]string, error) { return split(c) }

// lrn: ACROSS_CHANNELS is the canonical LRN (both divide alpha by size).
// WITHIN_CHANNEL is Caffe's own composition: x · (1 + alpha·avg(x²))^-beta
// with the average over a size×size window padded by (size-1)/2, whose
// divisor is always size² (stride 1 never reaches past the padding).
func lrn(c *layerCtx) ([]string, error) {
	p := c.l.GetLrnParam()
	if p == nil {
		p = &caffepb.LRNParameter{} // every field at its default
	}
	size := int64(p.GetLocalSize())
	if size < 1 || size%2 == 0 {
		return nil, c.errf("local_size %d must be odd (Caffe checks this)", size)
	}
	if p.GetNormRegion() == caffepb.LRNParameter_ACROSS_CHANNELS {
		return c.unary(&canon.LRN{Size: size, Alpha: p.GetAlpha(), Beta: p.GetBeta(), Bias: p.GetK()})
	}
	pw, err := c.opNamed("Pow")
	if err != nil {
		return nil, err
	}
	x := c.ins[0]
	sq := c.tmp("sq")
	if err := c.emit(c.l.GetName()+"_sq", &canon.Binary{Fn: canon.Mul}, []string{x, x}, sq); err != nil {
		return nil, err
	}
	pad := (size - 1) / 2
	avg := c.tmp("avg")
	pool := &canon.AveragePool{Kernel: []int64{size, size}, Strides: []int64{1, 1}, Dilations: []int64{1, 1},
		PadsBegin: []int64{pad, pad}, PadsEnd: []int64{pad, pad}, CountIncludePad: true}
	if err := c.emit(c.l.GetName()+"_pool", pool, []string{sq}, avg); err != nil {
		return nil, err
	}
	base, err := c.affine(avg, p.GetAlpha(), 1, "base")
	if err != nil {
		return nil, err
	}
	e, err := c.scalar("exponent", -p.GetBeta())
	if err != nil {
		return nil, err
	}
	den := c.tmp("factor")
	if err := c.emit(c.l.GetName()+"_pow", pw, []string{base, e}, den); err != nil {
		return nil, err
	}
	return c.unary2(&canon.Binary{Fn: canon.Mul}, []string{x, den})
}

// SourceOps maps each Caffe layer type the importer reads to the canonical
// kinds it becomes.
func SourceOps() map[string][]string {
	out := map[string][]string{}
	for name, l := range layerTable {
		out[name] = l.kinds
	}
	return out
}
