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

// kernelEntry is one row of the kernel table: how to build the kernel,
// and how it meets float64 data (declared here, next to the kernel, and
// checked by TestFloat64AsDeclared).
type kernelEntry struct {
	build kernelBuilder
	f64   f64Mode
}

// computesF64 is the entry of a kernel with float64 loops of its own.
func computesF64(b kernelBuilder) kernelEntry { return kernelEntry{build: b, f64: f64Native} }

// movesF64 is the entry of a kernel that only moves elements: float64 data
// is carried by its bits, exactly.
func movesF64(b kernelBuilder) kernelEntry { return kernelEntry{build: b, f64: f64Bits} }

// float32Only is the entry of a kernel without float64 loops: float64 data
// is refused (computing it in float32 would give float32's precision where
// the model asks for float64's).
func float32Only(b kernelBuilder) kernelEntry { return kernelEntry{build: b, f64: f64Refused} }

// kernels is the interpreter's one table of op kinds: every canonical kind
// it runs, keyed by canon's kind name. Coverage is derived from it and from
// unsupported; coverage_test.go fails when a registered kind is in neither.
var kernels = map[string]kernelEntry{
	"Conv":               computesF64(withOp(runConv)),
	"ConvTranspose":      float32Only(withOp(runConvTranspose)),
	"BatchNormalization": computesF64(withOp(runBatchNorm)),
	"Linear":             computesF64(withOp(runLinear)),
	"MatMul":             computesF64(fixed(runMatMul)),

	"Add":   computesF64(binaryOp(binAdd)),
	"Sub":   computesF64(binaryOp(binSub)),
	"Mul":   computesF64(binaryOp(binMul)),
	"Div":   computesF64(binaryOp(binDiv)),
	"PRelu": computesF64(binaryOp(binPRelu)),

	"Relu":      computesF64(activation(uRelu)),
	"Sigmoid":   computesF64(activation(uSigmoid)),
	"Tanh":      computesF64(activation(uTanh)),
	"HardSwish": computesF64(activation(uHardSwish)),
	"Softplus":  computesF64(activation(uSoftplus)),
	"Softsign":  computesF64(activation(uSoftsign)),
	"LeakyRelu": computesF64(unary(func(op canon.Op) unaryOp { return unaryOp{fn: uLeakyRelu, a: op.(*canon.LeakyRelu).Alpha} })),
	"Elu":       computesF64(unary(func(op canon.Op) unaryOp { return unaryOp{fn: uElu, a: op.(*canon.Elu).Alpha} })),
	"Selu": computesF64(unary(func(op canon.Op) unaryOp {
		o := op.(*canon.Selu)
		return unaryOp{fn: uSelu, a: o.Alpha, b: o.Gamma}
	})),
	"HardSigmoid": computesF64(unary(func(op canon.Op) unaryOp {
		o := op.(*canon.HardSigmoid)
		return unaryOp{fn: uHardSigmoid, a: o.Alpha, b: o.Beta}
	})),
	"Gelu": computesF64(unary(func(op canon.Op) unaryOp {
		if op.(*canon.Gelu).Approximate == canon.GeluTanh {
			return unaryOp{fn: uGeluTanh}
		}
		return unaryOp{fn: uGelu}
	})),
	"Clip":    computesF64(withOp(runClip)),
	"Softmax": computesF64(withOp(runSoftmax)),

	"MaxPool": computesF64(func(op canon.Op) kernel {
		o := op.(*canon.MaxPool)
		p := &poolAttrs{kernel: o.Kernel, strides: o.Strides, dilations: o.Dilations, padsBegin: o.PadsBegin, padsEnd: o.PadsEnd, ceil: o.CeilMode, max: true, colMajor: o.ColumnMajorIndices}
		return func(x *exec) error { return runPool(x, p) }
	}),
	"AveragePool": computesF64(func(op canon.Op) kernel {
		o := op.(*canon.AveragePool)
		p := &poolAttrs{kernel: o.Kernel, strides: o.Strides, dilations: o.Dilations, padsBegin: o.PadsBegin, padsEnd: o.PadsEnd, ceil: o.CeilMode, includePad: o.CountIncludePad}
		return func(x *exec) error { return runPool(x, p) }
	}),
	"GlobalAveragePool": computesF64(fixed(func(x *exec) error { return runGlobalPool(x, false) })),
	"GlobalMaxPool":     computesF64(fixed(func(x *exec) error { return runGlobalPool(x, true) })),

	"Concat":    movesF64(withOp(runConcat)),
	"Split":     movesF64(withOp(runSplit)),
	"Reshape":   movesF64(withOp(runReshape)),
	"Flatten":   movesF64(withOp(runFlatten)),
	"Transpose": movesF64(withOp(runTranspose)),
	"Squeeze":   movesF64(withOp(runSqueeze)),
	"Unsqueeze": movesF64(withOp(runUnsqueeze)),
	"Pad":       movesF64(withOp(runPad)),
	"Slice":     movesF64(withOp(runSlice)),
	"Gather":    movesF64(withOp(runGather)),
	"Shape":     movesF64(withOp(runShape)),
	"Constant":  movesF64(fixed(func(*exec) error { return nil })), // evaluated once, by New
	"Identity":  computesF64(fixed(runIdentity)),
	"Dropout":   movesF64(fixed(runDropout)),
	"Resize":    float32Only(withOp(runResize)),
}

// unsupported lists the registered kinds the interpreter cannot run, each
// with the reason (shown by `modelbridge ops`). It is empty today: the
// interpreter is the reference every other backend is checked against.
var unsupported = map[string]string{}

// Coverage reports, for every kind in the interpreter's tables, whether it
// runs the kind or why not. Kinds in neither table are gaps (canon.Gaps).
func Coverage() canon.Coverage {
	cov := make(canon.Coverage, len(kernels)+len(unsupported))
	for kind, e := range kernels {
		detail := e.f64.detail()
		if d := canon.Lookup(kind); e.f64 == f64Refused && d != nil && d.Decompose != nil {
			detail = "float32, float16 and bfloat16 (computed in float32); float64 data runs as the op's expansion (its Decompose), where that covers the node"
		}
		cov[kind] = canon.Handles(detail)
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
	entry, ok := kernels[kind]
	build := entry.build
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
