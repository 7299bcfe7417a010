package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The signal ops (ONNX 17+): DFT, STFT, the three windows, and
// DeformConv-19.

func init() {
	optable.Add(&ops, map[string]opEntry{
		// DFT-17 has axis as an attribute (default 1); DFT-20 moved it to
		// the third input (default -2).
		"DFT":            {convDFT, 17, []string{"DFT"}},
		"STFT":           {convSTFT, 17, []string{"STFT"}},
		"HannWindow":     {convWindow(func(p bool, dt canon.DType) canon.Op { return &canon.HannWindow{Periodic: p, DType: dt} }), 17, []string{"HannWindow"}},
		"HammingWindow":  {convWindow(func(p bool, dt canon.DType) canon.Op { return &canon.HammingWindow{Periodic: p, DType: dt} }), 17, []string{"HammingWindow"}},
		"BlackmanWindow": {convWindow(func(p bool, dt canon.DType) canon.Op { return &canon.BlackmanWindow{Periodic: p, DType: dt} }), 17, []string{"BlackmanWindow"}},
		"DeformConv":     {convDeformConv, 19, []string{"DeformConv"}},
	})
}

func convDFT(c *nodeCtx) error {
	op := &canon.DFT{Axis: c.int("axis", 1), Inverse: c.int("inverse", 0) != 0, Onesided: c.int("onesided", 0) != 0}
	ins := []string{c.in(0), "", ""}
	if c.dynamic(1) {
		ins[1] = c.in(1)
	} else if c.in(1) != "" {
		n := c.constScalar(1, "dft_length", 0)
		if !(n >= 1) || n != float64(int64(n)) {
			c.fail("dft_length %v must be a positive integer", n)
		}
		op.Length = int64(n)
	}
	if c.im.opset >= 20 {
		op.Axis = -2
		if c.dynamic(2) {
			ins[2] = c.in(2)
		} else if c.in(2) != "" {
			op.Axis = int64(c.constScalar(2, "axis", -2))
		}
	}
	for len(ins) > 1 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	return c.emit(op, ins, c.out1())
}

func convSTFT(c *nodeCtx) error {
	ins := []string{c.in(0), c.in(1), c.in(2), c.in(3)}
	for len(ins) > 2 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	return c.emit(&canon.STFT{Onesided: c.int("onesided", 1) != 0}, ins, c.out1())
}

func convWindow(mk func(periodic bool, dt canon.DType) canon.Op) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		dt, err := onnxtensor.DType(int32(c.int("output_datatype", 1)))
		if err != nil {
			c.fail("output_datatype: %v", err)
		}
		return c.emit(mk(c.int("periodic", 1) != 0, dt), []string{c.in(0)}, c.out1())
	}
}

func convDeformConv(c *nodeCtx) error {
	k := c.convKernel()
	if len(k) != 2 {
		c.fail("DeformConv with %d spatial axes: only the 2-D form is supported", len(k))
		return c.err
	}
	w := c.readWindow(k, true)
	op := &canon.DeformConv{Strides: w.strides, Dilations: w.dilations, PadsBegin: w.padsBegin, PadsEnd: w.padsEnd,
		Group: c.int("group", 1), OffsetGroup: c.int("offset_group", 1)}
	if op.Group < 1 || op.OffsetGroup < 1 {
		c.fail("group %d and offset_group %d must be at least 1", op.Group, op.OffsetGroup)
	}
	ins := []string{c.in(0), c.in(1), c.in(2), c.in(3), c.in(4)}
	for len(ins) > 3 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	return c.emit(op, ins, c.out1())
}

func init() {
	optable.Add(&ops, map[string]opEntry{"MelWeightMatrix": {convMelWeightMatrix, 17, []string{"MelWeightMatrix"}}})
}

func convMelWeightMatrix(c *nodeCtx) error {
	dt, err := onnxtensor.DType(int32(c.int("output_datatype", 1)))
	if err != nil {
		c.fail("output_datatype: %v", err)
	}
	return c.emit(&canon.MelWeightMatrix{DType: dt}, []string{c.in(0), c.in(1), c.in(2), c.in(3), c.in(4)}, c.out1())
}
