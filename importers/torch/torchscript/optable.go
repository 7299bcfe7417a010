package torchscript

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// opEntry is one callable that serialized TorchScript code names: its
// handler, and every canonical op kind the handler may emit. The importer's
// coverage is derived from kinds; tests check that handlers emit nothing
// else.
type opEntry struct {
	handler opHandler
	kinds   []string
}

func entry(h opHandler, kinds ...string) opEntry { return opEntry{handler: h, kinds: kinds} }

// opTable is the importer's one table, keyed by the name serialized code
// calls (torch.X is aten::X). Names ending in "_" are in-place forms:
// inPlace makes every alias of the input see the result. Entries without
// kinds compute at import (sizes, ints, getattr) or alias their input.
var opTable map[string]opEntry

// builderKinds are canonical kinds the graph builder emits itself, not on
// behalf of one operator.
var builderKinds = map[string]string{
	"Identity": "when forward returns an input or weight unchanged",
}

// opLacks gives, for each canonical kind no TorchScript operator maps to,
// the reason. Every registered kind is produced or listed here (a test
// checks).
var opLacks = map[string]string{
	"ThresholdedRelu": "torch.threshold keeps NaN, which ThresholdedRelu maps to 0: it is read as Where(x <= threshold, value, x)",
	"Constant":        "constants become initializers, not Constant nodes",
	"Dropout":         "torch.dropout at inference is the identity; no node is emitted",
	"GlobalMaxPool":   "aten::adaptive_max_pool2d is not mapped yet",
	"Resize":          "aten::upsample_nearest2d is not mapped yet",
	"Softsign":        "TorchScript spells softsign as x / (1 + |x|), which is read as Abs, Add and Div",
}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch._convolution":        entry(opConvolution, "Conv", "ConvTranspose", "Unsqueeze", "Squeeze"),
		"torch.conv1d":              entry(opConvN, "Conv", "Unsqueeze", "Squeeze"),
		"torch.conv2d":              entry(opConvN, "Conv", "Unsqueeze", "Squeeze"),
		"torch.conv3d":              entry(opConvN, "Conv", "Unsqueeze", "Squeeze"),
		"torch.conv_transpose1d":    entry(opConvTransposeN, "ConvTranspose", "Unsqueeze", "Squeeze"),
		"torch.conv_transpose2d":    entry(opConvTransposeN, "ConvTranspose", "Unsqueeze", "Squeeze"),
		"torch.conv_transpose3d":    entry(opConvTransposeN, "ConvTranspose", "Unsqueeze", "Squeeze"),
		"torch.batch_norm":          entry(opBatchNorm, "BatchNormalization", "ReduceMean", "Sub", "Mul", "Add", "Sqrt", "Div", "Reshape"),
		"torch.relu":                entry(unaryOp(canon.Relu), "Relu"),
		"torch.sigmoid":             entry(unaryOp(canon.Sigmoid), "Sigmoid"),
		"torch.tanh":                entry(unaryOp(canon.Tanh), "Tanh"),
		"torch.hardswish":           entry(unaryOp(canon.HardSwish), "HardSwish"),
		"torch.hardtanh":            entry(opHardtanh, "Clip", "Max", "Min", "Cast", "Reshape"),
		"torch.relu6":               entry(opRelu6, "Clip", "Max", "Min", "Cast", "Reshape"),
		"torch.clamp":               entry(opClamp, "Clip", "Max", "Min", "Cast", "Reshape"),
		"torch.hardsigmoid":         entry(opHardsigmoid, "HardSigmoid"),
		"torch.silu":                entry(opSilu, "Sigmoid", "Mul"),
		"torch.leaky_relu":          entry(opLeakyRelu, "LeakyRelu"),
		"torch.softplus":            entry(opSoftplus, softplusKinds...),
		"torch.elu":                 entry(opElu, "Elu", "Selu"),
		"torch.selu":                entry(opSelu, "Selu"),
		"torch.gelu":                entry(opGelu, "Gelu"),
		"torch.softmax":             entry(opSoftmax, "Softmax", "Cast"),
		"torch.max_pool1d":          entry(opMaxPool(1), "MaxPool", "Unsqueeze", "Squeeze"),
		"torch.max_pool2d":          entry(opMaxPool(2), "MaxPool", "Unsqueeze", "Squeeze"),
		"torch.max_pool3d":          entry(opMaxPool(3), "MaxPool", "Unsqueeze", "Squeeze"),
		"torch.avg_pool1d":          entry(opAvgPool(1), "AveragePool", "Pad", "Mul", "Unsqueeze", "Squeeze"),
		"torch.avg_pool2d":          entry(opAvgPool(2), "AveragePool", "Pad", "Mul", "Unsqueeze", "Squeeze"),
		"torch.avg_pool3d":          entry(opAvgPool(3), "AveragePool", "Pad", "Mul", "Unsqueeze", "Squeeze"),
		"torch.adaptive_avg_pool1d": entry(opAdaptiveAvgPool(1), "GlobalAveragePool", "AveragePool", "MatMul", "Reshape", "Unsqueeze", "Squeeze"),
		"torch.adaptive_avg_pool2d": entry(opAdaptiveAvgPool(2), "GlobalAveragePool", "AveragePool", "MatMul", "Reshape", "Unsqueeze", "Squeeze"),
		"torch.adaptive_avg_pool3d": entry(opAdaptiveAvgPool(3), "GlobalAveragePool", "AveragePool", "MatMul", "Reshape", "Unsqueeze", "Squeeze"),
		"torch.linear":              entry(opLinear, "Linear", "Transpose", "MatMul", "Add"),
		"torch.addmm":               entry(opAddmm, "MatMul", "Mul", "Add"),
		"torch.matmul":              entry(opMatmul, "MatMul"),
		"torch.mm":                  entry(opMatmul, "MatMul"),
		"torch.t":                   entry(opT, "Transpose"),
		// add and sub scale their other operand by alpha with a Mul.
		"torch.add":              entry(binaryOp(canon.Add, "add"), "Add", "Mul", "Cast"),
		"torch.sub":              entry(binaryOp(canon.Sub, "sub"), "Sub", "Mul", "Cast"),
		"torch.mul":              entry(binaryOp(canon.Mul, "mul"), "Mul", "Cast"),
		"torch.div":              entry(binaryOp(canon.Div, "div"), divideKinds...),
		"torch.rsub":             entry(binaryOpOrder(canon.Sub, "sub", true), "Sub", "Mul", "Cast"),
		"torch.floor_divide":     entry(opFloorDivide, divideKinds...),
		"torch.cat":              entry(opCat, "Concat", "Unsqueeze", "Transpose", "Shape", "Reshape"),
		"torch.chunk":            entry(opChunk, "Split"),
		"torch.split":            entry(opSplit, "Split", "Concat"),
		"torch.split_with_sizes": entry(opSplit, "Split"),
		// A view to sizes known only at run time builds its shape with Concat.
		"torch.view":            entry(opView, "Reshape", "Concat"),
		"torch.reshape":         entry(opView, "Reshape", "Concat"),
		"torch.flatten":         entry(opFlatten, "Flatten", "Reshape"),
		"torch.size":            entry(opSize, "Shape"),
		"torch.transpose":       entry(opTranspose, "Transpose"),
		"torch.permute":         entry(opPermute, "Transpose"),
		"torch.contiguous":      entry(opContiguous),
		"torch.dropout":         entry(opDropout, "RandomUniformLike", "GreaterOrEqual", "Cast", "Mul"),
		"torch.feature_dropout": entry(opDropout),
		"torch.alpha_dropout":   entry(opDropout),
		"torch.mean":            entry(opMean, "ReduceMean", "Cast"),
		"torch.unsqueeze":       entry(opUnsqueeze, "Unsqueeze"),
		"torch.squeeze":         entry(opSqueeze, "Squeeze"),
		"ops.prim.NumToTensor":  entry(opNumToTensor),
		"int":                   entry(opInt, "Reshape", "Cast"),
		"float":                 entry(opFloat, "Reshape", "Cast"),
		"len":                   entry(opLen),
		"getattr":               entry(opGetattr),
		"annotate":              entry(opAnnotate, "Reshape", "Cast"),
	})
	for _, name := range []string{"view", "reshape", "flatten", "transpose", "permute", "t",
		"squeeze", "unsqueeze", "expand", "expand_as"} {
		e := opTable["torch."+name]
		opTable["torch."+name] = opEntry{handler: marksView(e.handler), kinds: e.kinds}
	}
	for _, name := range []string{"relu", "sigmoid", "tanh", "hardswish", "hardtanh", "hardsigmoid", "silu",
		"leaky_relu", "elu", "selu", "gelu", "clamp", "add", "sub", "mul", "div"} {
		e := opTable["torch."+name]
		opTable["torch."+name+"_"] = opEntry{handler: inPlace(e.handler), kinds: e.kinds}
	}
	// In-place dropout at inference leaves its tensor as it is, even a view
	// (EfficientNet's classifier: Dropout(inplace=True) after flatten).
	for _, name := range []string{"dropout", "feature_dropout", "alpha_dropout"} {
		opTable["torch."+name+"_"] = opTable["torch."+name]
	}
}

// Coverage is the importer's op table as coverage: each canonical kind
// with the TorchScript operators that produce it, or why none does. A
// registered kind in none of the tables is missing, which canon.Gaps
// reports.
func Coverage() canon.Coverage {
	from := map[string][]string{}
	for name, e := range opTable {
		for _, k := range e.kinds {
			from[k] = append(from[k], name)
		}
	}
	cov := canon.Coverage{}
	for kind, reason := range opLacks {
		cov[kind] = canon.Lacks(reason)
	}
	for kind, detail := range builderKinds {
		cov[kind] = canon.Handles(detail)
	}
	for kind, names := range from {
		sort.Strings(names)
		cov[kind] = canon.Handles("from " + strings.Join(names, ", "))
	}
	return cov
}

// checkEmittedKinds, set by tests, makes every operator call verify that
// the nodes it emitted are of kinds its table entry declares.
var checkEmittedKinds bool

func verifyEmitted(name string, e opEntry, nodes []*canon.Node) error {
	for _, n := range nodes {
		if !slices.Contains(e.kinds, n.Op.Kind()) && !(strings.HasSuffix(name, "_") && slices.Contains(writeBackKinds, n.Op.Kind())) {
			return fmt.Errorf("internal error: %s emitted a %s node, which its opTable entry does not declare", name, n.Op.Kind())
		}
	}
	return nil
}

// inPlace runs an op and writes the result into its first argument, so
// that later reads of the same tensor (through any variable) see it, as
// they would in torch.
func inPlace(h opHandler) opHandler {
	return func(c *opCall) (value, error) {
		if len(c.args) == 0 {
			return nil, c.errf("needs the tensor to change")
		}
		if dst, ok := c.args[0].(*tensorVal); ok && dst.name != "" {
			if v, isView := c.b().views[dst.name]; isView {
				if v.opaque || v.base.ref != nil || v.base.konst != nil {
					return nil, c.errf("an in-place op on a view made by reshape, transpose or expand (x.view(...).add_(y)), by a select at an index known only at run time, or on part of a weight, writes into the viewed tensor, which this importer does not express; compute the new tensor out of place")
				}
				return writeThroughView(c, h, dst, v)
			}
		}
		if dst, ok := c.args[0].(*tensorVal); ok && (dst.ref != nil || dst.konst != nil) {
			return nil, c.errf("an in-place op on a weight, buffer or constant changes the module's state, which this importer does not carry between uses; compute the new tensor out of place")
		}
		out, err := h(c)
		if err != nil {
			return nil, err
		}
		if dst, ok := c.args[0].(*tensorVal); ok && dst.ref == nil && dst.konst == nil {
			if res, ok := out.(*tensorVal); ok && res != dst {
				// Views of the old value would see the new one in torch.
				staleViews(c.b(), dst, "")
				*dst = *res
				return dst, nil
			}
		}
		return out, nil
	}
}

// unaryScalar applies unary minus/plus/not to numbers known at import.
func unaryScalar(op string, v value) (value, error) {
	switch x := v.(type) {
	case int64:
		switch op {
		case "-":
			return -x, nil
		case "+":
			return x, nil
		case "~":
			return ^x, nil
		}
	case float64:
		switch op {
		case "-":
			return -x, nil
		case "+":
			return x, nil
		}
	case bool:
		if op == "not" {
			return !x, nil
		}
	}
	return nil, fmt.Errorf("operator %s on a %s is not supported", op, typeName(v))
}

// binaryScalar applies + - * // % on numbers known at import.
func binaryScalar(op string, a, b value) (value, error) {
	x, okA := a.(int64)
	y, okB := b.(int64)
	if okA && okB {
		switch op {
		case "+":
			return x + y, nil
		case "-":
			return x - y, nil
		case "*":
			return x * y, nil
		case "//", "%":
			if y == 0 {
				return nil, fmt.Errorf("integer division by zero")
			}
			q := x / y
			if (x%y != 0) && ((x < 0) != (y < 0)) {
				q--
			}
			if op == "//" {
				return q, nil
			}
			return x - q*y, nil
		case "==":
			return x == y, nil
		case "!=":
			return x != y, nil
		}
	}
	return nil, fmt.Errorf("operator %s on %s and %s is not supported", op, typeName(a), typeName(b))
}

// marksView records the result of a view op as a view of its input (a
// result that is the input itself, x[:], stays the input).
func marksView(h opHandler) opHandler {
	return func(c *opCall) (value, error) {
		out, err := h(c)
		if t, ok := out.(*tensorVal); ok && err == nil && t.name != "" {
			if in, ok := c.args[0].(*tensorVal); ok && in != t && in.name != "" {
				c.b().views[t.name] = &viewOf{base: viewBase(c.b(), in), opaque: true}
			}
		}
		return out, err
	}
}
