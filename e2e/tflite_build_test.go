package e2e

import (
	"encoding/binary"
	"math"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// tflTensor is one tensor of a model built for a test: data nil for an
// activation.
type tflTensor struct {
	name  string
	shape []int32
	typ   tflitefb.TensorType
	data  []byte
	scale []float32 // quantization, nil for none
	zero  []int64
	axis  int32
}

// tflOp is one operator: options written by opts (nil: none).
type tflOp struct {
	code     tflitefb.BuiltinOperator
	inputs   []int32
	outputs  []int32
	optsType tflitefb.BuiltinOptions
	opts     func(b *flatbuffers.Builder) flatbuffers.UOffsetT
}

// buildTFLite writes a single-subgraph model.
func buildTFLite(tensors []tflTensor, ops []tflOp, inputs, outputs []int32) []byte {
	b := flatbuffers.NewBuilder(1024)
	ints := func(v []int32) flatbuffers.UOffsetT {
		b.StartVector(4, len(v), 4)
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependInt32(v[i])
		}
		return b.EndVector(len(v))
	}
	offs := func(v []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
		b.StartVector(4, len(v), 4)
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependUOffsetT(v[i])
		}
		return b.EndVector(len(v))
	}
	bufs := []flatbuffers.UOffsetT{}
	tflitefb.BufferStart(b)
	bufs = append(bufs, tflitefb.BufferEnd(b))
	tensorBuf := make([]uint32, len(tensors))
	for i, t := range tensors {
		if t.data == nil {
			continue
		}
		dv := b.CreateByteVector(t.data)
		tflitefb.BufferStart(b)
		tflitefb.BufferAddData(b, dv)
		tensorBuf[i] = uint32(len(bufs))
		bufs = append(bufs, tflitefb.BufferEnd(b))
	}
	var tens []flatbuffers.UOffsetT
	for i, t := range tensors {
		name := b.CreateString(t.name)
		sv := ints(t.shape)
		var q flatbuffers.UOffsetT
		if t.scale != nil {
			b.StartVector(4, len(t.scale), 4)
			for k := len(t.scale) - 1; k >= 0; k-- {
				b.PrependFloat32(t.scale[k])
			}
			scv := b.EndVector(len(t.scale))
			b.StartVector(8, len(t.zero), 8)
			for k := len(t.zero) - 1; k >= 0; k-- {
				b.PrependInt64(t.zero[k])
			}
			zv := b.EndVector(len(t.zero))
			tflitefb.QuantizationParametersStart(b)
			tflitefb.QuantizationParametersAddScale(b, scv)
			tflitefb.QuantizationParametersAddZeroPoint(b, zv)
			tflitefb.QuantizationParametersAddQuantizedDimension(b, t.axis)
			q = tflitefb.QuantizationParametersEnd(b)
		}
		tflitefb.TensorStart(b)
		tflitefb.TensorAddShape(b, sv)
		tflitefb.TensorAddType(b, t.typ)
		tflitefb.TensorAddBuffer(b, tensorBuf[i])
		tflitefb.TensorAddName(b, name)
		if t.scale != nil {
			tflitefb.TensorAddQuantization(b, q)
		}
		tens = append(tens, tflitefb.TensorEnd(b))
	}
	codeIndex := map[tflitefb.BuiltinOperator]uint32{}
	var codes []flatbuffers.UOffsetT
	var opOffs []flatbuffers.UOffsetT
	for _, op := range ops {
		if _, ok := codeIndex[op.code]; !ok {
			tflitefb.OperatorCodeStart(b)
			dep := int8(127) // PLACEHOLDER_FOR_GREATER_OP_CODES
			if op.code < 127 {
				dep = int8(op.code)
			}
			tflitefb.OperatorCodeAddDeprecatedBuiltinCode(b, dep)
			tflitefb.OperatorCodeAddBuiltinCode(b, op.code)
			tflitefb.OperatorCodeAddVersion(b, 1)
			codeIndex[op.code] = uint32(len(codes))
			codes = append(codes, tflitefb.OperatorCodeEnd(b))
		}
		iv, ov := ints(op.inputs), ints(op.outputs)
		var o flatbuffers.UOffsetT
		if op.opts != nil {
			o = op.opts(b)
		}
		tflitefb.OperatorStart(b)
		tflitefb.OperatorAddOpcodeIndex(b, codeIndex[op.code])
		tflitefb.OperatorAddInputs(b, iv)
		tflitefb.OperatorAddOutputs(b, ov)
		if op.opts != nil {
			tflitefb.OperatorAddBuiltinOptionsType(b, op.optsType)
			tflitefb.OperatorAddBuiltinOptions(b, o)
		}
		opOffs = append(opOffs, tflitefb.OperatorEnd(b))
	}
	tv, opv, inv, outv := offs(tens), offs(opOffs), ints(inputs), ints(outputs)
	tflitefb.SubGraphStart(b)
	tflitefb.SubGraphAddTensors(b, tv)
	tflitefb.SubGraphAddOperators(b, opv)
	tflitefb.SubGraphAddInputs(b, inv)
	tflitefb.SubGraphAddOutputs(b, outv)
	sg := tflitefb.SubGraphEnd(b)
	sgv, cv, bv := offs([]flatbuffers.UOffsetT{sg}), offs(codes), offs(bufs)
	tflitefb.ModelStart(b)
	tflitefb.ModelAddVersion(b, 3)
	tflitefb.ModelAddOperatorCodes(b, cv)
	tflitefb.ModelAddSubgraphs(b, sgv)
	tflitefb.ModelAddBuffers(b, bv)
	b.FinishWithFileIdentifier(tflitefb.ModelEnd(b), []byte("TFL3"))
	return b.FinishedBytes()
}

func f32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

func i32Bytes(v []int32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return out
}

// ramp is n deterministic values in about [-1, 1].
func ramp(n int, seed float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.Sin(float64(i)*0.731 + seed))
	}
	return v
}
