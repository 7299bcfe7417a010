package tfliteexport

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// fileTensor is one tensor of the subgraph being written: data is nil for
// an activation, the raw little-endian bytes of a buffer otherwise.
type fileTensor struct {
	name  string
	shape []int32
	typ   tflitefb.TensorType
	data  []byte
	// variable marks a state tensor an op reads and writes (LSTM states).
	variable bool
}

// fileOp is one operator; opts, when set, writes its builtin options table.
type fileOp struct {
	code     tflitefb.BuiltinOperator
	inputs   []int32
	outputs  []int32
	optsType tflitefb.BuiltinOptions
	opts     func(b *flatbuffers.Builder) flatbuffers.UOffsetT
}

// fileModel is the single subgraph the exporter fills before serializing.
type fileModel struct {
	tensors []fileTensor
	ops     []fileOp
	inputs  []int32
	outputs []int32
	// sigInputs and sigOutputs name the signature's entries (the graph's
	// own input and output names).
	sigInputs, sigOutputs []string
}

// serialize renders the model as a schema-3 flatbuffer with the "TFL3"
// identifier. Buffer 0 is the empty buffer TFLite reserves; each constant
// gets its own buffer, 16-byte aligned so runtimes may map it in place.
func (m *fileModel) serialize() []byte {
	// Sized so that the builder never grows: growing copies every weight.
	size := 1 << 20
	for _, t := range m.tensors {
		size += len(t.data) + 128 + len(t.name) + 4*len(t.shape)
	}
	size += 256 * len(m.ops)
	b := flatbuffers.NewBuilder(size)
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
	bufOf := make([]uint32, len(m.tensors))
	for i, t := range m.tensors {
		if t.data == nil {
			continue
		}
		b.StartVector(1, len(t.data), 16)
		b.Pad(len(t.data))
		copy(b.Bytes[b.Head():], t.data)
		dv := b.EndVector(len(t.data))
		tflitefb.BufferStart(b)
		tflitefb.BufferAddData(b, dv)
		bufOf[i] = uint32(len(bufs))
		bufs = append(bufs, tflitefb.BufferEnd(b))
	}
	tens := make([]flatbuffers.UOffsetT, len(m.tensors))
	for i, t := range m.tensors {
		name := b.CreateString(t.name)
		sv := ints(t.shape)
		tflitefb.TensorStart(b)
		tflitefb.TensorAddShape(b, sv)
		tflitefb.TensorAddType(b, t.typ)
		tflitefb.TensorAddBuffer(b, bufOf[i])
		tflitefb.TensorAddName(b, name)
		// A scalar's empty shape is a known rank 0, not an unknown rank.
		tflitefb.TensorAddHasRank(b, true)
		if t.variable {
			tflitefb.TensorAddIsVariable(b, true)
		}
		tens[i] = tflitefb.TensorEnd(b)
	}
	codeIndex := map[tflitefb.BuiltinOperator]uint32{}
	var codes, ops []flatbuffers.UOffsetT
	for _, op := range m.ops {
		if _, ok := codeIndex[op.code]; !ok {
			tflitefb.OperatorCodeStart(b)
			// Codes from 127 on live only in builtin_code; the int8 field
			// holds PLACEHOLDER_FOR_GREATER_OP_CODES for them.
			dep := int8(tflitefb.BuiltinOperatorPLACEHOLDER_FOR_GREATER_OP_CODES)
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
		ops = append(ops, tflitefb.OperatorEnd(b))
	}
	tv, opv, inv, outv := offs(tens), offs(ops), ints(m.inputs), ints(m.outputs)
	sgName := b.CreateString("main")
	tflitefb.SubGraphStart(b)
	tflitefb.SubGraphAddTensors(b, tv)
	tflitefb.SubGraphAddOperators(b, opv)
	tflitefb.SubGraphAddInputs(b, inv)
	tflitefb.SubGraphAddOutputs(b, outv)
	tflitefb.SubGraphAddName(b, sgName)
	sg := tflitefb.SubGraphEnd(b)
	sigs := m.signature(b, offs)
	desc := b.CreateString("modelbridge")
	sgv, cv, bv := offs([]flatbuffers.UOffsetT{sg}), offs(codes), offs(bufs)
	tflitefb.ModelStart(b)
	tflitefb.ModelAddVersion(b, 3)
	tflitefb.ModelAddOperatorCodes(b, cv)
	tflitefb.ModelAddSubgraphs(b, sgv)
	tflitefb.ModelAddBuffers(b, bv)
	tflitefb.ModelAddDescription(b, desc)
	tflitefb.ModelAddSignatureDefs(b, sigs)
	b.FinishWithFileIdentifier(tflitefb.ModelEnd(b), []byte("TFL3"))
	return b.FinishedBytes()
}

// signature writes one "serving_default" signature mapping the graph's
// input and output names to the subgraph's tensors, as TensorFlow's
// converter does, so that interpreters find tensors by the model's names.
func (m *fileModel) signature(b *flatbuffers.Builder, offs func([]flatbuffers.UOffsetT) flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	maps := func(names []string, idx []int32) flatbuffers.UOffsetT {
		var ts []flatbuffers.UOffsetT
		for i, n := range names {
			s := b.CreateString(n)
			tflitefb.TensorMapStart(b)
			tflitefb.TensorMapAddName(b, s)
			tflitefb.TensorMapAddTensorIndex(b, uint32(idx[i]))
			ts = append(ts, tflitefb.TensorMapEnd(b))
		}
		return offs(ts)
	}
	in, out := maps(m.sigInputs, m.inputs), maps(m.sigOutputs, m.outputs)
	key := b.CreateString("serving_default")
	tflitefb.SignatureDefStart(b)
	tflitefb.SignatureDefAddInputs(b, in)
	tflitefb.SignatureDefAddOutputs(b, out)
	tflitefb.SignatureDefAddSignatureKey(b, key)
	tflitefb.SignatureDefAddSubgraphIndex(b, 0)
	return offs([]flatbuffers.UOffsetT{tflitefb.SignatureDefEnd(b)})
}
