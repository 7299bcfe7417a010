package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// kernelBuilder makes the kernel for one node from its op's attributes.
// It may assume the op is of the kind it is registered under and that the
// graph is valid (canon.Graph.Validate): arity, attribute ranges and weight
// layouts are canon's to check, once, not the interpreter's.
type kernelBuilder func(op canon.Op) kernel

// kernels is the interpreter's one table of op kinds: every canonical kind
// it runs, keyed by canon's kind name. Coverage is derived from it and from
// unsupported; coverage_test.go fails when a registered kind is in neither.
var kernels = map[string]kernelBuilder{
	"Conv":               withOp(runConv),
	"ConvTranspose":      withOp(runConvTranspose),
	"BatchNormalization": withOp(runBatchNorm),
	"Linear":             withOp(runLinear),
	"MatMul":             fixed(runMatMul),

	"Add":   binaryOp(binAdd),
	"Sub":   binaryOp(binSub),
	"Mul":   binaryOp(binMul),
	"Div":   binaryOp(binDiv),
	"PRelu": binaryOp(binPRelu),

	"Relu":      activation(uRelu),
	"Sigmoid":   activation(uSigmoid),
	"Tanh":      activation(uTanh),
	"HardSwish": activation(uHardSwish),
	"Softplus":  activation(uSoftplus),
	"Softsign":  activation(uSoftsign),
	"LeakyRelu": unary(func(op canon.Op) unaryOp { return unaryOp{fn: uLeakyRelu, a: op.(*canon.LeakyRelu).Alpha} }),
	"Elu":       unary(func(op canon.Op) unaryOp { return unaryOp{fn: uElu, a: op.(*canon.Elu).Alpha} }),
	"Selu": unary(func(op canon.Op) unaryOp {
		o := op.(*canon.Selu)
		return unaryOp{fn: uSelu, a: o.Alpha, b: o.Gamma}
	}),
	"HardSigmoid": unary(func(op canon.Op) unaryOp {
		o := op.(*canon.HardSigmoid)
		return unaryOp{fn: uHardSigmoid, a: o.Alpha, b: o.Beta}
	}),
	"Gelu": unary(func(op canon.Op) unaryOp {
		if op.(*canon.Gelu).Approximate == canon.GeluTanh {
			return unaryOp{fn: uGeluTanh}
		}
		return unaryOp{fn: uGelu}
	}),
	"Clip":    withOp(runClip),
	"Softmax": withOp(runSoftmax),

	"MaxPool": func(op canon.Op) kernel {
		o := op.(*canon.MaxPool)
		p := &poolAttrs{kernel: o.Kernel, strides: o.Strides, dilations: o.Dilations, padsBegin: o.PadsBegin, padsEnd: o.PadsEnd, ceil: o.CeilMode, max: true, colMajor: o.ColumnMajorIndices}
		return func(x *exec) error { return runPool(x, p) }
	},
	"AveragePool": func(op canon.Op) kernel {
		o := op.(*canon.AveragePool)
		p := &poolAttrs{kernel: o.Kernel, strides: o.Strides, dilations: o.Dilations, padsBegin: o.PadsBegin, padsEnd: o.PadsEnd, ceil: o.CeilMode, includePad: o.CountIncludePad}
		return func(x *exec) error { return runPool(x, p) }
	},
	"GlobalAveragePool": fixed(func(x *exec) error { return runGlobalPool(x, false) }),
	"GlobalMaxPool":     fixed(func(x *exec) error { return runGlobalPool(x, true) }),

	"Concat":    withOp(runConcat),
	"Split":     withOp(runSplit),
	"Reshape":   withOp(runReshape),
	"Flatten":   withOp(runFlatten),
	"Transpose": withOp(runTranspose),
	"Squeeze":   withOp(runSqueeze),
	"Unsqueeze": withOp(runUnsqueeze),
	"Pad":       withOp(runPad),
	"Slice":     withOp(runSlice),
	"Gather":    withOp(runGather),
	"Shape":     withOp(runShape),
	"Constant":  fixed(func(*exec) error { return nil }), // evaluated once, by New
	"Identity":  fixed(runIdentity),
	"Dropout":   fixed(runDropout),
	"Resize":    withOp(runResize),
}

// unsupported lists the registered kinds the interpreter cannot run, each
// with the reason (shown by `modelbridge ops`). It is empty today: the
// interpreter is the reference every other backend is checked against.
var unsupported = map[string]string{}

// Coverage reports, for every kind in the interpreter's tables, whether it
// runs the kind or why not. Kinds in neither table are gaps (canon.Gaps).
func Coverage() canon.Coverage {
	cov := make(canon.Coverage, len(kernels)+len(unsupported))
	for kind := range kernels {
		cov[kind] = canon.Handles(f64Detail(kind))
	}
	for kind, reason := range unsupported {
		cov[kind] = canon.Lacks(reason)
	}
	return cov
}

// withOp is the builder of a kernel that reads its op's attributes.
func withOp[T canon.Op](run func(*exec, T) error) kernelBuilder {
	return func(op canon.Op) kernel {
		o := op.(T)
		return func(x *exec) error { return run(x, o) }
	}
}

// fixed is the builder of a kernel that needs no attributes.
func fixed(run kernel) kernelBuilder {
	return func(canon.Op) kernel { return run }
}

func binaryOp(fn binFn) kernelBuilder {
	return fixed(func(x *exec) error { return runBinary(x, fn) })
}

// activation is the builder of an elementwise activation without
// attributes.
func activation(fn unaryFn) kernelBuilder {
	return fixed(func(x *exec) error { return runUnary(x, unaryOp{fn: fn}) })
}

// unary is the builder of an elementwise activation whose parameters come
// from the op's attributes.
func unary(params func(canon.Op) unaryOp) kernelBuilder {
	return func(op canon.Op) kernel {
		u := params(op)
		return func(x *exec) error { return runUnary(x, u) }
	}
}

// compile builds the kernel for node n from the table.
func compile(n *canon.Node) (kernel, error) {
	kind := n.Op.Kind()
	build, ok := kernels[kind]
	if !ok {
		if reason, declared := unsupported[kind]; declared {
			return nil, fmt.Errorf("the interpreter cannot run op kind %s: %s (see `modelbridge ops`)", kind, reason)
		}
		return nil, fmt.Errorf("op kind %s is not supported by the interpreter (see `modelbridge ops`)", kind)
	}
	return build(n.Op), nil
}

// needFloat reports an error unless t holds floating-point data.
func needFloat(t *tensor, what string) error {
	if !t.isFloat() {
		return fmt.Errorf("%s is %s, want a floating-point tensor", what, t.dt)
	}
	return nil
}

// asFloat returns t as float data, converting integer data (exact for the
// small integers pooling ops see) into a new tensor.
func (x *exec) asFloat(t *tensor) *tensor {
	if t.isFloat() {
		return t
	}
	o := x.newF(t.shape)
	for i, v := range t.i {
		o.f[i] = float32(v)
	}
	return o
}

// backToInt converts a float result into dtype dt's int64 storage,
// truncating as a cast would; used to give integer inputs integer outputs.
func (x *exec) backToInt(t *tensor, dt canon.DType) *tensor {
	o := x.newI(dt, t.shape)
	for i, v := range t.f {
		o.i[i] = int64(v)
	}
	x.p.pool.put(t)
	return o
}

// normAxis maps a possibly negative axis into [0, rank).
func normAxis(axis int64, rank int) (int, error) {
	a := axis
	if a < 0 {
		a += int64(rank)
	}
	if a < 0 || a >= int64(rank) {
		return 0, fmt.Errorf("axis %d is out of range for rank %d", axis, rank)
	}
	return int(a), nil
}
