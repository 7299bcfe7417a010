package tfliteexport

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

func init() {
	optable.Add(&writers, map[string]writer{
		"Reshape":   {writeReshape, "RESHAPE (a flatten of an NHWC value before a fully connected layer absorbed into its weights)"},
		"Flatten":   {writeReshape, "RESHAPE, as Reshape"},
		"Squeeze":   {writeReshape, "RESHAPE"},
		"Unsqueeze": {writeReshape, "RESHAPE"},
		"Transpose": {writeTranspose, "TRANSPOSE with the permutation composed with the values' file layouts (none when they cancel)"},
		"Identity":  {writeAlias, "no op (the value is its input's tensor)"},
		"Dropout":   {writeAlias, "no op at inference (the mask output is refused)"},
		"Concat":    {writeConcat, "CONCATENATION with the axis remapped to the file layout"},
		"Split":     {writeSplit, "SPLIT_V with the axis remapped"},
		"Pad":       {writePad, "PAD, PADV2 (a fill value), MIRROR_PAD (reflect); pads remapped; edge mode and negative pads refused"},
		"Slice":     {writeSlice, "STRIDED_SLICE over every axis, remapped"},
		"Softmax":   {func(e *exporter, n *canon.Node) error { return e.lastAxisOp(n, n.Op.(*canon.Softmax).Axis, true) }, "SOFTMAX when the axis is the file layout's last (channels of an NCHW value); others refused"},
		"LogSoftmax": {func(e *exporter, n *canon.Node) error {
			return e.lastAxisOp(n, n.Op.(*canon.LogSoftmax).Axis, false)
		}, "LOG_SOFTMAX, as Softmax"},
		"ReduceMean": {writeReduce, "MEAN with the axes remapped"},
		"ReduceSum":  {writeReduce, "SUM with the axes remapped"},
		"ReduceMax":  {writeReduce, "REDUCE_MAX with the axes remapped"},
		"ReduceMin":  {writeReduce, "REDUCE_MIN with the axes remapped"},
		"ReduceProd": {writeReduce, "REDUCE_PROD with the axes remapped"},
		"Resize":     {writeResize, "RESIZE_BILINEAR (align_corners, half_pixel_centers or neither, as the coordinate mode), RESIZE_NEAREST_NEIGHBOR (asymmetric or tf_half_pixel_for_nn with floor); 2-D, scales that equal out/in"},
		"Cast":       {writeCast, "CAST"},
	})
}

func normAxis(a int64, rank int) int64 {
	if a < 0 {
		a += int64(rank)
	}
	return a
}

// fileAxis is the file axis holding canonical axis a in layout perm.
func fileAxis(perm []int, rank int, a int64) int32 {
	for i, p := range permOrIdentity(perm, rank) {
		if int64(p) == a {
			return int32(i)
		}
	}
	return -1
}

func writeAlias(e *exporter, n *canon.Node) error {
	if canon.HasRuntimeParams(n) {
		return nodeErr(n, "its training mode is computed at run time; TFLite export writes Dropout as the identity only")
	}
	if len(n.Outputs) > 1 && n.Outputs[1] != "" && (len(e.consumers[n.Outputs[1]]) > 0 || e.isOutput[n.Outputs[1]]) {
		return nodeErr(n, "its mask output is used; TFLite export writes Dropout as the identity only")
	}
	x, perm, err := e.anyLayout(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.alias(n.Outputs[0], x, perm)
	return nil
}

// writeReshape writes the reshape family. A RESHAPE is exact only where
// the elements keep their order: when the input is held in an order of
// its own (NHWC), a flatten before fully connected layers takes the NHWC
// order and lets them permute their weights; otherwise the input is read
// in canonical order.
func writeReshape(e *exporter, n *canon.Node) error {
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	ys, err := e.shape(n.Outputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	out := natural(len(ys))
	x, perm, err := e.anyLayout(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	if q, ok := forwardLayout(xs, perm, ys); ok {
		if sameOrder(ys, q, out) {
			q = out
		}
		if samePerm(q, nil, len(ys)) {
			q = nil
		}
		y, err := e.define(n.Outputs[0], q)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		return e.reshapeInto(x, y, fileShape(ys, q))
	}
	if len(xs) == 4 && len(ys) == 2 && ys[0] == xs[0] && samePerm(perm, nhwc, 4) && e.onlyFC(n.Outputs[0]) {
		y, err := e.addTensor(n.Outputs[0], []int32{int32(ys[0]), int32(ys[1])}, e.dtype(n.Outputs[0]), nil)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		e.held[n.Outputs[0]] = append(e.held[n.Outputs[0]], held{idx: y, flatCHW: []int64{xs[1], xs[2], xs[3]}})
		return e.reshapeInto(x, y, []int32{int32(ys[0]), int32(ys[1])})
	}
	// The input's data must move: into the layout from which the reshape
	// lands in the output's own layout (one TRANSPOSE, as the data moves
	// in the source model too).
	in, ok := backwardLayout(xs, ys, out)
	if !ok {
		in, out = nil, nil
	}
	if samePerm(in, nil, len(xs)) {
		in = nil
	}
	if x, err = e.input(n.Inputs[0], in); err != nil {
		return nodeErr(n, "%v", err)
	}
	y, err := e.define(n.Outputs[0], out)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	return e.reshapeInto(x, y, fileShape(ys, out))
}

// onlyFC reports whether value v is read only as the input of fully
// connected layers with constant weights (which can absorb a column order).
func (e *exporter) onlyFC(v string) bool {
	if e.isOutput[v] || len(e.consumers[v]) == 0 {
		return false
	}
	for _, c := range e.consumers[v] {
		switch c.Op.Kind() {
		case "Linear":
			if c.Inputs[0] != v || e.constOf(c.Inputs[1]) == nil {
				return false
			}
		case "MatMul":
			if c.Inputs[0] != v || e.constOf(c.Inputs[1]) == nil || len(e.constOf(c.Inputs[1]).Shape) != 2 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func writeTranspose(e *exporter, n *canon.Node) error {
	t := n.Op.(*canon.Transpose).Perm
	x, perm, err := e.anyLayout(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	r := len(t)
	// The output held in the layout r where file axis j is output axis
	// r[j], with t[r[j]] = perm[j]: the same tensor, no op.
	inv := make([]int, r)
	for i, a := range t {
		inv[a] = i
	}
	res := make([]int, r)
	for j, a := range permOrIdentity(perm, r) {
		res[j] = inv[a]
	}
	if samePerm(res, nil, r) {
		res = nil
	}
	e.alias(n.Outputs[0], x, res)
	return nil
}

func writeConcat(e *exporter, n *canon.Node) error {
	ys, err := e.shape(n.Outputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	perm := natural(len(ys))
	axis := fileAxis(perm, len(ys), normAxis(n.Op.(*canon.Concat).Axis, len(ys)))
	var ins []int32
	for _, in := range n.Inputs {
		idx, err := e.input(in, perm)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		ins = append(ins, idx)
	}
	out, err := e.define(n.Outputs[0], perm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.concat(ins, out, axis)
	return nil
}

func (e *exporter) intsOf(n *canon.Node, attr []int64, slot int, what string) ([]int64, error) {
	if slot < len(n.Inputs) && n.Inputs[slot] != "" {
		c := e.constOf(n.Inputs[slot])
		if c == nil {
			return nil, nodeErr(n, "its %s are computed at run time; TFLite export needs them constant", what)
		}
		v, err := c.Int64s()
		if err != nil {
			return nil, nodeErr(n, "%v", err)
		}
		return v, nil
	}
	return attr, nil
}

func writeSplit(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.Split)
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	sizes, err := e.intsOf(n, op.Sizes, 1, "sizes")
	if err != nil {
		return err
	}
	x, perm, err := e.anyLayout(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	axis := fileAxis(perm, len(xs), normAxis(op.Axis, len(xs)))
	sz := make([]int32, len(sizes))
	for i, s := range sizes {
		sz[i] = int32(s)
	}
	st, err := e.constI32(n.Name+"/sizes", []int32{int32(len(sz))}, sz)
	if err != nil {
		return err
	}
	at, err := e.constI32(n.Name+"/axis", []int32{}, []int32{axis})
	if err != nil {
		return err
	}
	outs := make([]int32, len(n.Outputs))
	for i, o := range n.Outputs {
		if o == "" {
			shape := append([]int32{}, e.m.tensors[x].shape...)
			shape[axis] = sz[i]
			outs[i], err = e.scratch(n.Name+"/unused", shape, e.dtype(n.Inputs[0]))
		} else {
			outs[i], err = e.define(o, perm)
		}
		if err != nil {
			return nodeErr(n, "%v", err)
		}
	}
	e.emit(tflitefb.BuiltinOperatorSPLIT_V, []int32{x, st, at}, outs, tflitefb.BuiltinOptionsSplitVOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.SplitVOptionsStart(b)
		tflitefb.SplitVOptionsAddNumSplits(b, int32(len(outs)))
		return tflitefb.SplitVOptionsEnd(b)
	})
	return nil
}

func writePad(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.Pad)
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	r := len(xs)
	begin, end := make([]int64, r), make([]int64, r)
	if len(n.Inputs) > 1 && n.Inputs[1] != "" {
		v, err := e.intsOf(n, nil, 1, "pads")
		if err != nil {
			return err
		}
		axes, err := e.intsOf(n, op.Axes, 3, "pad axes")
		if err != nil {
			return err
		}
		if axes == nil {
			for i := 0; i < r; i++ {
				axes = append(axes, int64(i))
			}
		}
		if len(v) != 2*len(axes) {
			return nodeErr(n, "%d pads for %d axes", len(v), len(axes))
		}
		for i, a := range axes {
			a = normAxis(a, r)
			begin[a], end[a] = v[i], v[len(axes)+i]
		}
	} else {
		copy(begin, op.PadsBegin)
		copy(end, op.PadsEnd)
	}
	value := op.Value
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		c := e.constOf(n.Inputs[2])
		if c == nil {
			return nodeErr(n, "its fill value is computed at run time; TFLite export needs it constant")
		}
		v, err := floats(c)
		if err != nil || len(v) != 1 {
			return nodeErr(n, "its fill value is not one number")
		}
		value = v[0]
	}
	for i := range begin {
		if begin[i] < 0 || end[i] < 0 {
			return nodeErr(n, "negative pads (cropping) %v/%v: write them as a Slice", begin, end)
		}
	}
	x, perm, err := e.anyLayout(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	pads := make([]int32, 2*r)
	for i, a := range permOrIdentity(perm, r) {
		pads[2*i], pads[2*i+1] = int32(begin[a]), int32(end[a])
	}
	pt, err := e.constI32(n.Name+"/paddings", []int32{int32(r), 2}, pads)
	if err != nil {
		return err
	}
	out, err := e.define(n.Outputs[0], perm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	switch op.Mode {
	case canon.PadConstant:
		if value == 0 {
			e.emit(tflitefb.BuiltinOperatorPAD, []int32{x, pt}, []int32{out}, tflitefb.BuiltinOptionsPadOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
				tflitefb.PadOptionsStart(b)
				return tflitefb.PadOptionsEnd(b)
			})
			return nil
		}
		vt, err := e.scalarF32(n.Name+"/value", value)
		if err != nil {
			return err
		}
		e.emit(tflitefb.BuiltinOperatorPADV2, []int32{x, pt, vt}, []int32{out}, tflitefb.BuiltinOptionsPadV2Options, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.PadV2OptionsStart(b)
			return tflitefb.PadV2OptionsEnd(b)
		})
	case canon.PadReflect:
		e.emit(tflitefb.BuiltinOperatorMIRROR_PAD, []int32{x, pt}, []int32{out}, tflitefb.BuiltinOptionsMirrorPadOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.MirrorPadOptionsStart(b)
			tflitefb.MirrorPadOptionsAddMode(b, tflitefb.MirrorPadModeREFLECT)
			return tflitefb.MirrorPadOptionsEnd(b)
		})
	default:
		return nodeErr(n, "mode %s: TFLite pads with a constant or a reflection (MIRROR_PAD) only", op.Mode)
	}
	return nil
}

// writeSlice resolves the slice on the static shape (ONNX's clamping) and
// writes STRIDED_SLICE over every axis of the file layout.
func writeSlice(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.Slice)
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	r := len(xs)
	starts, err := e.intsOf(n, op.Starts, 1, "starts")
	if err != nil {
		return err
	}
	ends, err := e.intsOf(n, op.Ends, 2, "ends")
	if err != nil {
		return err
	}
	axes, err := e.intsOf(n, op.Axes, 3, "axes")
	if err != nil {
		return err
	}
	steps, err := e.intsOf(n, op.Steps, 4, "steps")
	if err != nil {
		return err
	}
	if len(ends) != len(starts) {
		return nodeErr(n, "%d starts and %d ends", len(starts), len(ends))
	}
	begin, end, stride := make([]int64, r), append([]int64{}, xs...), make([]int64, r)
	var endMask int32
	for i := range stride {
		stride[i] = 1
	}
	for i := range starts {
		a := int64(i)
		if axes != nil {
			a = normAxis(axes[i], r)
		}
		if a < 0 || a >= int64(r) {
			return nodeErr(n, "axis %d out of range", a)
		}
		st := int64(1)
		if steps != nil {
			st = steps[i]
		}
		if st == 0 {
			return nodeErr(n, "step 0")
		}
		d := xs[a]
		b, en := starts[i], ends[i]
		if b < 0 {
			b += d
		}
		if en < 0 {
			en += d
		}
		if st > 0 {
			b, en = clamp(b, 0, d), clamp(en, 0, d)
		} else {
			b, en = clamp(b, 0, d-1), clamp(en, -1, d-1)
		}
		begin[a], end[a], stride[a] = b, en, st
	}
	x, perm, err := e.anyLayout(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	fb, fe, fs := make([]int32, r), make([]int32, r), make([]int32, r)
	for i, a := range permOrIdentity(perm, r) {
		fb[i], fe[i], fs[i] = int32(begin[a]), int32(end[a]), int32(stride[a])
		if stride[a] < 0 && end[a] < 0 {
			endMask |= 1 << i // run to the axis' start: -1 would count from the end
		}
	}
	bt, err := e.constI32(n.Name+"/begin", []int32{int32(r)}, fb)
	if err != nil {
		return err
	}
	et, err := e.constI32(n.Name+"/end", []int32{int32(r)}, fe)
	if err != nil {
		return err
	}
	st, err := e.constI32(n.Name+"/strides", []int32{int32(r)}, fs)
	if err != nil {
		return err
	}
	out, err := e.define(n.Outputs[0], perm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.emit(tflitefb.BuiltinOperatorSTRIDED_SLICE, []int32{x, bt, et, st}, []int32{out}, tflitefb.BuiltinOptionsStridedSliceOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.StridedSliceOptionsStart(b)
		tflitefb.StridedSliceOptionsAddEndMask(b, endMask)
		return tflitefb.StridedSliceOptionsEnd(b)
	})
	return nil
}

func clamp(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// lastAxisOp writes SOFTMAX or LOG_SOFTMAX, which normalize the last axis
// of the file layout.
func (e *exporter) lastAxisOp(n *canon.Node, axis int64, soft bool) error {
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	r := len(xs)
	a := normAxis(axis, r)
	x, perm, err := e.anyLayout(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	if fa := fileAxis(perm, r, a); int(fa) != r-1 {
		if fileAxis(natural(r), r, a) != int32(r-1) {
			return nodeErr(n, "axis %d is not the last axis of the file layout; TFLite normalizes the last axis only", axis)
		}
		if x, err = e.input(n.Inputs[0], natural(r)); err != nil {
			return nodeErr(n, "%v", err)
		}
		perm = natural(r)
	}
	out, err := e.define(n.Outputs[0], perm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	if soft {
		e.emit(tflitefb.BuiltinOperatorSOFTMAX, []int32{x}, []int32{out}, tflitefb.BuiltinOptionsSoftmaxOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.SoftmaxOptionsStart(b)
			tflitefb.SoftmaxOptionsAddBeta(b, 1)
			return tflitefb.SoftmaxOptionsEnd(b)
		})
	} else {
		e.emit(tflitefb.BuiltinOperatorLOG_SOFTMAX, []int32{x}, []int32{out}, tflitefb.BuiltinOptionsLogSoftmaxOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.LogSoftmaxOptionsStart(b)
			return tflitefb.LogSoftmaxOptionsEnd(b)
		})
	}
	return nil
}

var reduceCodes = map[string]tflitefb.BuiltinOperator{
	"ReduceMean": tflitefb.BuiltinOperatorMEAN, "ReduceSum": tflitefb.BuiltinOperatorSUM, "ReduceMax": tflitefb.BuiltinOperatorREDUCE_MAX,
	"ReduceMin": tflitefb.BuiltinOperatorREDUCE_MIN, "ReduceProd": tflitefb.BuiltinOperatorREDUCE_PROD,
}

func writeReduce(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.Reduce)
	axes, err := e.intsOf(n, op.Axes, 1, "axes")
	if err != nil {
		return err
	}
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	if len(axes) == 0 {
		if op.NoopWithEmptyAxes && len(n.Inputs) > 1 && n.Inputs[1] != "" {
			return writeAlias(e, n)
		}
		for i := range xs {
			axes = append(axes, int64(i))
		}
	}
	return e.reduceOver(n, reduceCodes[n.Op.Kind()], axes, op.KeepDims)
}

// reduceOver writes a reduction of X over canonical axes. With keep_dims
// the output keeps X's layout; without, the remaining file axes keep their
// order, which is the output's canonical order when they are increasing.
func (e *exporter) reduceOver(n *canon.Node, code tflitefb.BuiltinOperator, axes []int64, keep bool) error {
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	r := len(xs)
	x, perm, err := e.anyLayout(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	reduced := map[int64]bool{}
	fa := make([]int32, 0, len(axes))
	for _, a := range axes {
		a = normAxis(a, r)
		if a < 0 || a >= int64(r) {
			return nodeErr(n, "axis %d out of range", a)
		}
		if !reduced[a] {
			reduced[a] = true
			fa = append(fa, fileAxis(perm, r, a))
		}
	}
	outPerm := perm
	if !keep {
		// Remaining canonical axes in file order, renumbered.
		var rest []int
		for _, a := range permOrIdentity(perm, r) {
			if !reduced[int64(a)] {
				rest = append(rest, a)
			}
		}
		rank := make([]int, len(rest))
		for i, a := range rest {
			for _, b := range rest {
				if b < a {
					rank[i]++
				}
			}
		}
		outPerm = rank
		if samePerm(rank, nil, len(rank)) {
			outPerm = nil
		}
	}
	at, err := e.constI32(n.Name+"/axes", []int32{int32(len(fa))}, fa)
	if err != nil {
		return err
	}
	out, err := e.define(n.Outputs[0], outPerm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.emit(code, []int32{x, at}, []int32{out}, tflitefb.BuiltinOptionsReducerOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.ReducerOptionsStart(b)
		tflitefb.ReducerOptionsAddKeepDims(b, keep)
		return tflitefb.ReducerOptionsEnd(b)
	})
	return nil
}

func writeResize(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.Resize)
	xs, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	ys, err := e.shape(n.Outputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	if len(xs) != 4 || xs[0] != ys[0] || xs[1] != ys[1] {
		return nodeErr(n, "TFLite resizes the two spatial axes of a 4-D value only; this one resizes %v to %v", xs, ys)
	}
	if op.Antialias || op.KeepAspect != 0 || op.ExcludeOutside {
		return nodeErr(n, "antialias, keep_aspect_ratio_policy and exclude_outside have no TFLite form")
	}
	// TFLite maps with in/out; ONNX with 1/scale when scales are given.
	scales := op.Scales
	if len(n.Inputs) > 1 && n.Inputs[1] != "" {
		c := e.constOf(n.Inputs[1])
		if c == nil {
			return nodeErr(n, "its scales are computed at run time; TFLite export needs them constant")
		}
		v, err := floats(c)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		scales = v
	}
	if len(scales) > 0 {
		sp := scales[len(scales)-2:]
		for i := 0; i < 2; i++ {
			if float32(ys[2+i])/float32(xs[2+i]) != sp[i] {
				return nodeErr(n, "scale %g on axis %d is not out/in = %d/%d; TFLite maps coordinates with in/out", sp[i], 2+i, ys[2+i], xs[2+i])
			}
		}
	}
	var alignCorners, halfPixel bool
	var code tflitefb.BuiltinOperator
	switch op.Mode {
	case canon.ResizeLinear:
		code = tflitefb.BuiltinOperatorRESIZE_BILINEAR
		switch op.CoordTransform {
		case canon.AlignCorners:
			alignCorners = true
		case canon.HalfPixel:
			halfPixel = true
		case canon.PytorchHalfPixel:
			if ys[2] == 1 || ys[3] == 1 {
				return nodeErr(n, "pytorch_half_pixel with an output of size 1 maps to 0, which TFLite's half_pixel_centers does not")
			}
			halfPixel = true
		case canon.Asymmetric:
		default:
			return nodeErr(n, "coordinate mode %s has no TFLite RESIZE_BILINEAR form (align_corners, half_pixel, pytorch_half_pixel, asymmetric)", op.CoordTransform)
		}
	case canon.ResizeNearest:
		code = tflitefb.BuiltinOperatorRESIZE_NEAREST_NEIGHBOR
		if op.Nearest != canon.Floor {
			return nodeErr(n, "nearest mode %s: TFLite's RESIZE_NEAREST_NEIGHBOR floors (asymmetric, or tf_half_pixel_for_nn)", op.Nearest)
		}
		switch op.CoordTransform {
		case canon.Asymmetric:
		case canon.TFHalfPixelForNN:
			halfPixel = true
		default:
			return nodeErr(n, "coordinate mode %s with nearest has no exact TFLite form (asymmetric or tf_half_pixel_for_nn, with floor)", op.CoordTransform)
		}
	default:
		return nodeErr(n, "mode %v: TFLite resizes bilinear or nearest only", op.Mode)
	}
	x, err := e.input(n.Inputs[0], nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	size, err := e.constI32(n.Name+"/size", []int32{2}, []int32{int32(ys[2]), int32(ys[3])})
	if err != nil {
		return err
	}
	out, err := e.define(n.Outputs[0], nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	if code == tflitefb.BuiltinOperatorRESIZE_BILINEAR {
		e.emit(code, []int32{x, size}, []int32{out}, tflitefb.BuiltinOptionsResizeBilinearOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.ResizeBilinearOptionsStart(b)
			tflitefb.ResizeBilinearOptionsAddAlignCorners(b, alignCorners)
			tflitefb.ResizeBilinearOptionsAddHalfPixelCenters(b, halfPixel)
			return tflitefb.ResizeBilinearOptionsEnd(b)
		})
		return nil
	}
	e.emit(code, []int32{x, size}, []int32{out}, tflitefb.BuiltinOptionsResizeNearestNeighborOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.ResizeNearestNeighborOptionsStart(b)
		tflitefb.ResizeNearestNeighborOptionsAddAlignCorners(b, alignCorners)
		tflitefb.ResizeNearestNeighborOptionsAddHalfPixelCenters(b, halfPixel)
		return tflitefb.ResizeNearestNeighborOptionsEnd(b)
	})
	return nil
}

func writeCast(e *exporter, n *canon.Node) error {
	to := n.Op.(*canon.Cast).To
	if _, err := fileType(to); err != nil {
		return nodeErr(n, "%v", err)
	}
	return e.unary(n, tflitefb.BuiltinOperatorCAST, 0, nil)
}

func itoa(v int64) string { return fmt.Sprint(v) }
