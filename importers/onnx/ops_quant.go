package onnximport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	// QuantizeLinear/DequantizeLinear-10 are per tensor; 13 adds axis, 19
	// float8 and saturate, 21 block_size, output_dtype and 16-bit and 4-bit
	// types. Types the IR cannot hold (float8, int4) are refused by name
	// where their tensors are read.
	optable.Add(&ops, map[string]opEntry{
		"QuantizeLinear":        {convQuantizeLinear, 10, []string{"QuantizeLinear"}},
		"DequantizeLinear":      {convDequantizeLinear, 10, []string{"DequantizeLinear"}},
		"DynamicQuantizeLinear": {convDynamicQuantizeLinear, 11, []string{"DynamicQuantizeLinear"}},
		"QLinearConv":           {convQLinearConv, 10, []string{"QLinearConv"}},
		"ConvInteger":           {convConvInteger, 10, []string{"ConvInteger"}},
		"MatMulInteger":         {convMatMulInteger, 10, []string{"MatMulInteger"}},
		"QLinearMatMul":         {convQLinearMatMul, 10, []string{"QLinearMatMul"}},
	})
}

// quantAxis reads axis (opset 13+; earlier versions are per tensor only,
// which axis 1 leaves unchanged) and block_size (opset 21+).
func (c *nodeCtx) quantAxis() (axis, block int64) {
	axis = c.int("axis", 1)
	block = c.int("block_size", 0)
	if block < 0 {
		c.fail("block_size %d must be >= 0", block)
	}
	return axis, block
}

// quantDType reads an element-type attribute (0 or absent: Undefined).
func (c *nodeCtx) quantDType(name string) canon.DType {
	t := c.int(name, 0)
	if t == 0 {
		return canon.Undefined
	}
	dt, err := onnxtensor.DType(int32(t))
	if err != nil {
		c.fail("%s is %s: %v", name, onnxpb.TensorProto_DataType(int32(t)), err)
	}
	return dt
}

func convQuantizeLinear(c *nodeCtx) error {
	axis, block := c.quantAxis()
	op := &canon.QuantizeLinear{Axis: axis, BlockSize: block, Saturate: c.int("saturate", 1) != 0, OutputDType: c.quantDType("output_dtype")}
	if op.OutputDType != canon.Undefined && !canon.QuantizedDType(op.OutputDType) {
		c.fail("output_dtype %s is not a quantized type modelbridge holds (i8, u8, i16, u16)", op.OutputDType)
	}
	if c.in(2) != "" {
		// The zero point's type is the output type (inference checks that
		// output_dtype agrees): one canonical spelling.
		op.OutputDType = canon.Undefined
		if zd := c.info(2).DType; zd != canon.Undefined && c.has("output_dtype") && c.quantDType("output_dtype") != zd {
			c.fail("output_dtype %s differs from the zero point's type %s", c.quantDType("output_dtype"), zd)
		}
	}
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}

func convDequantizeLinear(c *nodeCtx) error {
	axis, block := c.quantAxis()
	op := &canon.DequantizeLinear{Axis: axis, BlockSize: block, OutputDType: c.quantDType("output_dtype")}
	if op.OutputDType != canon.Undefined && !op.OutputDType.IsFloat() {
		c.fail("output_dtype %s is not a floating-point type", op.OutputDType)
	}
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}

func convDynamicQuantizeLinear(c *nodeCtx) error {
	outs := append([]string{}, c.n.Output...)
	if len(outs) != 3 {
		return c.errf("DynamicQuantizeLinear has %d outputs, want 3 (y, y_scale, y_zero_point)", len(outs))
	}
	return c.emit(&canon.DynamicQuantizeLinear{}, []string{c.in(0)}, outs)
}

// kernelOf is the kernel from kernel_shape or the shape of weight input w.
func (c *nodeCtx) kernelOf(w int) []int64 {
	k := c.ints("kernel_shape")
	ws, wok := c.info(w).StaticShape()
	if wok && len(ws) < 3 {
		c.fail("weight %q has shape %v; a convolution weight needs at least 3 axes", c.in(w), ws)
		return nil
	}
	if k == nil {
		if !wok {
			c.fail("the kernel shape is unknown: weight %q has no static shape and there is no kernel_shape attribute", c.in(w))
			return nil
		}
		return append([]int64{}, ws[2:]...)
	}
	if wok && fmt.Sprint(k) != fmt.Sprint(ws[2:]) {
		c.fail("kernel_shape %v does not match weight %q of shape %v", k, c.in(w), ws)
	}
	return k
}

// intConvWindow reads the Conv attributes of an integer convolution whose
// weight is input w.
func (c *nodeCtx) intConvWindow(w int) (windowAttrs, int64) {
	k := c.kernelOf(w)
	if k == nil {
		return windowAttrs{}, 1
	}
	win := c.readWindow(k, true)
	g := c.int("group", 1)
	if g < 1 {
		c.fail("group %d must be at least 1", g)
	}
	return win, g
}

func convQLinearConv(c *nodeCtx) error {
	w, g := c.intConvWindow(3)
	if c.err != nil {
		return c.err
	}
	op := &canon.QLinearConv{Strides: w.strides, Dilations: w.dilations, PadsBegin: w.padsBegin, PadsEnd: w.padsEnd, Group: g}
	ins := make([]string, 9)
	for i := range ins {
		ins[i] = c.in(i)
	}
	return c.emit(op, ins, c.out1())
}

func convConvInteger(c *nodeCtx) error {
	w, g := c.intConvWindow(1)
	if c.err != nil {
		return c.err
	}
	op := &canon.ConvInteger{Strides: w.strides, Dilations: w.dilations, PadsBegin: w.padsBegin, PadsEnd: w.padsEnd, Group: g}
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2), c.in(3)}, c.out1())
}

func convMatMulInteger(c *nodeCtx) error {
	return c.emit(&canon.MatMulInteger{}, []string{c.in(0), c.in(1), c.in(2), c.in(3)}, c.out1())
}

func convQLinearMatMul(c *nodeCtx) error {
	ins := make([]string, 8)
	for i := range ins {
		ins[i] = c.in(i)
	}
	return c.emit(&canon.QLinearMatMul{}, ins, c.out1())
}
