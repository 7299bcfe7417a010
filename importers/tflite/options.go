package tfliteimport

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// fbTable is a generated options table.
type fbTable interface {
	Init(buf []byte, i flatbuffers.UOffsetT)
}

// emptyTable is a flatbuffer holding one table with no fields: options an
// operator omits read as the schema's defaults from it.
var emptyTable, emptyPos = func() ([]byte, flatbuffers.UOffsetT) {
	fb := flatbuffers.NewBuilder(16)
	fb.StartObject(0)
	fb.Finish(fb.EndObject())
	buf := fb.FinishedBytes()
	return buf, flatbuffers.GetUOffsetT(buf)
}()

// optionsOf returns the operator's builtin options as table type T,
// checking that the file says they are of that type; absent options read
// as defaults.
func optionsOf[T any, PT interface {
	*T
	fbTable
}](c *opCtx, want tflitefb.BuiltinOptions) (PT, error) {
	p := PT(new(T))
	if c.op.options == nil {
		p.Init(emptyTable, emptyPos)
		return p, nil
	}
	if c.op.optionsType != want {
		return nil, c.errf("its builtin options are %s, want %s", tflitefb.EnumNamesBuiltinOptions[c.op.optionsType], tflitefb.EnumNamesBuiltinOptions[want])
	}
	p.Init(c.op.options.Bytes, c.op.options.Pos)
	return p, nil
}

// floatActivation applies a fused activation to float value x.
func (c *opCtx) floatActivation(act tflitefb.ActivationFunctionType, x, base string) (string, error) {
	b := c.b
	switch act {
	case tflitefb.ActivationFunctionTypeNONE:
		return x, nil
	case tflitefb.ActivationFunctionTypeRELU:
		return b.node(base+"/relu", &canon.Unary{Fn: canon.Relu}, x), nil
	case tflitefb.ActivationFunctionTypeRELU6:
		return b.node(base+"/relu6", &canon.Clip{Min: 0, Max: 6}, x, "", ""), nil
	case tflitefb.ActivationFunctionTypeRELU_N1_TO_1:
		return b.node(base+"/relu_n1_to_1", &canon.Clip{Min: -1, Max: 1}, x, "", ""), nil
	case tflitefb.ActivationFunctionTypeTANH:
		return b.node(base+"/tanh", &canon.Unary{Fn: canon.Tanh}, x), nil
	}
	return "", c.errf("fused activation %s is not supported", tflitefb.EnumNamesActivationFunctionType[act])
}
