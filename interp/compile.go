package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// compile picks the kernel for a node and checks what can be checked
// before any data is seen: input and output counts and attribute lengths.
func compile(n *canon.Node, s *step) (kernel, error) {
	sig := n.Op.Signature()
	minIn := 0
	for _, spec := range sig.Inputs {
		if !spec.Optional {
			minIn++
		}
	}
	variadic := len(sig.Inputs) > 0 && sig.Inputs[len(sig.Inputs)-1].Variadic
	if len(n.Inputs) < minIn || (!variadic && len(n.Inputs) > len(sig.Inputs)) {
		return nil, fmt.Errorf("has %d inputs, want %d..%d", len(n.Inputs), minIn, len(sig.Inputs))
	}
	for k, spec := range sig.Inputs {
		if k < len(s.in) && s.in[k] < 0 && !spec.Optional && !spec.Variadic {
			return nil, fmt.Errorf("required input %d (%s) is empty", k, spec.Name)
		}
	}
	if len(n.Outputs) < sig.MinOutputs || (sig.MaxOutputs >= 0 && len(n.Outputs) > sig.MaxOutputs) {
		return nil, fmt.Errorf("has %d outputs, want %d..%d", len(n.Outputs), sig.MinOutputs, sig.MaxOutputs)
	}
	switch op := n.Op.(type) {
	case *canon.Conv:
		return func(x *exec) error { return runConv(x, op) }, nil
	case *canon.ConvTranspose:
		return func(x *exec) error { return runConvTranspose(x, op) }, nil
	case *canon.BatchNorm:
		return func(x *exec) error { return runBatchNorm(x, op) }, nil
	case *canon.Linear:
		return func(x *exec) error { return runLinear(x, op) }, nil
	case *canon.MatMul:
		return runMatMul, nil
	case *canon.Binary:
		if op.Fn > canon.Div {
			return nil, fmt.Errorf("unknown binary function %d", op.Fn)
		}
		return func(x *exec) error { return runBinary(x, binFn(op.Fn)) }, nil
	case *canon.PRelu:
		return func(x *exec) error { return runBinary(x, binPRelu) }, nil
	case *canon.Unary:
		if op.Fn > canon.Softsign {
			return nil, fmt.Errorf("unknown unary function %d", op.Fn)
		}
		return func(x *exec) error { return runUnary(x, unaryOp{fn: unaryFn(op.Fn)}) }, nil
	case *canon.LeakyRelu:
		return func(x *exec) error { return runUnary(x, unaryOp{fn: uLeakyRelu, a: op.Alpha}) }, nil
	case *canon.Elu:
		return func(x *exec) error { return runUnary(x, unaryOp{fn: uElu, a: op.Alpha}) }, nil
	case *canon.Selu:
		return func(x *exec) error { return runUnary(x, unaryOp{fn: uSelu, a: op.Alpha, b: op.Gamma}) }, nil
	case *canon.Clip:
		return func(x *exec) error { return runClip(x, op) }, nil
	case *canon.HardSigmoid:
		return func(x *exec) error { return runUnary(x, unaryOp{fn: uHardSigmoid, a: op.Alpha, b: op.Beta}) }, nil
	case *canon.Softmax:
		return func(x *exec) error { return runSoftmax(x, op) }, nil
	case *canon.MaxPool:
		p := &poolAttrs{kernel: op.Kernel, strides: op.Strides, dilations: op.Dilations, padsBegin: op.PadsBegin, padsEnd: op.PadsEnd, ceil: op.CeilMode, max: true}
		return func(x *exec) error { return runPool(x, p) }, nil
	case *canon.AveragePool:
		p := &poolAttrs{kernel: op.Kernel, strides: op.Strides, dilations: op.Dilations, padsBegin: op.PadsBegin, padsEnd: op.PadsEnd, ceil: op.CeilMode, includePad: op.CountIncludePad}
		return func(x *exec) error { return runPool(x, p) }, nil
	case *canon.GlobalAveragePool:
		return func(x *exec) error { return runGlobalPool(x, false) }, nil
	case *canon.GlobalMaxPool:
		return func(x *exec) error { return runGlobalPool(x, true) }, nil
	case *canon.ReduceMean:
		return func(x *exec) error { return runReduceMean(x, op) }, nil
	case *canon.Concat:
		return func(x *exec) error { return runConcat(x, op) }, nil
	case *canon.Split:
		return func(x *exec) error { return runSplit(x, op) }, nil
	case *canon.Reshape:
		return func(x *exec) error { return runReshape(x, op) }, nil
	case *canon.Flatten:
		return func(x *exec) error { return runFlatten(x, op) }, nil
	case *canon.Transpose:
		return func(x *exec) error { return runTranspose(x, op) }, nil
	case *canon.Squeeze:
		return func(x *exec) error { return runSqueeze(x, op) }, nil
	case *canon.Unsqueeze:
		return func(x *exec) error { return runUnsqueeze(x, op) }, nil
	case *canon.Pad:
		if op.Mode > canon.PadEdge {
			return nil, fmt.Errorf("unknown pad mode %d", op.Mode)
		}
		return func(x *exec) error { return runPad(x, op) }, nil
	case *canon.Slice:
		return func(x *exec) error { return runSlice(x, op) }, nil
	case *canon.Gather:
		return func(x *exec) error { return runGather(x, op) }, nil
	case *canon.ShapeOf:
		return func(x *exec) error { return runShape(x, op) }, nil
	case *canon.Constant:
		return func(x *exec) error { return nil }, nil // evaluated by New
	case *canon.Identity:
		return runIdentity, nil
	case *canon.Dropout:
		return runDropout, nil
	case *canon.Resize:
		if op.CoordTransform > canon.TFHalfPixelForNN || op.Nearest > canon.Ceil {
			return nil, fmt.Errorf("unknown coordinate transform %d or nearest mode %d", op.CoordTransform, op.Nearest)
		}
		return func(x *exec) error { return runResize(x, op) }, nil
	}
	return nil, fmt.Errorf("op kind %s is not supported by the interpreter", n.Op.Kind())
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
