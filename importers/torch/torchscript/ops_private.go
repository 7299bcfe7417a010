package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The underscore-prefixed aten operators (and a few others) that older
// archives and torch.onnx's registry name: each is an exact expansion into
// canonical ops that other handlers already emit.
func init() {
	entries := map[string]opEntry{
		"torch._log_softmax":         entry(opPrivateLogSoftmax, "LogSoftmax"),
		"torch._dim_arange":          entry(opDimArange, "Shape", "Squeeze", "Range"),
		"torch._pad_circular":        entry(opPadCircular, "Slice", "Concat"),
		"torch._reshape_from_tensor": entry(opReshapeFromTensor, "Reshape", "Cast"),
		"torch.unfold":               entry(opUnfoldWindows, "Gather", "Transpose"),
		"torch.conv_tbc":             entry(opConvTBC, "Transpose", "Conv"),
		"torch.native_dropout":       entry(opNativeDropout, "Shape", "ConstantOfShape"),
		"torch._unique":              entry(opPrivateUnique, "Unique", "Reshape"),
	}
	for name, dt := range map[string]canon.DType{
		"Byte": canon.Uint8, "Char": canon.Int8, "Short": canon.Int16, "Int": canon.Int32,
		"Long": canon.Int64, "Float": canon.Float32, "Double": canon.Float64, "Half": canon.Float16,
	} {
		entries["torch._cast_"+name] = entry(opPrivateCast(dt), "Cast")
	}
	optable.Add(&opTable, entries)
}

// opPrivateCast reads torch._cast_Byte and its kin (self, non_blocking): a
// Cast to the dtype the name says; non_blocking only concerns devices.
func opPrivateCast(to canon.DType) opHandler {
	return func(c *opCall) (value, error) {
		x, err := c.bindInput("self", "non_blocking=False")
		if err != nil {
			return nil, err
		}
		if c.b().info(x).DType == to {
			return x, nil
		}
		return c.b().emit1(c.scope, &canon.Cast{To: to}, x)
	}
}

// opPrivateLogSoftmax is torch._log_softmax(self, dim, half_to_float).
// half_to_float (a float16 input giving a float32 result) exists only in
// PyTorch's CUDA kernel, so only false is read.
func opPrivateLogSoftmax(c *opCall) (value, error) {
	x, err := c.bindInput("self", "dim", "half_to_float")
	if err != nil {
		return nil, err
	}
	h, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	if h {
		return nil, c.errf("half_to_float=True is a CUDA-only mode (a float16 input with a float32 result); save the model with half_to_float=False")
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, max(r, 1)); err != nil {
		return nil, err
	}
	if r == 0 {
		d = 0
	}
	return c.b().emit1(c.scope, &canon.LogSoftmax{Axis: d}, x)
}

// opDimArange is torch._dim_arange(like, dim): arange(like.size(dim)) as
// int64, a constant when that size is known at import.
func opDimArange(c *opCall) (value, error) {
	x, err := c.bindInput("like", "dim")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "like")
	if err != nil {
		return nil, err
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, r); err != nil {
		return nil, err
	}
	if dim := c.b().info(x).Shape[d]; dim.Known() {
		if dim.Size > maxRepeatedLength {
			return nil, c.errf("dimension %d has %d entries, more than the %d this importer writes as a constant", d, dim.Size, maxRepeatedLength)
		}
		v := make([]int64, dim.Size)
		for i := range v {
			v[i] = int64(i)
		}
		return &tensorVal{konst: canon.NewInt64Tensor("", []int64{dim.Size}, v)}, nil
	}
	b := c.b()
	size, err := b.emit1(c.scope, &canon.ShapeOf{Start: d, End: d + 1}, x)
	if err != nil {
		return nil, err
	}
	limit, err := b.emit1(c.scope, &canon.Squeeze{Axes: []int64{0}}, size)
	if err != nil {
		return nil, err
	}
	scalar := func(v int64) *tensorVal {
		return &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{v})}
	}
	return b.emit1(c.scope, &canon.Range{}, scalar(0), limit, scalar(1))
}

// opPadCircular is torch._pad_circular(self, pad): F.pad's circular mode.
func opPadCircular(c *opCall) (value, error) {
	x, err := c.bindInput("self", "pad")
	if err != nil {
		return nil, err
	}
	pads, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	if len(pads)%2 != 0 {
		return nil, c.errf("pad has %d entries; it needs a (begin, end) pair per padded axis", len(pads))
	}
	return circularPad(c, x, pads)
}

// opReshapeFromTensor is torch._reshape_from_tensor(self, shape): a reshape
// whose target is a 1-D integer tensor, constant or computed by the graph.
// Like torch.reshape, -1 is inferred; a 0 is a zero-sized axis.
func opReshapeFromTensor(c *opCall) (value, error) {
	x, err := c.bindInput("self", "shape")
	if err != nil {
		return nil, err
	}
	s, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	si := c.b().info(s)
	if !si.DType.IsInt() {
		return nil, c.errf("shape must be an integer tensor, got %s", si.DType)
	}
	if si.RankKnown && len(si.Shape) != 1 {
		return nil, c.errf("shape must be a 1-D tensor, got rank %d", len(si.Shape))
	}
	if shape, ok := constInts(c, s); ok {
		return c.b().emit1(c.scope, &canon.Reshape{Shape: shape, AllowZero: true}, x)
	}
	if si.DType != canon.Int64 {
		if s, err = c.b().emit1(c.scope, &canon.Cast{To: canon.Int64}, s); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.Reshape{AllowZero: true}, x, s)
}

// opUnfoldWindows is Tensor.unfold(dimension, size, step): the windows
// x[..., i*step : i*step+size, ...] of one axis, that axis becoming the
// window count and a new last axis the window. One Gather of the window
// indices (count, size) and a Transpose that moves the window axis last.
func opUnfoldWindows(c *opCall) (value, error) {
	x, err := c.bindInput("self", "dimension", "size", "step")
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(shape) == 0 {
		return nil, c.errf("unfolding a 0-d tensor is not read; give it an axis first (unsqueeze)")
	}
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, len(shape)); err != nil {
		return nil, err
	}
	size, err := c.int(2)
	if err != nil {
		return nil, err
	}
	step, err := c.int(3)
	if err != nil {
		return nil, err
	}
	n := shape[d]
	if size < 0 || size > n {
		return nil, c.errf("size %d must be between 0 and the size %d of dimension %d", size, n, d)
	}
	if step <= 0 {
		return nil, c.errf("step must be positive, got %d", step)
	}
	count := (n-size)/step + 1
	if count*size > maxRepeatedLength {
		return nil, c.errf("%d windows of %d entries are more indices than the %d this importer writes as a constant", count, size, maxRepeatedLength)
	}
	idx := make([]int64, 0, count*size)
	for i := int64(0); i < count; i++ {
		for j := int64(0); j < size; j++ {
			idx = append(idx, i*step+j)
		}
	}
	b := c.b()
	g, err := b.emit1(c.scope, &canon.Gather{Axis: d}, x,
		&tensorVal{konst: canon.NewInt64Tensor("", []int64{count, size}, idx)})
	if err != nil {
		return nil, err
	}
	// g is (..., count, size, rest...): move axis d+1 to the end.
	rank := int64(len(shape)) + 1
	if d+1 == rank-1 {
		return g, nil
	}
	perm := make([]int64, 0, rank)
	for i := int64(0); i < rank; i++ {
		if i != d+1 {
			perm = append(perm, i)
		}
	}
	perm = append(perm, d+1)
	return b.emit1(c.scope, &canon.Transpose{Perm: perm}, g)
}

// opConvTBC is torch.conv_tbc(self, weight, bias, pad): a 1-D
// cross-correlation of a (time, batch, channels) input with a (kernel,
// in, out) weight, zero-padded by pad on both ends of time. It is conv1d
// with the input as (batch, channels, time) and the weight as
// (out, in, kernel), its (batch, out, time) result put back.
func opConvTBC(c *opCall) (value, error) {
	x, err := c.bindInput("self", "weight", "bias", "pad=0")
	if err != nil {
		return nil, err
	}
	w, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	bias, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	pad, err := c.int(3)
	if err != nil {
		return nil, err
	}
	xr, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	ws, err := c.shapeOf(w, "the weight")
	if err != nil {
		return nil, err
	}
	if xr != 3 || len(ws) != 3 {
		return nil, c.errf("takes a 3-D input (time, batch, channels) and a 3-D weight (kernel, in, out), got ranks %d and %d", xr, len(ws))
	}
	if pad < 0 {
		return nil, c.errf("pad must not be negative, got %d", pad)
	}
	if bi := c.b().info(bias); bi.RankKnown && (len(bi.Shape) != 1 || bi.Shape[0].Known() && bi.Shape[0].Size != ws[2]) {
		return nil, c.errf("bias must be 1-D with %d entries (the weight's output channels)", ws[2])
	}
	b := c.b()
	xt, err := b.emit1(c.scope, &canon.Transpose{Perm: []int64{1, 2, 0}}, x)
	if err != nil {
		return nil, err
	}
	wt, err := b.emit1(c.scope, &canon.Transpose{Perm: []int64{2, 1, 0}}, w)
	if err != nil {
		return nil, err
	}
	conv := &canon.Conv{Strides: []int64{1}, Dilations: []int64{1}, PadsBegin: []int64{pad}, PadsEnd: []int64{pad}, Group: 1}
	outs, err := b.emit(c.scope, conv, []*tensorVal{xt, wt, bias}, 1)
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Transpose{Perm: []int64{2, 0, 1}}, outs[0])
}

// opNativeDropout is torch.native_dropout(input, p, train) -> (output,
// mask). Outside training (train false, or p = 0, which keeps every
// element) the output is the input and the mask all true; in training it
// is random, which is not read.
func opNativeDropout(c *opCall) (value, error) {
	x, err := c.bindInput("input", "p", "train=None")
	if err != nil {
		return nil, err
	}
	p, err := c.float(1)
	if err != nil {
		return nil, err
	}
	train := true // None means training, as aten's kernel reads it
	if !c.isNone(2) {
		if train, err = c.bool(2); err != nil {
			return nil, err
		}
	}
	if train && p != 0 {
		return nil, c.errf("dropout in training mode is random; call model.eval() (or pass train=False) before saving")
	}
	b := c.b()
	one := &canon.Tensor{DType: canon.Bool, Shape: []int64{}, Data: []byte{1}}
	if shape, ok := b.info(x).StaticShape(); ok {
		mask, err := b.emit1(c.scope, &canon.ConstantOfShape{Value: one, Shape: shape})
		if err != nil {
			return nil, err
		}
		return &tupleVal{items: []value{x, mask}}, nil
	}
	shape, err := b.emit1(c.scope, canon.NewShapeOf(), x)
	if err != nil {
		return nil, err
	}
	mask, err := b.emit1(c.scope, &canon.ConstantOfShape{Value: one}, shape)
	if err != nil {
		return nil, err
	}
	return &tupleVal{items: []value{x, mask}}, nil
}

// opPrivateUnique is torch._unique(self, sorted, return_inverse) ->
// (values, inverse): torch.unique without counts.
func opPrivateUnique(c *opCall) (value, error) {
	if _, err := c.bindInput("self", "sorted=True", "return_inverse=False"); err != nil {
		return nil, err
	}
	c.args = append(append([]value{}, c.bound...), false)
	c.kwargs = nil
	v, err := opUnique2(c)
	if err != nil {
		return nil, err
	}
	t := v.(*tupleVal)
	return &tupleVal{items: t.items[:2]}, nil
}

// whereNonzero is torch.where(condition) with one argument: the indices
// of the nonzero entries as a tuple of 1-D int64 tensors, one per axis
// (torch.nonzero(condition, as_tuple=True)).
func whereNonzero(c *opCall) (value, error) {
	x, err := c.bindInput("condition")
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the condition")
	if err != nil {
		return nil, err
	}
	b := c.b()
	nz, err := b.emit1(c.scope, &canon.NonZero{}, x)
	if err != nil {
		return nil, err
	}
	if r == 0 {
		// A 0-d condition counts as one axis of size 1 (as torch's does).
		r = 1
	}
	items := make([]value, r)
	for i := range items {
		at := &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{int64(i)})}
		if items[i], err = b.emit1(c.scope, &canon.Gather{Axis: 0}, nz, at); err != nil {
			return nil, err
		}
	}
	return &tupleVal{items: items}, nil
}

// opShapeAsTensor is torch._shape_as_tensor(self): the shape as a 1-D
// int64 tensor (a constant when known at import).
func opShapeAsTensor(c *opCall) (value, error) {
	x, err := c.bindInput("self")
	if err != nil {
		return nil, err
	}
	if shape, ok := c.b().info(x).StaticShape(); ok {
		return &tensorVal{konst: canon.NewInt64Tensor("", []int64{int64(len(shape))}, shape)}, nil
	}
	return c.b().emit1(c.scope, canon.NewShapeOf(), x)
}

// intOutput is an int graph output as the 0-d int64 tensor PyTorch's
// caller would make of it (torch.tensor(n)).
func intOutput(b *builder, v value) (*tensorVal, error) {
	if n, ok := v.(int64); ok {
		return &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{n})}, nil
	}
	return b.emit1("", &canon.Squeeze{Axes: []int64{0}}, v.(*dynInt).t)
}

// dynamicSizes is x.size() of a value whose rank is known and some sizes
// are not: the known sizes as ints, the others as ints known at run time.
func dynamicSizes(c *opCall, x *tensorVal) (value, error) {
	vi := c.b().info(x)
	items := make([]value, len(vi.Shape))
	for i, d := range vi.Shape {
		if d.Known() {
			items[i] = d.Size
			continue
		}
		v, err := dynamicSize(c, x, int64(i))
		if err != nil {
			return nil, err
		}
		items[i] = v
	}
	return &listVal{items: items}, nil
}

// stridedGather is as_strided(x, size, stride, offset) of a tensor whose
// storage holds its entries in row-major order: entry i of the result is
// flat(x)[offset + Σ i_k·stride_k], one Gather of those indices.
func stridedGather(c *opCall, x *tensorVal, size, stride []int64, offset int64) (value, error) {
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(stride) != len(size) {
		return nil, c.errf("size %v and stride %v must have one entry per axis", size, stride)
	}
	count := int64(1)
	last := offset
	for k, s := range stride {
		if s < 0 || size[k] < 0 {
			return nil, c.errf("negative sizes or strides (%v, %v) are not allowed", size, stride)
		}
		if count *= size[k]; count > maxRepeatedLength {
			return nil, c.errf("size %v has more entries than the %d indices this importer writes as a constant", size, maxRepeatedLength)
		}
		if size[k] > 0 {
			last += (size[k] - 1) * s
		}
	}
	n := canon.NumElements(shape)
	if offset < 0 || count > 0 && last >= n {
		return nil, c.errf("size %v, stride %v and offset %d address entry %d; the input has %d", size, stride, offset, last, n)
	}
	idx := make([]int64, count)
	for i := range idx {
		at, rem := offset, int64(i)
		for k := len(size) - 1; k >= 0; k-- {
			at += rem % size[k] * stride[k]
			rem /= size[k]
		}
		idx[i] = at
	}
	flat, err := reshape(c, x, -1)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Gather{Axis: 0}, flat,
		&tensorVal{konst: canon.NewInt64Tensor("", append([]int64{}, size...), idx)})
}

// isGraphInput tells whether t is one of the graph's inputs (a contiguous
// tensor, whose storage holds its entries in row-major order).
func isGraphInput(b *builder, t *tensorVal) bool {
	if t.name == "" {
		return false
	}
	for _, in := range b.g.Inputs {
		if in.Name == t.name {
			return true
		}
	}
	return false
}
