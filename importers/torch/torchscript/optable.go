package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// opTable maps the callables serialized code uses to their handlers.
// Names ending in "_" are in-place forms: inPlace makes every alias of the
// input see the result.
var opTable map[string]opHandler

func init() {
	opTable = map[string]opHandler{
		"torch._convolution":        opConvolution,
		"torch.conv1d":              opConvN,
		"torch.conv2d":              opConvN,
		"torch.conv3d":              opConvN,
		"torch.conv_transpose1d":    opConvTransposeN,
		"torch.conv_transpose2d":    opConvTransposeN,
		"torch.conv_transpose3d":    opConvTransposeN,
		"torch.batch_norm":          opBatchNorm,
		"torch.relu":                unaryOp(canon.Relu),
		"torch.sigmoid":             unaryOp(canon.Sigmoid),
		"torch.tanh":                unaryOp(canon.Tanh),
		"torch.hardswish":           unaryOp(canon.HardSwish),
		"torch.hardtanh":            opHardtanh,
		"torch.relu6":               opRelu6,
		"torch.clamp":               opClamp,
		"torch.hardsigmoid":         opHardsigmoid,
		"torch.silu":                opSilu,
		"torch.leaky_relu":          opLeakyRelu,
		"torch.softplus":            opSoftplus,
		"torch.elu":                 opElu,
		"torch.selu":                opSelu,
		"torch.softmax":             opSoftmax,
		"torch.max_pool1d":          opMaxPool(1),
		"torch.max_pool2d":          opMaxPool(2),
		"torch.max_pool3d":          opMaxPool(3),
		"torch.avg_pool1d":          opAvgPool(1),
		"torch.avg_pool2d":          opAvgPool(2),
		"torch.avg_pool3d":          opAvgPool(3),
		"torch.adaptive_avg_pool1d": opAdaptiveAvgPool(1),
		"torch.adaptive_avg_pool2d": opAdaptiveAvgPool(2),
		"torch.adaptive_avg_pool3d": opAdaptiveAvgPool(3),
		"torch.linear":              opLinear,
		"torch.addmm":               opAddmm,
		"torch.matmul":              opMatmul,
		"torch.mm":                  opMatmul,
		"torch.t":                   opT,
		"torch.add":                 binaryOp(canon.Add, "add"),
		"torch.sub":                 binaryOp(canon.Sub, "sub"),
		"torch.mul":                 binaryOp(canon.Mul, "mul"),
		"torch.div":                 binaryOp(canon.Div, "div"),
		"torch.rsub":                binaryOpOrder(canon.Sub, "sub", true),
		"torch.floor_divide":        opFloorDivide,
		"torch.cat":                 opCat,
		"torch.chunk":               opChunk,
		"torch.split":               opSplit,
		"torch.split_with_sizes":    opSplit,
		"torch.view":                opView,
		"torch.reshape":             opView,
		"torch.flatten":             opFlatten,
		"torch.size":                opSize,
		"torch.transpose":           opTranspose,
		"torch.permute":             opPermute,
		"torch.contiguous":          opContiguous,
		"torch.dropout":             opDropout,
		"torch.feature_dropout":     opDropout,
		"torch.alpha_dropout":       opDropout,
		"torch.mean":                opMean,
		"torch.unsqueeze":           opUnsqueeze,
		"torch.squeeze":             opSqueeze,
		"ops.prim.NumToTensor":      opNumToTensor,
		"int":                       opInt,
		"float":                     opFloat,
		"len":                       opLen,
		"getattr":                   opGetattr,
		"annotate":                  opAnnotate,
	}
	for _, name := range []string{"relu", "sigmoid", "tanh", "hardswish", "hardtanh", "hardsigmoid", "silu",
		"leaky_relu", "elu", "selu", "clamp", "add", "sub", "mul", "div", "dropout", "feature_dropout", "alpha_dropout"} {
		opTable["torch."+name+"_"] = inPlace(opTable["torch."+name])
	}
}

// inPlace runs an op and writes the result into its first argument, so
// that later reads of the same tensor (through any variable) see it, as
// they would in torch.
func inPlace(h opHandler) opHandler {
	return func(c *opCall) (value, error) {
		out, err := h(c)
		if err != nil {
			return nil, err
		}
		if dst, ok := c.args[0].(*tensorVal); ok && dst.ref == nil && dst.konst == nil {
			if res, ok := out.(*tensorVal); ok && res != dst {
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
