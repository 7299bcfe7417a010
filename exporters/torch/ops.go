package torchexport

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// opWriter is the torch exporter's entry for one canonical op kind.
type opWriter struct {
	// write emits the node's __init__ and forward code.
	write func(gen *generator, n *canon.Node) error
	// floatOnly, when set, names what PyTorch computes in floating point
	// only ("convolution"): torch raises "not implemented for 'Int'" and
	// the like at run time, so a node whose input 0 has another dtype is
	// refused at export.
	floatOnly string
	// accepts, when set, replaces floatOnly's "floating point" with the
	// input dtypes the torch code computes.
	accepts func(canon.DType) bool
	// constParams is set when write itself reads the op's run-time
	// parameter inputs whose values are known before running (Reshape's
	// shape); other ops refuse parameters given as inputs.
	constParams bool
	// detail says how the op is written, for `modelbridge ops`.
	detail string
}

// opWriters is the exporter's one table: how model.py expresses each
// canonical op kind. Filled in init, since the writers call emit's helpers.
var opWriters map[string]opWriter

// opLacks lists the canonical op kinds model.py cannot express, with the
// reason. Every registered kind is in opWriters or here (a test checks).
var opLacks = map[string]string{}

func init() {
	act := "this activation"
	unary := func(f string) func(*generator, *canon.Node) error {
		return func(gen *generator, _ *canon.Node) error { return gen.call(f+"(%s)", 0) }
	}
	optable.Add(&opWriters, map[string]opWriter{
		"Conv": {write: func(gen *generator, n *canon.Node) error { return gen.conv(n.Op.(*canon.Conv)) },
			floatOnly: "convolution", detail: "nn.Conv1d/2d/3d, or F.conv*d when the weights are not float32 initializers of their own; unequal pads through F.pad"},
		"ConvTranspose": {write: func(gen *generator, n *canon.Node) error { return gen.convTranspose(n.Op.(*canon.ConvTranspose)) },
			floatOnly: "convolution", detail: "nn.ConvTranspose1d/2d/3d or F.conv_transpose*d; unequal crops by slicing; output_padding below stride or dilation"},
		"BatchNormalization": {write: func(gen *generator, n *canon.Node) error { return gen.batchNorm(n.Op.(*canon.BatchNorm)) },
			floatOnly: "batch normalization", detail: "nn.BatchNorm1d/2d/3d, or F.batch_norm"},
		"Linear": {write: func(gen *generator, n *canon.Node) error { return gen.linear(n.Op.(*canon.Linear)) },
			floatOnly: "a linear layer", detail: "nn.Linear, or F.linear with scaled terms"},
		"MatMul": {write: func(gen *generator, _ *canon.Node) error { return gen.call("torch.matmul(%s, %s)", 0, 1) }, detail: "torch.matmul"},
		"Add":    {write: binary("torch.add"), detail: "torch.add"},
		"Sub":    {write: binary("torch.sub"), detail: "torch.sub"},
		"Mul":    {write: binary("torch.mul"), detail: "torch.mul"},
		"Div":    {write: binary("torch.div"), detail: "torch.div (rounding_mode=\"trunc\" for integers)"},
		// torch.relu keeps integer dtypes: no dtype rule.
		"Relu":      {write: unary("torch.relu"), detail: "torch.relu"},
		"Sigmoid":   {write: unary("torch.sigmoid"), floatOnly: act, detail: "torch.sigmoid"},
		"Tanh":      {write: unary("torch.tanh"), floatOnly: act, detail: "torch.tanh"},
		"HardSwish": {write: unary("F.hardswish"), floatOnly: act, detail: "F.hardswish"},
		"Softplus":  {write: unary("F.softplus"), floatOnly: act, detail: "F.softplus"},
		"Softsign":  {write: unary("F.softsign"), floatOnly: act, detail: "F.softsign"},
		"Elu": {write: func(gen *generator, n *canon.Node) error {
			return gen.call("F.elu(%s, alpha="+pyFloat(n.Op.(*canon.Elu).Alpha)+")", 0)
		}, floatOnly: act, detail: "F.elu"},
		"Selu":      {write: writeSelu, floatOnly: act, detail: "F.selu, or gamma * F.elu for other constants"},
		"Gelu":      {write: writeGelu, floatOnly: act, detail: "nn.GELU() or nn.GELU(approximate=\"tanh\") (PyTorch 1.12 or newer)"},
		"LeakyRelu": {write: writeLeakyRelu, floatOnly: act, detail: "F.leaky_relu"},
		"HardSigmoid": {write: writeHardSigmoid, floatOnly: act,
			detail: "F.hardsigmoid, or torch.clamp for other constants"},
		"PRelu": {write: func(gen *generator, _ *canon.Node) error { return gen.prelu() }, detail: "nn.PReLU for a per-channel slope, torch.where otherwise"},
		"Clip":  {write: func(gen *generator, n *canon.Node) error { return gen.clip(n.Op.(*canon.Clip)) }, detail: "torch.clamp"},
		"Softmax": {write: func(gen *generator, n *canon.Node) error {
			return gen.call("F.softmax(%s, dim="+strconv.FormatInt(n.Op.(*canon.Softmax).Axis, 10)+")", 0)
		}, floatOnly: "softmax", detail: "F.softmax"},
		"MaxPool": {write: func(gen *generator, n *canon.Node) error {
			op := n.Op.(*canon.MaxPool)
			if len(n.Outputs) > 1 && n.Outputs[1] != "" {
				return writeMaxPoolIndices(gen, op)
			}
			return gen.pool("max", op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode, false)
		}, detail: "F.max_pool1d/2d/3d; integer inputs pooled in a float type that holds them exactly; Indices through return_indices=True plus the plane offsets"},
		"AveragePool": {write: func(gen *generator, n *canon.Node) error {
			op := n.Op.(*canon.AveragePool)
			return gen.pool("avg", op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode, op.CountIncludePad)
		}, floatOnly: "averages", detail: "F.avg_pool1d/2d/3d (uneven uncounted pads: window sums over counts); no dilations, no ceil mode with uneven pads"},
		"GlobalAveragePool": {write: globalPool("torch.mean"), floatOnly: "averages", detail: "torch.mean over the spatial axes"},
		"GlobalMaxPool":     {write: globalPool("torch.amax"), detail: "torch.amax over the spatial axes"},
		"Concat":            {write: writeConcat, detail: "torch.cat"},
		"Split":             {write: func(gen *generator, n *canon.Node) error { return gen.split(n.Op.(*canon.Split)) }, detail: "torch.split"},
		"Reshape": {write: func(gen *generator, n *canon.Node) error { return gen.reshape(n.Op.(*canon.Reshape)) },
			constParams: true, detail: "Tensor.reshape; a shape computed at run time is read when model.py runs"},
		"Flatten": {write: func(gen *generator, n *canon.Node) error { return gen.flatten(n.Op.(*canon.Flatten)) }, detail: "torch.flatten"},
		"Transpose": {write: func(gen *generator, n *canon.Node) error {
			return gen.call("%s.permute"+pyInts(n.Op.(*canon.Transpose).Perm, true), 0)
		}, detail: "Tensor.permute"},
		"Squeeze":   {write: func(gen *generator, n *canon.Node) error { return gen.squeeze(n.Op.(*canon.Squeeze)) }, detail: "Tensor.squeeze"},
		"Unsqueeze": {write: func(gen *generator, n *canon.Node) error { return gen.unsqueeze(n.Op.(*canon.Unsqueeze)) }, detail: "Tensor.unsqueeze"},
		"Pad":       {write: func(gen *generator, n *canon.Node) error { return gen.pad(n.Op.(*canon.Pad)) }, detail: "F.pad; reflect and edge on the last 1 to 3 axes of 3-D to 5-D inputs"},
		"Slice":     {write: func(gen *generator, n *canon.Node) error { return gen.slice(n.Op.(*canon.Slice)) }, detail: "indexing with positive steps; torch.index_select of each axis's positions when the parameters are computed at run time"},
		"Gather": {write: func(gen *generator, n *canon.Node) error {
			return gen.call("_gather(%s, %s, "+strconv.FormatInt(n.Op.(*canon.Gather).Axis, 10)+")", 0, 1)
		}, detail: "torch.index_select (model.py's _gather helper)"},
		"Shape":    {write: writeShape, detail: "Tensor.shape as an int64 tensor"},
		"Constant": {write: func(gen *generator, n *canon.Node) error { return gen.constant(n.Op.(*canon.Constant)) }, detail: "a registered buffer"},
		"Identity": {write: func(gen *generator, _ *canon.Node) error { return gen.alias() }, detail: "no code: the input is reused"},
		"Dropout":  {write: writeDropout, detail: "no code at inference; the mask is torch.ones_like"},
		"Resize": {write: func(gen *generator, n *canon.Node) error { return gen.resize(n.Op.(*canon.Resize)) },
			floatOnly: "nearest resizing (besides uint8)", accepts: func(dt canon.DType) bool { return dt.IsFloat() || dt == canon.Uint8 },
			detail: resizeDetail},
	})
}

// Coverage is what model.py expresses, derived from opWriters and opLacks.
// A registered kind in neither table is missing, which canon.Gaps reports.
// Refused run-time parameters are noted from the op's definition.
func Coverage() canon.Coverage {
	cov := canon.Coverage{}
	for kind, w := range opWriters {
		detail := w.detail
		_, readsParams := paramWriters[kind]
		if d := canon.Lookup(kind); d != nil && !w.constParams && !readsParams && len(canon.ParamInputs(d.New())) > 0 && !strings.Contains(detail, "only") {
			detail += "; parameters known before running only"
		}
		if readsParams {
			detail += "; parameters computed at run time are read when model.py runs"
		}
		cov[kind] = canon.Handles(detail)
	}
	for kind, reason := range opLacks {
		cov[kind] = canon.Lacks(reason)
	}
	for _, d := range canon.Ops() {
		if _, listed := cov[d.Kind]; !listed && d.Decompose != nil {
			cov[d.Kind] = canon.Handles("written as canon's expansion into other ops (see the op's Decompose)")
		}
	}
	return cov
}

// emit writes the __init__ and forward code for one node. The graph is
// validated (formats.Read), so arities, layouts and enum values hold.
func (gen *generator) emit(n *canon.Node) error {
	// Values shape inference already knows (Shape -> Gather chains) need no
	// code: consumers read them as literals.
	if allConst(gen, n) {
		return nil
	}
	w, ok := opWriters[n.Op.Kind()]
	if !ok {
		reason := opLacks[n.Op.Kind()]
		if reason == "" {
			reason = "no PyTorch equivalent is known for this op"
		}
		return gen.fail("%s (`modelbridge ops` lists what each format supports)", reason)
	}
	write := w.write
	if pw, ok := paramWriters[n.Op.Kind()]; ok && !w.constParams && canon.HasRuntimeParams(n) {
		write = pw // reads the parameters when model.py runs
	} else if !w.constParams && canon.HasRuntimeParams(n) {
		for _, i := range canon.ParamInputs(n.Op) {
			if i < len(n.Inputs) && n.Inputs[i] != "" {
				return gen.fail("its %s comes from a value computed at run time; only values known before running are supported",
					n.Op.Signature().Inputs[i].Name)
			}
		}
	}
	if w.floatOnly != "" {
		accepts := w.accepts
		if accepts == nil {
			accepts = canon.DType.IsFloat
		}
		if dt, ok := gen.inDType(0); ok && !accepts(dt) {
			return gen.fail("input dtype %s: PyTorch computes %s in floating point only; cast the input to float32 first", dt, w.floatOnly)
		}
	}
	return write(gen, n)
}

func binary(f string) func(*generator, *canon.Node) error {
	return func(gen *generator, n *canon.Node) error {
		extra := ""
		if v, ok := gen.g.Values.Lookup(n.Inputs[0]); n.Op.(*canon.Binary).Fn == canon.Div && ok && v.DType.IsInt() {
			extra = ", rounding_mode=\"trunc\"" // ONNX integer Div truncates
		}
		return gen.call(f+"(%s, %s"+extra+")", 0, 1)
	}
}

// writeSelu: F.selu's fixed constants round to exactly SeluAlpha and
// SeluGamma in float32; other constants get the same formula spelled out.
func writeSelu(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Selu)
	if op.Alpha == canon.SeluAlpha && op.Gamma == canon.SeluGamma {
		return gen.call("F.selu(%s)", 0)
	}
	return gen.call(pyFloat(op.Gamma)+" * F.elu(%s, alpha="+pyFloat(op.Alpha)+")", 0)
}

// writeGelu registers an nn.GELU layer (no weights, so the state dict is
// unchanged); approximate= exists from PyTorch 1.12, and the README asks
// for 1.13.
func writeGelu(gen *generator, n *canon.Node) error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	layer := "nn.GELU()"
	if n.Op.(*canon.Gelu).Approximate == canon.GeluTanh {
		layer = "nn.GELU(approximate=\"tanh\")"
	}
	path := gen.claimPath(nil, n.Name, "gelu")
	gen.layers[path] = true
	gen.register(path, layer, false)
	gen.assign(gen.access(path) + "(" + x + ")")
	return nil
}

func writeLeakyRelu(gen *generator, n *canon.Node) error {
	return gen.call("F.leaky_relu(%s, negative_slope="+pyFloat(n.Op.(*canon.LeakyRelu).Alpha)+")", 0)
}

func writeHardSigmoid(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.HardSigmoid)
	if op.Alpha == float32(1.0/6) && op.Beta == 0.5 {
		return gen.call("F.hardsigmoid(%s)", 0)
	}
	return gen.call("torch.clamp(%s * "+pyFloat(op.Alpha)+" + "+pyFloat(op.Beta)+", 0.0, 1.0)", 0)
}

func globalPool(f string) func(*generator, *canon.Node) error {
	return func(gen *generator, n *canon.Node) error {
		r := gen.rankOf(n.Inputs[0])
		if r < 3 {
			return gen.fail("input rank is unknown or below 3")
		}
		return gen.call(f+"(%s, dim="+pyInts(seq(2, int64(r)), true)+", keepdim=True)", 0)
	}
}

func writeConcat(gen *generator, n *canon.Node) error {
	var parts []string
	for i := range n.Inputs {
		e, err := gen.in(i)
		if err != nil {
			return err
		}
		parts = append(parts, e)
	}
	gen.assign("torch.cat([" + strings.Join(parts, ", ") + "], dim=" + strconv.FormatInt(n.Op.(*canon.Concat).Axis, 10) + ")")
	return nil
}

func writeShape(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.ShapeOf)
	end := "]"
	if op.End != math.MaxInt64 {
		end = strconv.FormatInt(op.End, 10) + "]"
	}
	return gen.call("torch.tensor(%s.shape["+strconv.FormatInt(op.Start, 10)+":"+end+", dtype=torch.int64)", 0)
}

func writeDropout(gen *generator, n *canon.Node) error {
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
		v, ok := gen.g.Values.Lookup(o)
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
	if op.Alpha == 1 && biasOK && w != nil && gen.ownedInits(canon.Float32, 1, 2) {
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
	// counts, when set, is a tensor of ones padded like x: pooled, it
	// gives each window's number of input elements.
	counts := ""
	if !sym {
		if ceil {
			return gen.fail("ceil mode with unequal pads has no exact torch equivalent")
		}
		value := "float('-inf')"
		if kind == "avg" {
			value = "0.0"
		}
		if kind == "avg" && !includePad && !allZero(pb, pe) {
			// torch leaves only its own symmetric padding out of the
			// divisor: pad explicitly and divide each window's sum by its
			// count of input elements instead.
			counts = "F.pad(torch.ones_like(" + x + "[:1, :1]), " + fpad(pb, pe) + ")"
			includePad = true
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
		avg := func(in string) string {
			return fmt.Sprintf("F.avg_pool%s(%s, kernel_size=%s, stride=%s, padding=%s, ceil_mode=%s, count_include_pad=%s)",
				dim, in, pyInts(kernel, true), pyInts(strides, true), padding, pyBool(ceil), pyBool(includePad))
		}
		expr = avg(x)
		if counts != "" {
			expr += " / " + avg(counts)
		}
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
			return gen.reshapeParam(op)
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
	switch len(parts) {
	case 0:
		parts = []string{"()"} // a scalar: reshape() takes a shape
	case 1:
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
	if op.Mode == canon.PadWrap {
		return gen.padWrap(op)
	}
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
		expr := "F.pad(%[1]s, " + fpad(op.PadsBegin[2:], op.PadsEnd[2:]) + ", mode=\"" + mode + "\")"
		if dt, ok := gen.inDType(0); ok && !dt.IsFloat() {
			// torch pads these modes in floating point only; float64
			// holds integers of up to 32 bits exactly.
			if dt.Size() > 4 {
				return gen.fail("torch pads in %s mode in floating point only, and %s values do not fit float64 exactly", mode, dt)
			}
			expr = "F.pad(%[1]s.double(), " + fpad(op.PadsBegin[2:], op.PadsEnd[2:]) + ", mode=\"" + mode + "\").to(%[1]s.dtype)"
		}
		return gen.call(expr, 0)
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
