package onnximport

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// opEntry is how the importer reads one ONNX op type.
type opEntry struct {
	convert func(c *nodeCtx) error
	// since is the lowest default-domain opset at which the op means what
	// convert reads: the op's first version, or the version that gave it
	// its current semantics (opset 7's NumPy broadcasting for Add/Gemm/PRelu;
	// the removal of is_test from BatchNormalization and Dropout; Reshape's
	// shape input in 5).
	since int64
	// kinds are the canonical op kinds convert may produce; the first is
	// the one the ONNX op stands for, the others are helpers (Gemm's
	// transposes, the reshapes around an old-style Softmax).
	kinds []string
}

// ops maps every ONNX op type the importer reads to its entry. It is the
// one list of ONNX ops: coverage, error messages and the opset check come
// from it.
var ops map[string]opEntry

// unsupported names the canonical kinds no ONNX op is read into, with the
// reason. Every kind is read today.
var unsupported = map[string]string{}

func init() {
	un := func(fn canon.UnaryFn) func(c *nodeCtx) error {
		return simple(func() canon.Op { return &canon.Unary{Fn: fn} })
	}
	bin := func(fn canon.BinaryFn) func(c *nodeCtx) error {
		return simple(func() canon.Op { return &canon.Binary{Fn: fn} })
	}
	optable.Add(&ops, map[string]opEntry{
		"Conv":               {convConv, 1, []string{"Conv"}},
		"ConvTranspose":      {convConvTranspose, 1, []string{"ConvTranspose"}},
		"MaxPool":            {convMaxPool, 1, []string{"MaxPool"}},
		"AveragePool":        {convAveragePool, 1, []string{"AveragePool"}},
		"GlobalAveragePool":  {simple(func() canon.Op { return &canon.GlobalAveragePool{} }), 1, []string{"GlobalAveragePool"}},
		"GlobalMaxPool":      {simple(func() canon.Op { return &canon.GlobalMaxPool{} }), 1, []string{"GlobalMaxPool"}},
		"BatchNormalization": {convBatchNorm, 7, []string{"BatchNormalization", "ReduceMean", "Sub", "Mul", "Add", "Squeeze", "Constant"}},
		"Gemm":               {convGemm, 7, []string{"Linear", "Transpose"}},
		"MatMul":             {simple(func() canon.Op { return &canon.MatMul{} }), 1, []string{"MatMul"}},
		"Add":                {bin(canon.Add), 7, []string{"Add"}},
		"Sub":                {bin(canon.Sub), 7, []string{"Sub"}},
		"Mul":                {bin(canon.Mul), 7, []string{"Mul"}},
		"Div":                {bin(canon.Div), 7, []string{"Div"}},
		"Relu":               {un(canon.Relu), 1, []string{"Relu"}},
		"Sigmoid":            {un(canon.Sigmoid), 1, []string{"Sigmoid"}},
		"Tanh":               {un(canon.Tanh), 1, []string{"Tanh"}},
		"HardSwish":          {un(canon.HardSwish), 14, []string{"HardSwish"}},
		"Softplus":           {un(canon.Softplus), 1, []string{"Softplus"}},
		"Softsign":           {un(canon.Softsign), 1, []string{"Softsign"}},
		"PRelu":              {simple(func() canon.Op { return &canon.PRelu{} }), 7, []string{"PRelu"}},
		"LeakyRelu": {func(c *nodeCtx) error {
			return c.emit(&canon.LeakyRelu{Alpha: c.float("alpha", 0.01)}, []string{c.in(0)}, c.out1())
		}, 1, []string{"LeakyRelu"}},
		"Elu": {func(c *nodeCtx) error {
			return c.emit(&canon.Elu{Alpha: c.float("alpha", 1)}, []string{c.in(0)}, c.out1())
		}, 1, []string{"Elu"}},
		"Selu": {convSelu, 1, []string{"Selu"}},
		"Gelu": {convGelu, 20, []string{"Gelu"}},
		"HardSigmoid": {func(c *nodeCtx) error {
			return c.emit(&canon.HardSigmoid{Alpha: c.float("alpha", 0.2), Beta: c.float("beta", 0.5)}, []string{c.in(0)}, c.out1())
		}, 1, []string{"HardSigmoid"}},
		"Clip":     {convClip, 1, []string{"Clip"}},
		"Softmax":  {convSoftmax, 1, []string{"Softmax", "Flatten", "Reshape", "Shape"}},
		"Dropout":  {convDropout, 7, []string{"Dropout"}},
		"Identity": {convIdentity, 1, []string{"Identity"}},
		"Flatten": {func(c *nodeCtx) error {
			axis := c.int("axis", 1)
			if axis < 0 {
				axis += int64(c.needRank(0, "a negative Flatten axis"))
			}
			if r, ok := c.rank(0); ok && (axis < 0 || axis > int64(r)) {
				c.fail("axis %d is out of range for rank %d", c.int("axis", 1), r)
			}
			return c.emit(&canon.Flatten{Axis: axis}, []string{c.in(0)}, c.out1())
		}, 1, []string{"Flatten"}},
		"Concat": {func(c *nodeCtx) error {
			if !c.has("axis") {
				c.fail("the axis attribute is required")
			}
			axis := c.int("axis", 0)
			for i := range c.n.Input {
				if r, ok := c.rank(i); ok {
					axis = c.normAxis(axis, r, "axis")
					break
				}
			}
			return c.emit(&canon.Concat{Axis: axis}, append([]string{}, c.n.Input...), c.out1())
		}, 4, []string{"Concat"}},
		"Split":     {convSplit, 2, []string{"Split", "Shape", "Gather", "Constant", "Add", "Sub", "Mul", "Div", "Min", "Max"}},
		"Squeeze":   {convSqueeze, 1, []string{"Squeeze"}},
		"Unsqueeze": {convUnsqueeze, 1, []string{"Unsqueeze"}},
		"Reshape":   {convReshape, 5, []string{"Reshape"}},
		"Transpose": {func(c *nodeCtx) error {
			perm := c.ints("perm")
			if perm == nil {
				r := c.needRank(0, "Transpose without perm (reverse all axes)")
				perm = make([]int64, r)
				for i := range perm {
					perm[i] = int64(r - 1 - i)
				}
			}
			return c.emit(&canon.Transpose{Perm: perm}, []string{c.in(0)}, c.out1())
		}, 1, []string{"Transpose"}},
		"Pad":   {convPad, 2, []string{"Pad"}},
		"Slice": {convSlice, 1, []string{"Slice"}},
		"Gather": {func(c *nodeCtx) error {
			axis := c.int("axis", 0)
			if r, ok := c.rank(0); ok {
				axis = c.normAxis(axis, r, "axis")
			}
			return c.emit(&canon.Gather{Axis: axis}, []string{c.in(0), c.in(1)}, c.out1())
		}, 1, []string{"Gather"}},
		"Shape": {func(c *nodeCtx) error {
			op := canon.NewShapeOf()
			if c.im.opset >= 15 {
				op.Start = c.int("start", 0)
				op.End = c.int("end", math.MaxInt64)
			}
			return c.emit(op, []string{c.in(0)}, c.out1())
		}, 1, []string{"Shape"}},
		"Constant": {convConstant, 1, []string{"Constant"}},
		"Upsample": {convUpsample, 7, []string{"Resize"}},
		"Resize":   {convResize, 10, []string{"Resize"}},
	})
}

// fusion is a subgraph of several ONNX ops read as one canonical op.
type fusion struct {
	name  string // for coverage: which ONNX ops, in what shape
	since int64  // the lowest opset with every op of the pattern
	kind  string
	// find returns the pattern's matches in the file, keyed by the index
	// of the node that writes each match's result.
	find func(im *importer, nodes []*onnxpb.NodeProto) map[int]fusedMatch
}

// fusedMatch is one recognized subgraph: the file nodes it spans, and how
// to emit the canonical node that stands for it.
type fusedMatch interface {
	span() []int
	convert(im *importer, name string) error
}

// fusions lists the subgraphs the importer recognizes (see gelu.go).
var fusions = []fusion{
	{"Div/Mul → Erf → Add → Mul → Mul, as torch.onnx writes Gelu below opset 20", 9, "Gelu", findGeluMatches},
}

// Coverage is the importer's op table as coverage: for every canonical
// kind, the ONNX op types (and patterns) read into it with their opsets, or
// why none is.
func Coverage() canon.Coverage {
	type source struct {
		text  string
		since int64
	}
	by := map[string][]source{}
	for _, name := range sortedKeys(ops) {
		e := ops[name]
		since := e.since
		if l, ok := legacyForms[name]; ok {
			since = min(since, l.since)
		}
		by[e.kinds[0]] = append(by[e.kinds[0]], source{fmt.Sprintf("%s (opset %d+)", name, since), since})
	}
	for _, f := range fusions {
		by[f.kind] = append(by[f.kind], source{fmt.Sprintf("%s (opset %d+)", f.name, f.since), f.since})
	}
	cov := canon.Coverage{}
	for _, d := range canon.Ops() {
		srcs := by[d.Kind]
		if len(srcs) == 0 {
			reason := unsupported[d.Kind]
			if reason == "" {
				continue // a gap: the coverage test names it
			}
			cov[d.Kind] = canon.Lacks(reason)
			continue
		}
		texts := make([]string, len(srcs))
		lo := srcs[0].since
		for i, s := range srcs {
			texts[i] = s.text
			lo = min(lo, s.since)
		}
		s := canon.Handles("ONNX " + strings.Join(texts, "; "))
		s.MinOpset, s.MaxOpset = int(max(lo, MinOpset)), MaxOpset
		cov[d.Kind] = s
	}
	return cov
}

// convSelu applies the defaults of the opset in use: Selu-1 declared
// 4-digit constants, Selu-6 the float32 roundings of the exact ones.
func convSelu(c *nodeCtx) error {
	alpha, gamma := canon.SeluAlpha, canon.SeluGamma
	if c.im.opset < 6 {
		alpha, gamma = 1.6732, 1.0507
	}
	op := &canon.Selu{Alpha: c.float("alpha", alpha), Gamma: c.float("gamma", gamma)}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

// simple converts ops without attributes whose inputs map one to one.
func simple(mk func() canon.Op) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		return c.emit(mk(), append([]string{}, c.n.Input...), c.out1())
	}
}

// SupportedOps lists the ONNX op types the importer converts.
func SupportedOps() []string { return sortedKeys(ops) }

// convertNode converts one ONNX node into one or more canonical nodes.
func (im *importer) convertNode(n *onnxpb.NodeProto, name string) error {
	op := n.GetOpType()
	if n.GetDomain() == mlDomain {
		return im.convertMLNode(n, name)
	}
	if d := n.GetDomain(); d != "" && d != "ai.onnx" {
		if strings.HasPrefix(d, "ai.onnx.") {
			// ONNX's own other domains: classical ML, training, preview ops.
			return fmt.Errorf("node %q (%s) is in ONNX's %s domain: modelbridge reads default-domain (ai.onnx) ops only", name, op, d)
		}
		return fmt.Errorf("node %q (%s) is in domain %q: only default-domain (ai.onnx) ops are supported by modelbridge; export the model without vendor-specific ops (for ONNX Runtime, save it before graph optimizations)", name, op, d)
	}
	e, ok := ops[op]
	if !ok {
		return fmt.Errorf("node %q (%s): op not supported by modelbridge (`modelbridge ops` lists the %d ONNX op types it reads); re-export the model without it, or cut the graph before it (modelbridge extract IN OUT --outputs VALUE) and run that part separately", name, op, len(SupportedOps()))
	}
	if im.opset < 0 {
		return fmt.Errorf("node %q (%s) is a default-domain (ai.onnx) op, but the model imports no default-domain opset; the model is not valid ONNX", name, op)
	}
	legacy, hasLegacy := legacyForms[op]
	if im.opset < e.since && !(hasLegacy && im.opset >= legacy.since) {
		return fmt.Errorf("node %q (%s): the model's opset %d predates the %s semantics modelbridge reads (opset >= %d); upgrade the model with onnx.version_converter", name, op, im.opset, op, e.since)
	}
	return im.convertEntry(n, name, op, e)
}

// convertEntry converts node n by its table entry e, its opset checked.
func (im *importer) convertEntry(n *onnxpb.NodeProto, name, op string, e opEntry) error {
	legacy, hasLegacy := legacyForms[op]
	c := &nodeCtx{im: im, n: n, name: name, op: op, attrs: map[string]*onnxpb.AttributeProto{}}
	for _, a := range n.Attribute {
		if a.GetRefAttrName() != "" {
			return c.errf("attribute %s refers to a function attribute; only plain graphs are supported", a.GetName())
		}
		c.attrs[a.GetName()] = a
	}
	for _, in := range n.Input {
		if _, ok := im.vals.Lookup(in); in != "" && !ok {
			return c.errf("input %q is not defined before the node", in)
		}
	}
	if hasLegacy && im.opset < legacy.before {
		if err := legacy.resolve(c); err != nil {
			return err
		}
		if c.err != nil {
			return c.err
		}
	}
	first := len(im.g.Nodes)
	if err := e.convert(c); err != nil {
		return err
	}
	if c.err != nil {
		return c.err
	}
	return checkKinds(im.g.Nodes[first:], op, e.kinds)
}

// checkKinds keeps the table honest: a converter produces only the kinds
// its entry declares, which is what coverage reports.
func checkKinds(nodes []*canon.Node, op string, kinds []string) error {
	for _, n := range nodes {
		if !slices.Contains(kinds, n.Op.Kind()) {
			return fmt.Errorf("node %q (%s): internal error: the %s converter produced a %s node, which its table entry does not declare; please report this", n.Name, op, op, n.Op.Kind())
		}
	}
	return nil
}

// ---- convolutions and pooling ----

// maxWindowValue bounds kernel sizes, strides, dilations and pads; real
// models stay far below it, and products of two such values fit in int64.
const maxWindowValue = 1 << 30

func inWindowRange(v int64) bool { return v >= 0 && v <= maxWindowValue }

// windowAttrs are the attributes convolutions and pools share.
type windowAttrs struct {
	kernel, strides, dilations, padsBegin, padsEnd []int64
	autoPad                                        string
}

// readWindow reads strides, dilations, pads and auto_pad for a window of
// the given kernel, and turns SAME_* auto padding into explicit pads.
func (c *nodeCtx) readWindow(kernel []int64, dilationsOK bool) windowAttrs {
	nsp := len(kernel)
	w := windowAttrs{kernel: kernel}
	get := func(name string, n int, def int64) []int64 {
		v := c.ints(name)
		if v == nil {
			return fill(n, def)
		}
		if len(v) != n {
			c.fail("attribute %s has %d values, want %d (one per spatial axis%s)", name, len(v), n, map[bool]string{true: ", begins then ends", false: ""}[n == 2*nsp && nsp > 0])
			return fill(n, def)
		}
		return v
	}
	w.strides = get("strides", nsp, 1)
	w.dilations = fill(nsp, 1)
	if dilationsOK {
		w.dilations = get("dilations", nsp, 1)
	}
	pads := get("pads", 2*nsp, 0)
	w.padsBegin, w.padsEnd = pads[:nsp], pads[nsp:]
	for i := 0; i < nsp; i++ {
		if kernel[i] <= 0 || w.strides[i] <= 0 || w.dilations[i] <= 0 {
			c.fail("kernel %v, strides %v and dilations %v must be positive", kernel, w.strides, w.dilations)
			return w
		}
		// Bounded so that window arithmetic cannot overflow int64.
		if kernel[i] > maxWindowValue || w.strides[i] > maxWindowValue || w.dilations[i] > maxWindowValue {
			c.fail("kernel %v, strides %v or dilations %v exceed %d", kernel, w.strides, w.dilations, int64(maxWindowValue))
			return w
		}
	}
	w.autoPad = c.str("auto_pad", "NOTSET")
	switch w.autoPad {
	case "NOTSET", "":
		for _, p := range pads {
			if p < 0 || p > maxWindowValue {
				c.fail("pads %v must lie in [0, %d]", pads, int64(maxWindowValue))
				break
			}
		}
	case "VALID":
		w.padsBegin, w.padsEnd = fill(nsp, 0), fill(nsp, 0)
	case "SAME_UPPER", "SAME_LOWER":
		in := c.spatial(nsp, "auto_pad "+w.autoPad)
		if in == nil {
			break
		}
		for i := 0; i < nsp; i++ {
			if in[i] > maxWindowValue {
				c.fail("auto_pad %s needs spatial sizes up to %d; input 0 has %v", w.autoPad, int64(maxWindowValue), in)
				return w
			}
			out := (in[i] + w.strides[i] - 1) / w.strides[i]
			total := max(0, (out-1)*w.strides[i]+(kernel[i]-1)*w.dilations[i]+1-in[i])
			small, big := total/2, total-total/2
			if w.autoPad == "SAME_UPPER" {
				w.padsBegin[i], w.padsEnd[i] = small, big
			} else {
				w.padsBegin[i], w.padsEnd[i] = big, small
			}
		}
	default:
		c.fail("auto_pad %q is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER", w.autoPad)
	}
	return w
}

// spatial returns input 0's static spatial sizes, or records why they are
// needed.
func (c *nodeCtx) spatial(nsp int, why string) []int64 {
	x := c.info(0)
	if x.RankKnown && len(x.Shape) == nsp+2 {
		out := make([]int64, nsp)
		ok := true
		for i := range out {
			out[i] = x.Shape[i+2].Size
			ok = ok && x.Shape[i+2].Known()
		}
		if ok {
			return out
		}
	}
	c.fail("%s needs the static spatial shape of input %q, which is unknown; give the model's inputs full shapes (--input-shape) or re-export with explicit pads", why, c.in(0))
	return nil
}

// convKernel is the kernel from kernel_shape or the weight's shape.
func (c *nodeCtx) convKernel() []int64 {
	k := c.ints("kernel_shape")
	ws, wok := c.info(1).StaticShape()
	if wok && len(ws) < 3 {
		c.fail("weight %q has shape %v; a convolution weight needs at least 3 axes", c.in(1), ws)
		return nil
	}
	if k == nil {
		if !wok {
			c.fail("the kernel shape is unknown: weight %q has no static shape and there is no kernel_shape attribute", c.in(1))
			return nil
		}
		return append([]int64{}, ws[2:]...)
	}
	if wok && fmt.Sprint(k) != fmt.Sprint(ws[2:]) {
		c.fail("kernel_shape %v does not match weight %q of shape %v", k, c.in(1), ws)
	}
	return k
}

func convConv(c *nodeCtx) error {
	k := c.convKernel()
	w := c.readWindow(k, true)
	op := &canon.Conv{Strides: w.strides, Dilations: w.dilations, PadsBegin: w.padsBegin, PadsEnd: w.padsEnd, Group: c.int("group", 1)}
	if op.Group < 1 {
		c.fail("group %d must be at least 1", op.Group)
	}
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}

func convConvTranspose(c *nodeCtx) error {
	k := c.convKernel()
	nsp := len(k)
	// Pads of a transposed convolution crop its full output, so the forward
	// SAME formula does not apply: read the window with auto_pad off.
	autoPad := c.str("auto_pad", "NOTSET")
	w := c.readWindow(k, true)
	if c.err != nil {
		return c.err
	}
	if autoPad != "VALID" && autoPad != "NOTSET" && autoPad != "" {
		w.padsBegin, w.padsEnd = fill(nsp, 0), fill(nsp, 0)
	}
	op := &canon.ConvTranspose{Strides: w.strides, Dilations: w.dilations, PadsBegin: w.padsBegin, PadsEnd: w.padsEnd, Group: c.int("group", 1)}
	if op.Group < 1 {
		c.fail("group %d must be at least 1", op.Group)
	}
	op.OutputPadding = c.ints("output_padding")
	if op.OutputPadding == nil {
		op.OutputPadding = fill(nsp, 0)
	} else if len(op.OutputPadding) != nsp {
		c.fail("output_padding has %d values, want %d", len(op.OutputPadding), nsp)
		op.OutputPadding = fill(nsp, 0)
	}
	outShape := c.ints("output_shape")
	if len(outShape) == nsp+2 {
		outShape = outShape[2:] // some exporters write the full (N, C, ...) shape
	}
	same := autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER"
	if outShape != nil || same {
		in := c.spatial(nsp, "ConvTranspose with output_shape or auto_pad")
		if in == nil {
			return c.err
		}
		if outShape == nil {
			outShape = make([]int64, nsp)
			for i := range outShape {
				outShape[i] = in[i] * w.strides[i]
			}
		}
		if len(outShape) != nsp {
			c.fail("output_shape %v has %d values, want %d", outShape, len(outShape), nsp)
			return c.err
		}
		for i := 0; i < nsp; i++ {
			if !inWindowRange(in[i]) || !inWindowRange(outShape[i]) || !inWindowRange(op.OutputPadding[i]) {
				c.fail("input sizes %v, output_shape %v and output_padding %v must lie in [0, %d]", in, outShape, op.OutputPadding, int64(maxWindowValue))
				return c.err
			}
		}
		for i := 0; i < nsp; i++ {
			// ONNX: total = s*(in-1) + output_padding + ((k-1)*d+1) - out.
			total := w.strides[i]*(in[i]-1) + op.OutputPadding[i] + (k[i]-1)*w.dilations[i] + 1 - outShape[i]
			if total < 0 {
				// A requested output larger than the full output: the extra
				// rows/columns at the end are what output_padding produces.
				op.OutputPadding[i] -= total
				total = 0
			}
			// The ONNX spec puts the odd pixel at the end only for
			// SAME_UPPER; output_shape without auto_pad (NOTSET) and
			// SAME_LOWER put it at the beginning, as ONNX Runtime does.
			small, big := total/2, total-total/2
			if autoPad == "SAME_UPPER" {
				op.PadsBegin[i], op.PadsEnd[i] = small, big
			} else {
				op.PadsBegin[i], op.PadsEnd[i] = big, small
			}
		}
	}
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}

func (c *nodeCtx) poolKernel() []int64 {
	k := c.ints("kernel_shape")
	if k == nil {
		c.fail("the kernel_shape attribute is required")
	}
	return k
}

func convMaxPool(c *nodeCtx) error {
	outs := c.outputs(2, "MaxPool has only Y and Indices")
	w := c.readWindow(c.poolKernel(), c.im.opset >= 10)
	op := &canon.MaxPool{Kernel: w.kernel, Strides: w.strides, Dilations: w.dilations, PadsBegin: w.padsBegin, PadsEnd: w.padsEnd,
		ColumnMajorIndices: c.int("storage_order", 0) != 0}
	if c.im.opset >= 10 {
		op.CeilMode = c.int("ceil_mode", 0) != 0
	}
	return c.emit(op, []string{c.in(0)}, outs)
}

func convAveragePool(c *nodeCtx) error {
	w := c.readWindow(c.poolKernel(), c.im.opset >= 19)
	op := &canon.AveragePool{Kernel: w.kernel, Strides: w.strides, Dilations: w.dilations, PadsBegin: w.padsBegin, PadsEnd: w.padsEnd,
		CountIncludePad: c.int("count_include_pad", 0) != 0}
	if c.im.opset >= 10 {
		op.CeilMode = c.int("ceil_mode", 0) != 0
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

// ---- dense and normalization ----

func convBatchNorm(c *nodeCtx) error {
	if c.int("training_mode", 0) != 0 {
		return convBatchNormTraining(c)
	}
	if c.int("spatial", 1) == 0 {
		if r, ok := c.rank(1); ok && r != 1 {
			c.fail("spatial=0 (per-activation statistics) is not supported")
		}
	}
	outs := c.outputs(1, "the running statistics outputs only exist in training mode; export the model in eval mode")
	op := &canon.BatchNorm{Epsilon: c.float("epsilon", 1e-5)}
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2), c.in(3), c.in(4)}, outs)
}

func convGemm(c *nodeCtx) error {
	alpha, beta := c.float("alpha", 1), c.float("beta", 1)
	a, b := c.in(0), c.in(1)
	if c.int("transA", 0) != 0 {
		var err error
		if a, err = c.emitAux("transpose_A", &canon.Transpose{Perm: []int64{1, 0}}, a); err != nil {
			return err
		}
	}
	if c.int("transB", 0) == 0 {
		// Linear wants W as (N, K); ONNX B is (K, N) here.
		if t := c.im.inits[b]; t != nil {
			b = c.transposedInit(t)
		} else {
			var err error
			if b, err = c.emitAux("transpose_B", &canon.Transpose{Perm: []int64{1, 0}}, b); err != nil {
				return err
			}
		}
	}
	return c.emit(&canon.Linear{Alpha: alpha, Beta: beta}, []string{a, b, c.in(2)}, c.out1())
}

// transposedInit returns the name of t stored transposed: t itself, changed
// in place, when only this node reads it; otherwise a copy under a new name.
func (c *nodeCtx) transposedInit(t *canon.Tensor) string {
	im := c.im
	if name, ok := im.transposed[t.Name]; ok {
		return name
	}
	if len(t.Shape) != 2 {
		c.fail("Gemm B %q has shape %v; it must be 2-D", t.Name, t.Shape)
		return t.Name
	}
	if err := t.CheckData(); err != nil {
		c.fail("%v", err)
		return t.Name
	}
	data, err := im.transposeData(t)
	if err != nil {
		c.fail("%v", err)
		return t.Name
	}
	shape := []int64{t.Shape[1], t.Shape[0]}
	if im.uses.count(t.Name) == 1 && !im.outputs[t.Name] {
		t.Data, t.Shape = data, shape
		im.vals.Set(t.Name, constInfo(t))
		im.transposed[t.Name] = t.Name
		return t.Name
	}
	nt := &canon.Tensor{Name: im.fresh(t.Name + "_transposed"), DType: t.DType, Shape: shape, Data: data}
	im.addInit(nt, t.Name)
	im.transposed[t.Name] = nt.Name
	return nt.Name
}

// transposeKey identifies a 2-D weight's bytes, which Identity aliases
// share with the weight they name.
type transposeKey struct {
	data       *byte
	rows, cols int64
	dtype      canon.DType
}

// transposeData returns t's data transposed (t is 2-D and consistent):
// Gemm's B stored (K, N) is a Linear weight with its axes swapped, which
// canon.PermuteTensor turns into the layout Linear reads.
// Aliases of one weight share one transposed copy: otherwise each Identity
// of a big weight read as Gemm B would cost a copy of it, so that a small
// file could make the import allocate without bound.
func (im *importer) transposeData(t *canon.Tensor) ([]byte, error) {
	if len(t.Data) == 0 {
		// An empty weight may still declare a huge dimension: no loop.
		return []byte{}, nil
	}
	key := transposeKey{&t.Data[0], t.Shape[0], t.Shape[1], t.DType}
	if d, ok := im.transposedData[key]; ok {
		return d, nil
	}
	want, _ := canon.LayoutFor(canon.RoleLinearWeight, 2)
	src := *t
	src.Layout = canon.Layout([]byte{want[1], want[0]})
	out, err := canon.PermuteTensor(&src, want)
	if err != nil {
		return nil, err
	}
	if im.transposedData == nil {
		im.transposedData = map[transposeKey][]byte{}
	}
	im.transposedData[key] = out.Data
	return out.Data, nil
}

// ---- activations ----

func convClip(c *nodeCtx) error {
	op := canon.NewClip()
	if c.im.opset < 11 {
		op.Min = c.float("min", op.Min)
		op.Max = c.float("max", op.Max)
		return c.emit(op, []string{c.in(0)}, c.out1())
	}
	// Opset 11 made the bounds inputs; a bound computed at run time stays one.
	if !c.dynamic(1) {
		op.Min = float32(c.constScalar(1, "Clip min", math.Inf(-1)))
	}
	if !c.dynamic(2) {
		op.Max = float32(c.constScalar(2, "Clip max", math.Inf(1)))
	}
	return c.emit(op, []string{c.in(0), c.dynIn(1), c.dynIn(2)}, c.out1())
}

func convSoftmax(c *nodeCtx) error {
	outs := c.out1()
	if c.im.opset >= 13 {
		axis := c.int("axis", -1)
		if r, ok := c.rank(0); ok {
			axis = c.normAxis(axis, r, "axis")
		}
		return c.emit(&canon.Softmax{Axis: axis}, []string{c.in(0)}, outs)
	}
	// Before opset 13 Softmax flattens to 2-D at axis and normalizes rows.
	r := c.needRank(0, "Softmax before opset 13")
	axis := c.int("axis", 1)
	if c.err != nil {
		return c.err
	}
	if axis < 0 {
		axis += int64(r)
	}
	if axis < 0 || axis > int64(r) {
		return c.errf("axis %d is out of range for rank %d", c.int("axis", 1), r)
	}
	if axis == int64(r-1) {
		return c.emit(&canon.Softmax{Axis: axis}, []string{c.in(0)}, outs)
	}
	flat, err := c.emitAux("flatten", &canon.Flatten{Axis: axis}, c.in(0))
	if err != nil {
		return err
	}
	sm := c.im.fresh(c.name + "/softmax")
	if err := c.emit(&canon.Softmax{Axis: 1}, []string{flat}, []string{sm}); err != nil {
		return err
	}
	if shape, ok := c.info(0).StaticShape(); ok {
		return c.emitNamed(c.im.freshNode(c.name+"/reshape"), &canon.Reshape{Shape: shape}, []string{sm}, outs)
	}
	// Dynamic dims: restore the shape at run time.
	shp, err := c.emitAux("shape", canon.NewShapeOf(), c.in(0))
	if err != nil {
		return err
	}
	return c.emitNamed(c.im.freshNode(c.name+"/reshape"), &canon.Reshape{}, []string{sm, shp}, outs)
}

func convDropout(c *nodeCtx) error {
	op := &canon.Dropout{Ratio: 0.5}
	if c.im.opset < 12 {
		op.Ratio = c.float("ratio", 0.5)
	} else {
		ratioKnown := c.in(1) == "" // absent: ONNX's default 0.5
		if c.in(1) != "" {
			// The ratio has no effect at inference; keep it when known.
			if v := c.im.vals.Get(c.in(1)); v.Const != nil {
				if f, err := v.Const.Float64s(); err == nil && len(f) == 1 {
					op.Ratio, ratioKnown = float32(f[0]), true
				}
			}
		}
		if c.in(2) != "" {
			// In training mode a ratio of 0 drops nothing: the identity
			// with an all-true mask, as at inference. Any other ratio is
			// random.
			v := c.im.vals.Get(c.in(2))
			if v.Const == nil {
				return convDropoutRunTimeMode(c, op)
			}
			switch b, err := v.Const.Int64s(); {
			case err != nil || len(b) != 1:
				c.fail("training_mode %q is not one boolean", c.in(2))
			case b[0] != 0 && !(ratioKnown && op.Ratio == 0):
				c.fail("training_mode is true with a ratio that is not a constant 0, which drops elements at random: modelbridge converts inference graphs; export the model in eval mode")
			}
		}
	}
	outs := append([]string{}, c.n.Output...)
	for len(outs) > 0 && outs[len(outs)-1] == "" {
		outs = outs[:len(outs)-1]
	}
	if len(outs) == 0 || len(outs) > 2 || outs[0] == "" {
		return c.errf("Dropout has outputs %q; want the output and an optional mask", c.n.Output)
	}
	return c.emit(op, []string{c.in(0)}, outs)
}

// convIdentity turns an Identity of a weight into a second name for that
// weight (exporters such as PyTorch's write shared parameters this way), so
// that the weight keeps its layout; other Identities stay nodes.
func convIdentity(c *nodeCtx) error {
	outs := c.out1()
	if t := c.im.inits[c.in(0)]; t != nil && len(outs) == 1 && !c.im.outputs[outs[0]] && c.err == nil {
		alias := *t
		alias.Name, alias.Layout = outs[0], ""
		alias.Shape = append([]int64{}, t.Shape...)
		c.im.addInit(&alias, t.Name)
		delete(c.im.derivedSet, alias.Name) // it has a name from the file
		return nil
	}
	return c.emit(&canon.Identity{}, []string{c.in(0)}, outs)
}

// ---- shape manipulation ----

func convSplit(c *nodeCtx) error {
	outs := append([]string{}, c.n.Output...)
	if len(outs) == 0 {
		return c.errf("Split has no outputs")
	}
	r := c.rankOr(0)
	axis := c.int("axis", 0)
	if r >= 0 {
		axis = c.normAxis(axis, r, "axis")
	}
	var sizes []int64
	if c.im.opset < 13 {
		sizes = c.ints("split")
	} else if c.dynamic(1) {
		return c.emit(&canon.Split{Axis: axis}, []string{c.in(0), c.in(1)}, outs)
	} else if c.in(1) != "" {
		sizes, _ = c.constInts(1, "split sizes")
	}
	if c.err != nil {
		return c.err
	}
	if len(sizes) == 0 {
		n := int64(len(outs))
		if c.im.opset >= 18 && c.has("num_outputs") {
			if k := c.int("num_outputs", 0); k != n {
				return c.errf("num_outputs is %d but the node has %d outputs", k, n)
			}
		}
		x := c.info(0)
		if axis >= 0 && (r < 0 || int(axis) < r && !x.Shape[axis].Known()) {
			return c.equalSplitAtRunTime(axis, outs)
		}
		if r < 0 || axis < 0 || int(axis) >= r {
			return c.errf("splitting into equal parts along axis %d needs the rank of input %q, which is unknown; give the model's inputs full shapes (--input-shape)", axis, c.in(0))
		}
		dim := x.Shape[axis].Size
		if c.im.opset >= 18 {
			// Opset 18: chunks of ceil(dim/n), the last one smaller.
			chunk := (dim + n - 1) / n
			for i := int64(0); i < n; i++ {
				sizes = append(sizes, max(0, min(chunk, dim-i*chunk)))
			}
		} else {
			if dim%n != 0 {
				return c.errf("axis %d of size %d cannot be split into %d equal parts", axis, dim, n)
			}
			sizes = fill(int(n), dim/n)
		}
	}
	if len(sizes) != len(outs) {
		return c.errf("split sizes %v give %d parts but the node has %d outputs", sizes, len(sizes), len(outs))
	}
	return c.emit(&canon.Split{Axis: axis, Sizes: sizes}, []string{c.in(0)}, outs)
}

func (c *nodeCtx) axesAttrOrInput(attrBefore int64, what string) ([]int64, bool) {
	if c.im.opset < attrBefore {
		v := c.ints("axes")
		return v, v != nil
	}
	if c.in(1) == "" {
		return nil, false
	}
	return c.constInts(1, what)
}

func convSqueeze(c *nodeCtx) error {
	if c.im.opset >= 13 && c.dynamic(1) {
		return c.emit(&canon.Squeeze{}, []string{c.in(0), c.in(1)}, c.out1())
	}
	axes, _ := c.axesAttrOrInput(13, "Squeeze axes")
	if len(axes) == 0 {
		axes = nil // every size-1 axis
	}
	axes = c.normAxes(axes, c.rankOr(0), "axis")
	return c.emit(&canon.Squeeze{Axes: axes}, []string{c.in(0)}, c.out1())
}

func convUnsqueeze(c *nodeCtx) error {
	if c.im.opset >= 13 && c.dynamic(1) {
		return c.emit(&canon.Unsqueeze{}, []string{c.in(0), c.in(1)}, c.out1())
	}
	axes, ok := c.axesAttrOrInput(13, "Unsqueeze axes")
	if !ok && c.err == nil {
		c.fail("axes are required")
	}
	if r := c.rankOr(0); r >= 0 {
		axes = c.normAxes(axes, r+len(axes), "axis")
	}
	return c.emit(&canon.Unsqueeze{Axes: axes}, []string{c.in(0)}, c.out1())
}

func convReshape(c *nodeCtx) error {
	allowZero := c.im.opset >= 14 && c.int("allowzero", 0) != 0
	if v := c.info(1); v.Const != nil {
		shape, err := v.Const.Int64s()
		if err != nil {
			return c.errf("shape %q: %v", c.in(1), err)
		}
		// Non-nil even when empty: an empty target is a scalar.
		return c.emit(&canon.Reshape{Shape: append([]int64{}, shape...), AllowZero: allowZero}, []string{c.in(0)}, c.out1())
	}
	if c.in(1) == "" {
		return c.errf("the shape input is missing")
	}
	return c.emit(&canon.Reshape{AllowZero: allowZero}, []string{c.in(0), c.in(1)}, c.out1())
}

func convPad(c *nodeCtx) error {
	op := &canon.Pad{}
	switch mode := c.str("mode", "constant"); mode {
	case "constant":
		op.Mode = canon.PadConstant
	case "reflect":
		op.Mode = canon.PadReflect
	case "edge":
		op.Mode = canon.PadEdge
	case "wrap":
		if c.im.opset < 19 {
			c.fail("mode \"wrap\" is Pad-19's; this model's opset is %d", c.im.opset)
		}
		op.Mode = canon.PadWrap
	default:
		c.fail("mode %q is not supported (constant, reflect, edge and wrap are)", mode)
	}
	var pads []int64
	ins := []string{c.in(0)}
	if c.im.opset < 11 {
		pads = c.ints("pads")
		op.Value = c.float("value", 0)
		if pads == nil {
			c.fail("the pads attribute is required")
		}
	} else {
		if !c.dynamic(1) {
			pads, _ = c.constInts(1, "pads")
		}
		if !c.dynamic(2) {
			op.Value = float32(c.constScalar(2, "constant_value", 0))
		}
		if c.in(1) == "" {
			c.fail("the pads input is required")
		}
		ins = append(ins, c.dynIn(1), c.dynIn(2))
	}
	if c.err != nil {
		return c.err
	}
	if c.im.opset >= 18 && c.in(3) != "" && c.dynamic(3) {
		// Axes computed at run time place the pads, constant or not, when
		// the op runs.
		return c.emit(op, []string{c.in(0), c.in(1), c.dynIn(2), c.in(3)}, c.out1())
	}
	if c.dynamic(1) {
		// Pads computed at run time: they cover every axis, or the constant axes.
		if c.im.opset >= 18 && c.in(3) != "" {
			axes, _ := c.constInts(3, "Pad axes")
			op.Axes = c.normAxes(axes, c.rankOr(0), "axis")
			if c.err != nil {
				return c.err
			}
		}
		return c.emit(op, ins, c.out1())
	}
	if len(pads)%2 != 0 {
		return c.errf("pads %v must have an even length (begins then ends)", pads)
	}
	var axes []int64
	if c.im.opset >= 18 && c.in(3) != "" {
		axes, _ = c.constInts(3, "Pad axes")
		if c.err != nil {
			return c.err
		}
	}
	half := len(pads) / 2
	if axes == nil {
		if r, ok := c.rank(0); ok && r != half {
			return c.errf("pads %v have %d values per side but the input has rank %d", pads, half, r)
		}
		op.PadsBegin, op.PadsEnd = pads[:half], pads[half:]
	} else {
		r := c.needRank(0, "Pad with axes")
		if len(axes) != half {
			c.fail("pads %v do not match axes %v", pads, axes)
		}
		axes = c.normAxes(axes, r, "axis")
		if c.err != nil {
			return c.err
		}
		op.PadsBegin, op.PadsEnd = fill(r, 0), fill(r, 0)
		for i, a := range axes {
			op.PadsBegin[a], op.PadsEnd[a] = pads[i], pads[half+i]
		}
	}
	return c.emit(op, ins, c.out1())
}

func convSlice(c *nodeCtx) error {
	op := &canon.Slice{}
	ins := []string{c.in(0), "", "", "", ""}
	if c.im.opset < 10 {
		op.Starts, op.Ends, op.Axes = c.ints("starts"), c.ints("ends"), c.ints("axes")
		if op.Starts == nil || op.Ends == nil {
			c.fail("the starts and ends attributes are required")
		}
	} else {
		// Each parameter computed at run time stays an input of the same slot.
		fields := []*[]int64{&op.Starts, &op.Ends, &op.Axes, &op.Steps}
		for i, what := range []string{"Slice starts", "Slice ends", "Slice axes", "Slice steps"} {
			if c.dynamic(i + 1) {
				ins[i+1] = c.in(i + 1)
			} else {
				*fields[i], _ = c.constInts(i+1, what)
			}
		}
		if c.in(1) == "" || c.in(2) == "" {
			c.fail("the starts and ends inputs are required")
		}
	}
	if c.err != nil {
		return c.err
	}
	// The number of sliced axes, from the parameters known now.
	n := -1
	for i, v := range [][]int64{op.Starts, op.Ends, op.Axes, op.Steps} {
		if ins[i+1] != "" || (v == nil && i >= 2) {
			continue
		}
		if n >= 0 && len(v) != n {
			return c.errf("starts %v, ends %v, axes %v and steps %v must have the same length", op.Starts, op.Ends, op.Axes, op.Steps)
		}
		n = len(v)
	}
	if n < 0 {
		return c.emit(op, ins, c.out1()) // every parameter is computed at run time
	}
	if op.Axes == nil && ins[3] == "" {
		op.Axes = make([]int64, n)
		for i := range op.Axes {
			op.Axes[i] = int64(i)
		}
	}
	if op.Steps == nil && ins[4] == "" {
		op.Steps = fill(n, 1)
	}
	for _, s := range op.Steps {
		if s == 0 {
			return c.errf("a slice step is 0")
		}
	}
	op.Axes = c.normAxes(op.Axes, c.rankOr(0), "axis")
	return c.emit(op, ins, c.out1())
}

func convConstant(c *nodeCtx) error {
	outs := c.out1()
	if c.err != nil {
		return c.err
	}
	name := outs[0]
	var t *canon.Tensor
	switch {
	case c.has("value"):
		a := c.attr("value", onnxpb.AttributeProto_TENSOR)
		if a == nil {
			return c.err
		}
		var err error
		tp := a.GetT()
		if tp == nil {
			return c.errf("attribute value is a TENSOR attribute without a tensor; the file is damaged")
		}
		if t, err = c.im.tr.Convert(tp, tp.RawData, tp.RawData != nil); err != nil {
			return c.errf("%v", err)
		}
		t.Name = name
	case c.has("value_float"):
		t = canon.NewFloat32Tensor(name, []int64{}, []float32{c.float("value_float", 0)})
	case c.has("value_floats"):
		v := c.floats("value_floats")
		t = canon.NewFloat32Tensor(name, []int64{int64(len(v))}, v)
	case c.has("value_int"):
		t = canon.NewInt64Tensor(name, []int64{}, []int64{c.int("value_int", 0)})
	case c.has("value_ints"):
		t = canon.NewInt64Tensor(name, nil, c.ints("value_ints"))
	case c.has("sparse_value"):
		return c.errf("sparse constants are not supported; densify the model first")
	case c.has("value_string"), c.has("value_strings"):
		return c.errf("string constants are not supported by modelbridge")
	default:
		return c.errf("the node has no value attribute")
	}
	return c.emit(&canon.Constant{Value: t}, nil, outs)
}

// SourceOps maps each ONNX operator type the importer reads to the
// canonical kinds it becomes (Gemm to Linear, say).
func SourceOps() map[string][]string {
	out := map[string][]string{}
	for name, e := range ops {
		out[name] = e.kinds
	}
	return out
}
