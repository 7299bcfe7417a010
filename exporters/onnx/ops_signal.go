package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	window := func(onnx string) exportEntry {
		return exportEntry{onnx: onnx, native: 17, write: func(b *builder, n *canon.Node) error {
			dt, ok := onnxtensor.DataType(canon.WindowDType(n.Op))
			if !ok {
				return b.opError(n, "output dtype %s has no ONNX type", canon.WindowDType(n.Op))
			}
			periodic := int64(0)
			if canon.WindowPeriodic(n.Op) {
				periodic = 1
			}
			b.emit(n.Name, onnx, n.Inputs, n.Outputs, attrInt("periodic", periodic), attrInt("output_datatype", int64(dt)))
			return nil
		}}
	}
	optable.Add(&exports, map[string]exportEntry{
		"DFT":            {onnx: "DFT", native: 17, write: writeDFT},
		"STFT":           {onnx: "STFT", native: 17, write: writeSTFT},
		"HannWindow":     window("HannWindow"),
		"HammingWindow":  window("HammingWindow"),
		"BlackmanWindow": window("BlackmanWindow"),
		"DeformConv":     {onnx: "DeformConv", native: 19, write: writeDeformConv},
	})
}

// writeDFT writes DFT-17 (axis attribute) below opset 20 and DFT-20 (axis
// input) from 20 on; a constant length becomes a scalar initializer.
func writeDFT(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.DFT)
	ins := []string{in(n, 0), in(n, 1)}
	if op.Length > 0 {
		ins[1] = b.param(n, "dft_length", canon.NewInt64Tensor("", []int64{}, []int64{op.Length}))
	}
	if op.Inverse && op.Onesided {
		x, err := b.halfSpectrum(n, op)
		if err != nil {
			return err
		}
		ins[0] = x
	}
	attrs := []*onnxpb.AttributeProto{attrInt("inverse", b2i(op.Inverse)), attrInt("onesided", b2i(op.Onesided))}
	if b.opset >= 20 {
		axis := in(n, 2)
		if axis == "" {
			axis = b.param(n, "axis", canon.NewInt64Tensor("", []int64{}, []int64{op.Axis}))
		}
		ins = append(ins, axis)
	} else {
		if in(n, 2) != "" {
			return b.needOpset(n, "DFT with a run-time axis", 20)
		}
		attrs = append(attrs, attrInt("axis", op.Axis))
	}
	for len(ins) > 1 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	b.emit(n.Name, "DFT", ins, n.Outputs, attrs...)
	return nil
}

// halfSpectrum gives the one-sided inverse DFT its input in the one form
// ONNX Runtime reads: (real, imaginary) pairs (zero imaginary parts are
// added to a real spectrum) of exactly n/2+1 frequencies (more are cut,
// fewer padded with zeros), as canon's DFT reads any spectrum.
func (b *builder) halfSpectrum(n *canon.Node, op *canon.DFT) (string, error) {
	x := in(n, 0)
	vi := b.types.Get(x)
	if !vi.RankKnown || in(n, 1) != "" || in(n, 2) != "" {
		return "", b.opError(n, "a one-sided inverse DFT is written only with a known input rank, a constant length and a constant axis")
	}
	r := len(vi.Shape)
	axis := op.Axis
	if axis < 0 {
		axis += int64(r)
	}
	m, known := b.knownSize(x, int(axis))
	if !known && op.Length > 0 {
		return "", b.opError(n, "a one-sided inverse DFT of a length given explicitly needs the input's size along axis %d", axis)
	}
	pads := make([]int64, 2*r)
	if vi.Shape[r-1].Size == 1 {
		pads[2*r-1] = 1
	}
	if size, _ := canon.DFTSizes(op, m, op.Length); known && op.Length > 0 {
		half := size/2 + 1
		if m > half {
			x = b.sliced(n, x, "half_spectrum", axis, 0, half)
		} else {
			pads[r+int(axis)] = half - m
		}
	}
	for _, p := range pads {
		if p != 0 {
			return b.step(n, "Pad", "spectrum_pairs", "", []string{x, b.i64Param(n, "spectrum_pads", pads)}), nil
		}
	}
	return x, nil
}

func writeSTFT(b *builder, n *canon.Node) error {
	b.emit(n.Name, "STFT", n.Inputs, n.Outputs, attrInt("onesided", b2i(n.Op.(*canon.STFT).Onesided)))
	return nil
}

func writeDeformConv(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.DeformConv)
	attrs := []*onnxpb.AttributeProto{}
	if k := b.kernelShape(in(n, 1)); k != nil {
		attrs = append(attrs, attrInts("kernel_shape", k))
	}
	attrs = append(attrs,
		attrInts("strides", op.Strides),
		attrInts("dilations", op.Dilations),
		attrInts("pads", concat(op.PadsBegin, op.PadsEnd)),
		attrInt("group", op.Group),
		attrInt("offset_group", op.OffsetGroup))
	b.emit(n.Name, "DeformConv", n.Inputs, n.Outputs, attrs...)
	return nil
}

func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

func init() {
	optable.Add(&exports, map[string]exportEntry{"MelWeightMatrix": {onnx: "MelWeightMatrix", native: 17, write: func(b *builder, n *canon.Node) error {
		dt, ok := onnxtensor.DataType(n.Op.(*canon.MelWeightMatrix).DType)
		if !ok {
			return b.opError(n, "output dtype %s has no ONNX type", n.Op.(*canon.MelWeightMatrix).DType)
		}
		b.emit(n.Name, "MelWeightMatrix", n.Inputs, n.Outputs, attrInt("output_datatype", int64(dt)))
		return nil
	}}})
}
