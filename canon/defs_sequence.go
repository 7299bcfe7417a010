package canon

// Sequence and optional ops (ONNX's Sequence*, SplitToSequence,
// ConcatFromSequence, SequenceMap, Optional*). A sequence is a run-time
// list of tensors of one dtype; an optional holds a tensor or a sequence,
// or nothing. Their types are ValueInfos of another Kind (valuekind.go).

// SequenceConstruct makes a sequence of its inputs, in order.
type SequenceConstruct struct{}

// SequenceEmpty makes an empty sequence of DType tensors.
type SequenceEmpty struct{ DType DType }

// SequenceAt is the tensor at Position (negative counts from the end).
type SequenceAt struct{}

// SequenceInsert inserts Tensor at Position (the end when absent).
type SequenceInsert struct{}

// SequenceErase removes the tensor at Position (the last when absent).
type SequenceErase struct{}

// SequenceLength is the number of tensors, an int64 scalar.
type SequenceLength struct{}

// SplitToSequence splits Input along Axis into a sequence: into pieces of
// the scalar Split's length (the last may be shorter), of the lengths of
// the 1-D Split, or, without Split, into slices of length 1, whose axis is
// dropped unless KeepDims.
type SplitToSequence struct {
	Axis     int64
	KeepDims bool
}

// ConcatFromSequence concatenates the sequence's tensors along Axis, or
// stacks them along a new axis Axis when NewAxis.
type ConcatFromSequence struct {
	Axis    int64
	NewAxis bool
}

// SequenceMap runs Body once per position of its first input, a sequence:
// Body's inputs are that position's tensor, then, for each further input,
// its tensor at the same position (a sequence of the same length) or the
// input itself (a tensor). Each Body output becomes a sequence. The node's
// inputs are (sequence, further inputs..., captures...).
type SequenceMap struct {
	Body     *Graph
	Captures []string
}

// Optional wraps Input into an optional, or makes an empty optional of
// Type (its Kind an optional kind) when Input is absent.
type Optional struct {
	Type ValueInfo
}

// OptionalHasElement is true when its input holds a value: an optional
// that is not empty, or a tensor or a sequence. An absent input is empty.
type OptionalHasElement struct{}

// OptionalGetElement is the value an optional holds (an error when it is
// empty); a tensor or a sequence is returned as it is.
type OptionalGetElement struct{}

func (*SequenceConstruct) Kind() string { return "SequenceConstruct" }
func (*SequenceConstruct) Signature() Signature {
	return sig(1, InputSpec{Name: "Inputs", Variadic: true})
}
func (*SequenceEmpty) Kind() string         { return "SequenceEmpty" }
func (*SequenceEmpty) Signature() Signature { return sig(1) }
func (*SequenceAt) Kind() string            { return "SequenceAt" }
func (*SequenceAt) Signature() Signature    { return sig(1, inSeq, InputSpec{Name: "Position"}) }
func (*SequenceInsert) Kind() string        { return "SequenceInsert" }
func (*SequenceInsert) Signature() Signature {
	return sig(1, inSeq, InputSpec{Name: "Tensor"}, inPosition)
}
func (*SequenceErase) Kind() string          { return "SequenceErase" }
func (*SequenceErase) Signature() Signature  { return sig(1, inSeq, inPosition) }
func (*SequenceLength) Kind() string         { return "SequenceLength" }
func (*SequenceLength) Signature() Signature { return sig(1, inSeq) }
func (*SplitToSequence) Kind() string        { return "SplitToSequence" }
func (*SplitToSequence) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "Split", Optional: true})
}
func (*ConcatFromSequence) Kind() string { return "ConcatFromSequence" }
func (*ConcatFromSequence) Signature() Signature {
	return sig(1, inSeq)
}
func (*SequenceMap) Kind() string { return "SequenceMap" }
func (o *SequenceMap) Signature() Signature {
	in := []InputSpec{inSeq}
	outs := 0
	if o.Body != nil {
		for range max(len(o.Body.Inputs)-1, 0) {
			in = append(in, InputSpec{Name: "Additional"})
		}
		outs = len(o.Body.Outputs)
	}
	in = append(in, captureSpecs(o.Captures)...)
	return Signature{Inputs: in, MinOutputs: min(outs, 1), MaxOutputs: outs}
}
func (o *SequenceMap) Subgraphs() []NamedGraph { return []NamedGraph{{"body", o.Body}} }
func (o *SequenceMap) CaptureNames() []string  { return o.Captures }

// Mapped is the number of inputs Body takes (the sequence and the further
// inputs).
func (o *SequenceMap) Mapped() int {
	if o.Body == nil {
		return 0
	}
	return len(o.Body.Inputs)
}

func (*Optional) Kind() string { return "Optional" }
func (*Optional) Signature() Signature {
	return sig(1, InputSpec{Name: "Input", Optional: true})
}
func (*OptionalHasElement) Kind() string { return "OptionalHasElement" }
func (*OptionalHasElement) Signature() Signature {
	return sig(1, InputSpec{Name: "Input", Optional: true})
}
func (*OptionalGetElement) Kind() string         { return "OptionalGetElement" }
func (*OptionalGetElement) Signature() Signature { return sig(1, InputSpec{Name: "Input"}) }

var (
	inSeq      = InputSpec{Name: "Sequence"}
	inPosition = InputSpec{Name: "Position", Optional: true}
)

func (*SequenceConstruct) takesAnyKind()  {}
func (*SequenceEmpty) takesAnyKind()      {}
func (*SequenceAt) takesAnyKind()         {}
func (*SequenceInsert) takesAnyKind()     {}
func (*SequenceErase) takesAnyKind()      {}
func (*SequenceLength) takesAnyKind()     {}
func (*SplitToSequence) takesAnyKind()    {}
func (*ConcatFromSequence) takesAnyKind() {}
func (*SequenceMap) takesAnyKind()        {}
func (*Optional) takesAnyKind()           {}
func (*OptionalHasElement) takesAnyKind() {}
func (*OptionalGetElement) takesAnyKind() {}
