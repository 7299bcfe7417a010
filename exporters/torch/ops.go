package torchexport

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// emit writes the __init__ and forward code for one node.
func (gen *generator) emit(n *canon.Node) error {
	// Values shape inference already knows (Shape -> Gather chains) need no
	// code: consumers read them as literals.
	if allConst(gen, n) {
		return nil
	}
	switch n.Op.(type) {
	case *canon.Clip, *canon.Split, *canon.Squeeze, *canon.Unsqueeze, *canon.Pad, *canon.Slice, *canon.Resize:
		for i, in := range n.Inputs[1:] {
			if in != "" {
				return gen.fail("its %s comes from a value computed at run time; only values known before running are supported",
					n.Op.Signature().Inputs[1+i].Name)
			}
		}
	}
	if err := gen.checkDTypes(n); err != nil {
		return err
	}
	if p, ok := n.Op.(*canon.Pad); ok && p.Axes != nil {
		return gen.fail("pads on selected axes are not supported; pads must cover every axis")
	}
	switch op := n.Op.(type) {
	case *canon.Conv:
		return gen.conv(op)
	case *canon.ConvTranspose:
		return gen.convTranspose(op)
	case *canon.BatchNorm:
		return gen.batchNorm(op)
	case *canon.Linear:
		return gen.linear(op)
	case *canon.MatMul:
		return gen.call("torch.matmul(%s, %s)", 0, 1)
	case *canon.Binary:
		return gen.binary(op)
	case *canon.Unary:
		f := map[canon.UnaryFn]string{canon.Relu: "torch.relu", canon.Sigmoid: "torch.sigmoid", canon.Tanh: "torch.tanh", canon.HardSwish: "F.hardswish",
			canon.Softplus: "F.softplus", canon.Softsign: "F.softsign"}[op.Fn]
		if f == "" {
			return gen.fail("activation %s has no PyTorch counterpart here", op.Fn)
		}
		return gen.call(f+"(%s)", 0)
	case *canon.Elu:
		return gen.call("F.elu(%s, alpha="+pyFloat(op.Alpha)+")", 0)
	case *canon.Selu:
		// F.selu's fixed constants round to exactly SeluAlpha and SeluGamma
		// in float32; other constants get the same formula spelled out.
		if op.Alpha == canon.SeluAlpha && op.Gamma == canon.SeluGamma {
			return gen.call("F.selu(%s)", 0)
		}
		return gen.call(pyFloat(op.Gamma)+" * F.elu(%s, alpha="+pyFloat(op.Alpha)+")", 0)
	case *canon.LeakyRelu:
		return gen.call("F.leaky_relu(%s, negative_slope="+pyFloat(op.Alpha)+")", 0)
	case *canon.PRelu:
		return gen.prelu()
	case *canon.Clip:
		return gen.clip(op)
	case *canon.HardSigmoid:
		if op.Alpha == float32(1.0/6) && op.Beta == 0.5 {
			return gen.call("F.hardsigmoid(%s)", 0)
		}
		return gen.call("torch.clamp(%s * "+pyFloat(op.Alpha)+" + "+pyFloat(op.Beta)+", 0.0, 1.0)", 0)
	case *canon.Softmax:
		return gen.call("F.softmax(%s, dim="+strconv.FormatInt(op.Axis, 10)+")", 0)
	case *canon.MaxPool:
		return gen.pool("max", op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode, false)
	case *canon.AveragePool:
		return gen.pool("avg", op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode, op.CountIncludePad)
	case *canon.GlobalAveragePool, *canon.GlobalMaxPool:
		r := gen.rankOf(n.Inputs[0])
		if r < 3 {
			return gen.fail("input rank is unknown or below 3")
		}
		f := "torch.mean"
		if _, ok := op.(*canon.GlobalMaxPool); ok {
			f = "torch.amax"
		}
		return gen.call(f+"(%s, dim="+pyInts(seq(2, int64(r)), true)+", keepdim=True)", 0)
	case *canon.ReduceMean:
		axes := op.Axes
		if axes == nil {
			r := gen.rankOf(n.Inputs[0])
			if r < 0 {
				return gen.fail("input rank is unknown")
			}
			axes = seq(0, int64(r))
		}
		return gen.call("torch.mean(%s, dim="+pyInts(axes, true)+", keepdim="+pyBool(op.KeepDims)+")", 0)
	case *canon.Concat:
		var parts []string
		for i := range n.Inputs {
			e, err := gen.in(i)
			if err != nil {
				return err
			}
			parts = append(parts, e)
		}
		gen.assign("torch.cat([" + strings.Join(parts, ", ") + "], dim=" + strconv.FormatInt(op.Axis, 10) + ")")
		return nil
	case *canon.Split:
		return gen.split(op)
	case *canon.Reshape:
		return gen.reshape(op)
	case *canon.Flatten:
		return gen.flatten(op)
	case *canon.Transpose:
		return gen.call("%s.permute"+pyInts(op.Perm, true), 0)
	case *canon.Squeeze:
		return gen.squeeze(op)
	case *canon.Unsqueeze:
		return gen.unsqueeze(op)
	case *canon.Pad:
		return gen.pad(op)
	case *canon.Slice:
		return gen.slice(op)
	case *canon.Gather:
		return gen.call("_gather(%s, %s, "+strconv.FormatInt(op.Axis, 10)+")", 0, 1)
	case *canon.ShapeOf:
		end := "]"
		if op.End != math.MaxInt64 {
			end = strconv.FormatInt(op.End, 10) + "]"
		}
		return gen.call("torch.tensor(%s.shape["+strconv.FormatInt(op.Start, 10)+":"+end+", dtype=torch.int64)", 0)
	case *canon.Constant:
		return gen.constant(op)
	case *canon.Identity:
		return gen.alias()
	case *canon.Dropout:
		if len(n.Outputs) > 1 && n.Outputs[1] != "" {
			x, err := gen.in(0)
			if err != nil {
				return err
			}
			gen.expr[n.Outputs[0]] = x
			v := gen.out(1)
			gen.forward = append(gen.forward, v+" = torch.ones_like("+x+", dtype=torch.bool)")
			return nil
		}
		return gen.alias()
	case *canon.Resize:
		return gen.resize(op)
	}
	return gen.fail("no PyTorch equivalent is known for this op")
}

// allConst reports whether every output of n is known before running and
// small enough to be written inline.
func allConst(gen *generator, n *canon.Node) bool {
	if _, ok := n.Op.(*canon.Constant); ok {
		return false
	}
	// A shape the graph returns is read from the input at run time, so
	// the model also answers for input sizes other than the declared one.
	if _, ok := n.Op.(*canon.ShapeOf); ok && gen.isGraphOutput(n.Outputs...) {
		return false
	}
	for _, o := range n.Outputs {
		v, ok := gen.g.Values[o]
		if o == "" {
			continue
		}
		if !ok || v.Const == nil || v.Const.NumElements() > 64 || !(v.Const.DType.IsInt() || v.Const.DType == canon.Bool) {
			return false
		}
	}
	return len(n.Outputs) > 0
}

func seq(from, to int64) []int64 {
	var out []int64
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// call formats a one-output expression from the node's inputs.
func (gen *generator) call(format string, inputs ...int) error {
	args := make([]any, len(inputs))
	for k, i := range inputs {
		e, err := gen.in(i)
		if err != nil {
			return err
		}
		args[k] = e
	}
	gen.assign(fmt.Sprintf(format, args...))
	return nil
}

func (gen *generator) alias() error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	gen.expr[gen.node.Outputs[0]] = x
	return nil
}

// samePads reports whether begin and end pads are equal on every axis.
func samePads(b, e []int64) bool { return slices.Equal(b, e) }

// fpad is F.pad's argument for spatial pads (last axis first).
func fpad(b, e []int64) string {
	var out []int64
	for i := len(b) - 1; i >= 0; i-- {
		out = append(out, b[i], e[i])
	}
	return pyInts(out, false)
}

func (gen *generator) conv(op *canon.Conv) error {
	w := gen.inits[gen.node.Inputs[1]]
	nsp := len(op.Strides)
	if nsp < 1 || nsp > 3 {
		return gen.fail("%d spatial axes; torch has Conv1d/2d/3d", nsp)
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	padding := pyInts(op.PadsBegin, true)
	if !samePads(op.PadsBegin, op.PadsEnd) {
		x = "F.pad(" + x + ", " + fpad(op.PadsBegin, op.PadsEnd) + ")"
		padding = "0"
	}
	hasBias := gen.hasBias()
	dim := strconv.Itoa(nsp) + "d"
	if w != nil && w.DType == canon.Float32 && gen.ownedInits(canon.Float32, 1, 2) {
		params := []layerParam{{"weight", 1}, {"bias", 2}}
		path := gen.claimLayer(params, "conv")
		gen.register(path, fmt.Sprintf("nn.Conv%s(%d, %d, kernel_size=%s, stride=%s, padding=%s, dilation=%s, groups=%d, bias=%s)",
			dim, w.Shape[1]*op.Group, w.Shape[0], pyInts(w.Shape[2:], true), pyInts(op.Strides, true), padding,
			pyInts(op.Dilations, true), op.Group, pyBool(hasBias)), false)
		gen.layerEntries(path, params)
		gen.assign(gen.access(path) + "(" + x + ")")
		return nil
	}
	wE, bE, err := gen.weightBiasExprs()
	if err != nil {
		return err
	}
	gen.assign(fmt.Sprintf("F.conv%s(%s, %s, %s, stride=%s, padding=%s, dilation=%s, groups=%d)", dim, x, wE, bE,
		pyInts(op.Strides, true), padding, pyInts(op.Dilations, true), op.Group))
	return nil
}

// hasBias reports whether the conv node's optional third input is present.
func (gen *generator) hasBias() bool {
	return len(gen.node.Inputs) > 2 && gen.node.Inputs[2] != ""
}

// weightBiasExprs returns the functional-call expressions for a conv node's
// weight and bias; a missing bias is Python's None.
func (gen *generator) weightBiasExprs() (w, b string, err error) {
	if w, err = gen.in(1); err != nil {
		return "", "", err
	}
	b = "None"
	if gen.hasBias() {
		if b, err = gen.in(2); err != nil {
			return "", "", err
		}
	}
	return w, b, nil
}

// layerEntries gives the layer's tensors their keys path.suffix.
func (gen *generator) layerEntries(path string, params []layerParam) {
	for _, p := range params {
		if p.input >= len(gen.node.Inputs) || gen.node.Inputs[p.input] == "" {
			continue
		}
		name := gen.node.Inputs[p.input]
		key := path + "." + p.suffix
		gen.paths[key] = true
		gen.addEntry(key, name, gen.inits[name])
	}
}

func (gen *generator) convTranspose(op *canon.ConvTranspose) error {
	w := gen.inits[gen.node.Inputs[1]]
	nsp := len(op.Strides)
	if nsp < 1 || nsp > 3 {
		return gen.fail("%d spatial axes; torch has ConvTranspose1d/2d/3d", nsp)
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	// torch crops the same padding on both sides; crop the rest by slicing.
	sym := make([]int64, nsp)
	var crop []string
	needCrop := false
	for i := range sym {
		sym[i] = min(op.PadsBegin[i], op.PadsEnd[i])
		b, e := op.PadsBegin[i]-sym[i], op.PadsEnd[i]-sym[i]
		if op.OutputPadding[i] >= max(op.Strides[i], op.Dilations[i]) {
			return gen.fail("output_padding %d on axis %d is not below stride or dilation, which torch requires", op.OutputPadding[i], i)
		}
		end := ""
		if e > 0 {
			end = strconv.FormatInt(-e, 10)
		}
		if b > 0 || e > 0 {
			needCrop = true
		}
		crop = append(crop, strconv.FormatInt(b, 10)+":"+end)
	}
	hasBias := gen.hasBias()
	dim := strconv.Itoa(nsp) + "d"
	var expr string
	if w != nil && w.DType == canon.Float32 && gen.ownedInits(canon.Float32, 1, 2) {
		params := []layerParam{{"weight", 1}, {"bias", 2}}
		path := gen.claimLayer(params, "deconv")
		gen.register(path, fmt.Sprintf("nn.ConvTranspose%s(%d, %d, kernel_size=%s, stride=%s, padding=%s, output_padding=%s, groups=%d, bias=%s, dilation=%s)",
			dim, w.Shape[0], w.Shape[1]*op.Group, pyInts(w.Shape[2:], true), pyInts(op.Strides, true), pyInts(sym, true),
			pyInts(op.OutputPadding, true), op.Group, pyBool(hasBias), pyInts(op.Dilations, true)), false)
		gen.layerEntries(path, params)
		expr = gen.access(path) + "(" + x + ")"
	} else {
		wE, bE, err := gen.weightBiasExprs()
		if err != nil {
			return err
		}
		expr = fmt.Sprintf("F.conv_transpose%s(%s, %s, %s, stride=%s, padding=%s, output_padding=%s, groups=%d, dilation=%s)",
			dim, x, wE, bE, pyInts(op.Strides, true), pyInts(sym, true), pyInts(op.OutputPadding, true), op.Group, pyInts(op.Dilations, true))
	}
	if needCrop {
		expr += "[:, :, " + strings.Join(crop, ", ") + "]"
	}
	gen.assign(expr)
	return nil
}

func (gen *generator) batchNorm(op *canon.BatchNorm) error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	r := gen.rankOf(gen.node.Inputs[0])
	dims := map[int]string{2: "1d", 3: "1d", 4: "2d", 5: "3d"}
	d, ok := dims[r]
	scale := gen.inits[gen.node.Inputs[1]]
	if ok && scale != nil && gen.ownedInits(canon.Float32, 1, 2, 3, 4) {
		params := []layerParam{{"weight", 1}, {"bias", 2}, {"running_mean", 3}, {"running_var", 4}}
		path := gen.claimLayer(params, "bn")
		gen.register(path, fmt.Sprintf("nn.BatchNorm%s(%d, eps=%s, momentum=0.1)", d, scale.Shape[0], pyFloat(op.Epsilon)), false)
		gen.layerEntries(path, params)
		// nn.BatchNorm keeps a step counter in its state dict; eval mode
		// never reads it.
		key := path + ".num_batches_tracked"
		gen.paths[key] = true
		gen.addEntry(key, "", canon.NewInt64Tensor(key, []int64{}, []int64{0}))
		gen.assign(gen.access(path) + "(" + x + ")")
		return nil
	}
	var in [5]string
	for i := 1; i < 5; i++ {
		if in[i], err = gen.in(i); err != nil {
			return err
		}
	}
	gen.assign(fmt.Sprintf("F.batch_norm(%s, %s, %s, %s, %s, False, 0.0, %s)", x, in[3], in[4], in[1], in[2], pyFloat(op.Epsilon)))
	return nil
}

func (gen *generator) linear(op *canon.Linear) error {
	a, err := gen.in(0)
	if err != nil {
		return err
	}
	w := gen.inits[gen.node.Inputs[1]]
	hasC := len(gen.node.Inputs) > 2 && gen.node.Inputs[2] != ""
	var c *canon.Tensor
	if hasC {
		c = gen.inits[gen.node.Inputs[2]]
	}
	biasOK := !hasC || (op.Beta == 1 && c != nil && len(c.Shape) == 1 && w != nil && c.Shape[0] == w.Shape[0])
	if op.Alpha == 1 && biasOK && w != nil && len(w.Shape) == 2 && gen.ownedInits(canon.Float32, 1, 2) {
		params := []layerParam{{"weight", 1}, {"bias", 2}}
		path := gen.claimLayer(params, "linear")
		gen.register(path, fmt.Sprintf("nn.Linear(%d, %d, bias=%s)", w.Shape[1], w.Shape[0], pyBool(hasC)), false)
		gen.layerEntries(path, params)
		gen.assign(gen.access(path) + "(" + a + ")")
		return nil
	}
	wE, err := gen.in(1)
	if err != nil {
		return err
	}
	expr := "F.linear(" + a + ", " + wE + ")"
	if op.Alpha != 1 {
		expr = pyFloat(op.Alpha) + " * " + expr
	}
	if hasC && op.Beta != 0 {
		cE, err := gen.in(2)
		if err != nil {
			return err
		}
		if op.Beta != 1 {
			cE = pyFloat(op.Beta) + " * " + cE
		}
		expr += " + " + cE
	}
	gen.assign(expr)
	return nil
}

func (gen *generator) binary(op *canon.Binary) error {
	f := map[canon.BinaryFn]string{canon.Add: "torch.add", canon.Sub: "torch.sub", canon.Mul: "torch.mul", canon.Div: "torch.div"}[op.Fn]
	extra := ""
	if v, ok := gen.g.Values[gen.node.Inputs[0]]; op.Fn == canon.Div && ok && v.DType.IsInt() {
		extra = ", rounding_mode=\"trunc\"" // ONNX integer Div truncates
	}
	return gen.call(f+"(%s, %s"+extra+")", 0, 1)
}

// prelu becomes nn.PReLU when the slope is one value per channel of axis 1
// (the state dict then holds it as the 1-D tensor nn.PReLU expects, same
// bytes); any other broadcast shape keeps its own parameter.
func (gen *generator) prelu() error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	slope := gen.inits[gen.node.Inputs[1]]
	xs, ok := gen.shapeOf(gen.node.Inputs[0])
	if ok && slope != nil && slope.DType == canon.Float32 && gen.ownedInits(canon.Float32, 1) && perChannel(slope.Shape, xs) {
		path := gen.claimPath(nil, gen.node.Name, "prelu")
		gen.layers[path] = true
		n := slope.NumElements()
		gen.register(path, fmt.Sprintf("nn.PReLU(%d)", n), false)
		key := path + ".weight"
		gen.paths[key] = true
		flat := *slope
		flat.Shape = []int64{n}
		gen.addEntry(key, slope.Name, &flat)
		gen.assign(gen.access(path) + "(" + x + ")")
		return nil
	}
	s, err := gen.in(1)
	if err != nil {
		return err
	}
	gen.assign(fmt.Sprintf("torch.where(%s >= 0, %s, %s * %s)", x, x, x, s))
	return nil
}

// perChannel reports whether slope broadcast against x varies only along
// axis 1 (or is a single value).
func perChannel(slope, x []int64) bool {
	n := canon.NumElements(slope)
	if n == 1 {
		return true
	}
	if len(x) < 2 || len(slope) > len(x) || n != x[1] {
		return false
	}
	off := len(x) - len(slope)
	for i, d := range slope {
		if off+i != 1 && d != 1 {
			return false
		}
	}
	return off <= 1
}

func (gen *generator) clip(op *canon.Clip) error {
	var args []string
	if dt, ok := gen.inDType(0); ok && dt.IsInt() {
		// Float bounds would make torch.clamp return float32; integer
		// bounds keep the dtype. Bounds beyond the dtype's range clip
		// nothing and are left out (torch rejects them).
		lo, hi, known := intRange(dt)
		if !known {
			return gen.fail("clipping %s values has no PyTorch form", dt)
		}
		if b := math.Ceil(float64(op.Min)); b > lo {
			args = append(args, "min="+strconv.FormatFloat(b, 'f', 0, 64))
		}
		if b := math.Floor(float64(op.Max)); b < hi {
			args = append(args, "max="+strconv.FormatFloat(b, 'f', 0, 64))
		}
	} else {
		if !math.IsInf(float64(op.Min), -1) {
			args = append(args, "min="+pyFloat(op.Min))
		}
		if !math.IsInf(float64(op.Max), 1) {
			args = append(args, "max="+pyFloat(op.Max))
		}
	}
	if len(args) == 0 {
		return gen.alias()
	}
	return gen.call("torch.clamp(%s, "+strings.Join(args, ", ")+")", 0)
}

func (gen *generator) pool(kind string, kernel, strides, dils, pb, pe []int64, ceil, includePad bool) error {
	nsp := len(kernel)
	if nsp < 1 || nsp > 3 {
		return gen.fail("%d spatial axes; torch pools 1 to 3", nsp)
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	cast := ""
	if kind == "max" {
		if cast, err = gen.poolCast(); err != nil {
			return err
		}
		if cast != "" {
			x += ".to(torch." + cast + ")"
		}
	}
	padding := pyInts(pb, true)
	sym := samePads(pb, pe)
	for i, p := range pb {
		if 2*p > kernel[i] {
			sym = false // torch allows at most half the kernel
		}
	}
	if !sym {
		if kind == "avg" && !includePad && !allZero(pb, pe) {
			return gen.fail("average pooling with unequal pads that are not counted has no torch equivalent")
		}
		if ceil {
			return gen.fail("ceil mode with unequal pads has no exact torch equivalent")
		}
		value := "float('-inf')"
		if kind == "avg" {
			value = "0.0"
		}
		x = "F.pad(" + x + ", " + fpad(pb, pe) + ", value=" + value + ")"
		padding = "0"
	}
	dim := strconv.Itoa(nsp) + "d"
	var expr string
	if kind == "max" {
		expr = fmt.Sprintf("F.max_pool%s(%s, kernel_size=%s, stride=%s, padding=%s, dilation=%s, ceil_mode=%s)",
			dim, x, pyInts(kernel, true), pyInts(strides, true), padding, pyInts(dils, true), pyBool(ceil))
	} else {
		for _, d := range dils {
			if d != 1 {
				return gen.fail("dilated average pooling has no torch equivalent")
			}
		}
		expr = fmt.Sprintf("F.avg_pool%s(%s, kernel_size=%s, stride=%s, padding=%s, ceil_mode=%s, count_include_pad=%s)",
			dim, x, pyInts(kernel, true), pyInts(strides, true), padding, pyBool(ceil), pyBool(includePad))
	}
	// torch drops a last ceil-mode window that starts in the end padding;
	// make sure its output size is the graph's.
	if xs, ok := gen.shapeOf(gen.node.Inputs[0]); ok && ceil {
		want, ok2 := gen.shapeOf(gen.node.Outputs[0])
		for i := 0; ok2 && i < nsp; i++ {
			in := xs[2+i]
			eff := (kernel[i]-1)*dils[i] + 1
			num := in + 2*pb[i] - eff
			out := (num+strides[i]-1)/strides[i] + 1
			if (out-1)*strides[i] >= in+pb[i] {
				out--
			}
			if out != want[2+i] {
				return gen.fail("torch's ceil-mode output size %d on axis %d differs from the graph's %d", out, 2+i, want[2+i])
			}
		}
	}
	if cast != "" {
		dt, _ := gen.inDType(0)
		expr += ".to(" + torchDTypes[dt] + ")"
	}
	gen.assign(expr)
	return nil
}

func allZero(vs ...[]int64) bool {
	for _, v := range vs {
		for _, x := range v {
			if x != 0 {
				return false
			}
		}
	}
	return true
}

func (gen *generator) split(op *canon.Split) error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	var outs []string
	for i := range gen.node.Outputs {
		if gen.node.Outputs[i] == "" {
			outs = append(outs, "_")
			continue
		}
		outs = append(outs, gen.out(i))
	}
	lhs := strings.Join(outs, ", ")
	if len(outs) == 1 {
		lhs += ","
	}
	gen.forward = append(gen.forward, fmt.Sprintf("%s = torch.split(%s, %s, dim=%d)", lhs, x, pyInts(op.Sizes, false), op.Axis))
	return nil
}

func (gen *generator) reshape(op *canon.Reshape) error {
	shape := op.Shape
	if shape == nil {
		s, ok := gen.constInts(1)
		if !ok {
			return gen.fail("the target shape is computed at run time; only shapes known before running are supported")
		}
		shape = s
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.FormatInt(d, 10)
		if d == 0 && !op.AllowZero {
			parts[i] = x + ".shape[" + strconv.Itoa(i) + "]" // ONNX 0 copies the input dim
		}
	}
	if len(parts) == 1 {
		parts[0] += ","
	}
	gen.assign(x + ".reshape(" + strings.Join(parts, ", ") + ")")
	return nil
}

func (gen *generator) flatten(op *canon.Flatten) error {
	r := gen.rankOf(gen.node.Inputs[0])
	if r < 0 {
		return gen.fail("input rank is unknown")
	}
	axis := op.Axis
	if axis < 0 {
		axis += int64(r)
	}
	switch {
	case axis == 0:
		return gen.call("%s.reshape(1, -1)", 0)
	case axis >= int64(r):
		return gen.call("%s.reshape(-1, 1)", 0)
	case axis == 1:
		return gen.call("torch.flatten(%s, 1)", 0)
	}
	return gen.call(fmt.Sprintf("torch.flatten(%%s, 0, %d).flatten(1)", axis-1), 0)
}

func (gen *generator) squeeze(op *canon.Squeeze) error {
	if op.Axes == nil {
		return gen.call("torch.squeeze(%s)", 0)
	}
	r := gen.rankOf(gen.node.Inputs[0])
	if r < 0 {
		return gen.fail("input rank is unknown")
	}
	axes := normAxes(op.Axes, r)
	slices.Sort(axes)
	expr := "%s"
	for i := len(axes) - 1; i >= 0; i-- {
		expr += ".squeeze(" + strconv.FormatInt(axes[i], 10) + ")"
	}
	return gen.call(expr, 0)
}

func (gen *generator) unsqueeze(op *canon.Unsqueeze) error {
	r := gen.rankOf(gen.node.Inputs[0])
	if r < 0 {
		return gen.fail("input rank is unknown")
	}
	axes := normAxes(op.Axes, r+len(op.Axes))
	slices.Sort(axes)
	expr := "%s"
	for _, a := range axes {
		expr += ".unsqueeze(" + strconv.FormatInt(a, 10) + ")"
	}
	return gen.call(expr, 0)
}

func normAxes(axes []int64, rank int) []int64 {
	out := make([]int64, len(axes))
	for i, a := range axes {
		if a < 0 {
			a += int64(rank)
		}
		out[i] = a
	}
	return out
}

func (gen *generator) pad(op *canon.Pad) error {
	r := len(op.PadsBegin)
	switch op.Mode {
	case canon.PadConstant:
		return gen.call("F.pad(%s, "+fpad(op.PadsBegin, op.PadsEnd)+", mode=\"constant\", value="+pyFloat(op.Value)+")", 0)
	case canon.PadReflect, canon.PadEdge:
		mode := map[canon.PadMode]string{canon.PadReflect: "reflect", canon.PadEdge: "replicate"}[op.Mode]
		if r < 3 || r > 5 || !allZero(op.PadsBegin[:2], op.PadsEnd[:2]) {
			return gen.fail("torch pads in %s mode only the last 1 to 3 axes of a 3-D to 5-D input", mode)
		}
		for i := 2; i < r; i++ {
			if op.PadsBegin[i] < 0 || op.PadsEnd[i] < 0 {
				return gen.fail("negative pads (cropping) in %s mode", mode)
			}
		}
		return gen.call("F.pad(%s, "+fpad(op.PadsBegin[2:], op.PadsEnd[2:])+", mode=\""+mode+"\")", 0)
	}
	return gen.fail("pad mode %s", op.Mode)
}

func (gen *generator) slice(op *canon.Slice) error {
	r := gen.rankOf(gen.node.Inputs[0])
	if r < 0 {
		return gen.fail("input rank is unknown")
	}
	idx := make([]string, r)
	for i := range idx {
		idx[i] = ":"
	}
	for k, a := range normAxes(op.Axes, r) {
		step := op.Steps[k]
		if step < 0 {
			return gen.fail("negative slice steps have no torch indexing equivalent")
		}
		s := strconv.FormatInt(op.Starts[k], 10) + ":" + strconv.FormatInt(op.Ends[k], 10)
		if step != 1 {
			s += ":" + strconv.FormatInt(step, 10)
		}
		idx[a] = s
	}
	last := len(idx)
	for last > 0 && idx[last-1] == ":" {
		last--
	}
	if last == 0 {
		return gen.alias()
	}
	return gen.call("%s["+strings.Join(idx[:last], ", ")+"]", 0)
}

func (gen *generator) constant(op *canon.Constant) error {
	t := op.Value
	if _, ok := torchDTypes[t.DType]; !ok {
		return gen.fail("constant of dtype %s has no torch dtype", t.DType)
	}
	base := gen.node.Name
	if base == "" {
		base = gen.node.Outputs[0]
	}
	key := gen.claimPath(nil, base, "const")
	gen.register(key, fmt.Sprintf("torch.empty(%s, dtype=%s)", pyInts(t.Shape, true), torchDTypes[t.DType]), true)
	tt := *t
	gen.addEntry(key, "", &tt)
	gen.expr[gen.node.Outputs[0]] = gen.access(key)
	return nil
}

// resize maps the nearest-neighbour forms torch's "nearest" mode computes
// exactly (src = floor(dst / scale)): asymmetric coordinates with floor.
func (gen *generator) resize(op *canon.Resize) error {
	if op.CoordTransform != canon.Asymmetric || op.Nearest != canon.Floor {
		return gen.fail("nearest resize with %s coordinates and %s rounding; torch's \"nearest\" computes asymmetric + floor only", op.CoordTransform, op.Nearest)
	}
	r := gen.rankOf(gen.node.Inputs[0])
	if r < 3 || r > 5 {
		return gen.fail("torch interpolates 3-D to 5-D inputs only")
	}
	if op.Sizes != nil {
		xs, ok := gen.shapeOf(gen.node.Inputs[0])
		if !ok || xs[0] != op.Sizes[0] || xs[1] != op.Sizes[1] {
			return gen.fail("torch resizes only the spatial axes")
		}
		return gen.call("F.interpolate(%s, size="+pyInts(op.Sizes[2:], true)+", mode=\"nearest\")", 0)
	}
	if op.Scales[0] != 1 || op.Scales[1] != 1 {
		return gen.fail("torch resizes only the spatial axes")
	}
	sc := make([]string, 0, r-2)
	for _, s := range op.Scales[2:] {
		sc = append(sc, pyFloat(s))
	}
	tuple := "(" + strings.Join(sc, ", ") + ",)"
	if len(sc) > 1 {
		tuple = "(" + strings.Join(sc, ", ") + ")"
	}
	return gen.call("F.interpolate(%s, scale_factor="+tuple+", mode=\"nearest\")", 0)
}
