package onnxexport

import (
	"encoding/binary"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The logic family. BitwiseAnd/Or/Xor and BitwiseNot are new in opset 18:
// below it BitwiseNot is written as a subtraction from all-ones, the others
// are refused. Python-style Mod on floats, which ONNX's Mod refuses, is
// written as fmod plus a sign fix.

func init() {
	plain := func(b *builder, n *canon.Node) error {
		b.emit(n.Name, n.Op.Kind(), n.Inputs, n.Outputs)
		return nil
	}
	optable.Add(&exports, map[string]exportEntry{
		"And": {onnx: "And", native: 7, write: plain},
		"Or":  {onnx: "Or", native: 7, write: plain},
		"Xor": {onnx: "Xor", native: 7, write: plain},
		"Not": {onnx: "Not", native: 1, write: plain},
		"BitShift": {onnx: "BitShift", native: 11, write: func(b *builder, n *canon.Node) error {
			dir := "RIGHT"
			if n.Op.(*canon.BitShift).Left {
				dir = "LEFT"
			}
			b.emit(n.Name, "BitShift", n.Inputs, n.Outputs, attrString("direction", dir))
			return nil
		}},
		"BitwiseNot": {onnx: "BitwiseNot", native: 18, below: "Sub(all-ones, x) (through int32 below opset 14 for 8- and 16-bit types)", write: writeBitwiseNot},
		// Max-12 took the integer types, 13 bfloat16.
		"Max": {onnx: "Max", native: 8, write: plain, typeOpset: minMaxTypes},
		"Min": {onnx: "Min", native: 8, write: plain, typeOpset: minMaxTypes},
		// ONNX's Sum and Mean take floating point only; an integer Sum is a
		// chain of Adds, whose types are the arithmetic ops'.
		"Sum":  {onnx: "Sum", native: 8, write: writeSum, typeOpset: arithmeticTypes},
		"Mean": {onnx: "Mean", native: 8, write: plain, typeOpset: arithmeticTypes},
		"Mod":  {onnx: "Mod", native: 10, write: writeMod, typeOpset: bf16Since(13)},
		"Pow":  {onnx: "Pow", native: 7, write: writePow},
	})
	for _, k := range []string{"BitwiseAnd", "BitwiseOr", "BitwiseXor"} {
		optable.Add(&exports, map[string]exportEntry{k: {onnx: k, native: 18, write: plain}})
	}
}

func minMaxTypes(_ canon.Op, dt canon.DType) int {
	switch {
	case dt.IsInt():
		return 12
	case dt == canon.BFloat16:
		return 13
	}
	return 0
}

// scalarParam adds a rank-0 initializer of dtype dt holding v (an integer
// value's low bits for integer types).
func (b *builder) scalarParam(n *canon.Node, suffix string, dt canon.DType, v float64) string {
	buf := make([]byte, dt.Size())
	switch dt {
	case canon.Float32:
		binary.LittleEndian.PutUint32(buf, math.Float32bits(float32(v)))
	case canon.Float64:
		binary.LittleEndian.PutUint64(buf, math.Float64bits(v))
	case canon.Float16:
		binary.LittleEndian.PutUint16(buf, canon.Float32ToHalf(float32(v)))
	case canon.BFloat16:
		binary.LittleEndian.PutUint16(buf, canon.Float32ToBFloat16(float32(v)))
	default:
		x := uint64(int64(v))
		for i := range buf {
			buf[i] = byte(x >> (8 * i))
		}
	}
	return b.param(n, suffix, &canon.Tensor{DType: dt, Shape: []int64{}, Data: buf})
}

func (b *builder) castTo(n *canon.Node, in string, dt canon.DType, suffix string) string {
	code, _ := DataType(dt)
	out := b.unique(prefix(n) + "_" + suffix)
	b.emit(b.unique(prefix(n)+"_"+suffix+"_op"), "Cast", []string{in}, []string{out}, attrInt("to", int64(code)))
	return out
}

// writeBitwiseNot: ~x = all-ones - x in two's complement, signed or not.
// Sub takes 8- and 16-bit integers from opset 14; below, the subtraction
// is done in int32 (exact: the result fits the type) and cast back.
func writeBitwiseNot(b *builder, n *canon.Node) error {
	if b.opset >= 18 {
		b.emit(n.Name, "BitwiseNot", n.Inputs, n.Outputs)
		return nil
	}
	dt := b.dtype(n.Inputs[0])
	if !dt.IsInt() {
		return b.opError(n, "input is %s; BitwiseNot takes integers", dt)
	}
	b.expanded = true
	small := dt == canon.Int8 || dt == canon.Int16 || dt == canon.Uint8 || dt == canon.Uint16
	if !small || b.opset >= 14 {
		ones := b.scalarParam(n, "ones", dt, -1)
		b.emit(n.Name, "Sub", []string{ones, n.Inputs[0]}, n.Outputs)
		return nil
	}
	all := -1.0
	if dt == canon.Uint8 || dt == canon.Uint16 {
		all = float64(int64(1)<<(8*dt.Size()) - 1)
	}
	x := b.castTo(n, n.Inputs[0], canon.Int32, "i32")
	ones := b.scalarParam(n, "ones", canon.Int32, all)
	d := b.unique(prefix(n) + "_not")
	b.emit(b.unique(prefix(n)+"_not_op"), "Sub", []string{ones, x}, []string{d})
	code, _ := DataType(dt)
	b.emit(n.Name, "Cast", []string{d}, n.Outputs, attrInt("to", int64(code)))
	return nil
}

// writeSum: ONNX's Sum takes floats; integers are written as canon's
// expansion (Adds from the first input to the last, Identity for one).
func writeSum(b *builder, n *canon.Node) error {
	if dt := b.dtype(n.Inputs[0]); !dt.IsInt() {
		b.emit(n.Name, "Sum", n.Inputs, n.Outputs)
		return nil
	}
	return b.writeExpansion(n)
}

// writeMod: fmod=1 is C's fmod; fmod=0 (Python's %) ONNX allows on
// integers only, so on floats r = fmod(a, b) is moved by b where r is
// nonzero and its sign differs from b's: Where((r<0 xor b<0) and r != 0,
// r + b, r).
func writeMod(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Mod)
	dt := b.dtype(n.Inputs[0])
	if op.Fmod || !dt.IsFloat() {
		b.emit(n.Name, "Mod", n.Inputs, n.Outputs, attrBool("fmod", op.Fmod))
		return nil
	}
	b.expanded = true
	p := prefix(n)
	tmp := func(s string) string { return b.unique(p + "_" + s) }
	node := func(opType string, ins []string, s string, attrs ...*onnxpb.AttributeProto) string {
		out := tmp(s)
		b.emit(b.unique(out+"_op"), opType, ins, []string{out}, attrs...)
		return out
	}
	zero := b.scalarParam(n, "zero", dt, 0)
	r := node("Mod", n.Inputs, "fmod", attrInt("fmod", 1))
	rneg := node("Less", []string{r, zero}, "rneg")
	bneg := node("Less", []string{n.Inputs[1], zero}, "bneg")
	diff := node("Xor", []string{rneg, bneg}, "signs_differ")
	rzero := node("Equal", []string{r, zero}, "rzero")
	nz := node("Not", []string{rzero}, "rnonzero")
	fix := node("And", []string{diff, nz}, "fix")
	moved := node("Add", []string{r, n.Inputs[1]}, "moved")
	b.emit(n.Name, "Where", []string{fix, moved, r}, n.Outputs)
	return nil
}

// writePow: Pow-7 takes one float type for base and exponent; 12 added
// int32/int64 bases and exponents of any numeric type; 13 bfloat16 bases,
// 15 bfloat16 exponents. Below 12 mixed or integer operands are cast to the
// base's float type (float64 for an integer base, then truncated back, as
// ONNX Runtime computes integer powers in double anyway). From 12, integer
// bases other than int32/int64 are raised in int64 and cast back (the wrap
// of the cast is the wrap of the narrower arithmetic).
func writePow(b *builder, n *canon.Node) error {
	dt, et := b.dtype(n.Inputs[0]), b.dtype(n.Inputs[1])
	need := 0
	if dt == canon.BFloat16 {
		need = 13
	}
	if et == canon.BFloat16 {
		need = 15
	}
	if b.opset < need {
		return b.needOpset(n, "Pow with a "+dt.String()+" base and a "+et.String()+" exponent", need)
	}
	code, _ := DataType(dt)
	if b.opset < 12 && (dt.IsInt() || et != dt) {
		b.expanded = true
		ct := dt
		x := n.Inputs[0]
		if dt.IsInt() {
			ct = canon.Float64
			x = b.castTo(n, x, ct, "f64")
		}
		e := n.Inputs[1]
		if et != ct {
			e = b.castTo(n, e, ct, "exponent")
		}
		if !dt.IsInt() {
			b.emit(n.Name, "Pow", []string{x, e}, n.Outputs)
			return nil
		}
		p := b.unique(prefix(n) + "_pow")
		b.emit(b.unique(prefix(n)+"_pow_op"), "Pow", []string{x, e}, []string{p})
		b.emit(n.Name, "Cast", []string{p}, n.Outputs, attrInt("to", int64(code)))
		return nil
	}
	if !dt.IsInt() || dt == canon.Int32 || dt == canon.Int64 {
		b.emit(n.Name, "Pow", n.Inputs, n.Outputs)
		return nil
	}
	b.expanded = true
	x := b.castTo(n, n.Inputs[0], canon.Int64, "i64")
	e := n.Inputs[1]
	if et.IsInt() && et != canon.Int32 && et != canon.Int64 {
		// ONNX Runtime's Pow has no kernel for narrow integer exponents.
		e = b.castTo(n, e, canon.Int64, "exponent")
	}
	p := b.unique(prefix(n) + "_pow")
	b.emit(b.unique(prefix(n)+"_pow_op"), "Pow", []string{x, e}, []string{p})
	b.emit(n.Name, "Cast", []string{p}, n.Outputs, attrInt("to", int64(code)))
	return nil
}
