package canon

import "fmt"

// ValueKind is what a value is: a tensor (the zero kind, what almost every
// op reads and writes), a sequence of tensors (ONNX's sequence type: a list
// whose length is known at run time only), or an optional that holds one
// of those or nothing. For a sequence or an optional, ValueInfo.DType and
// Shape describe the tensors it holds; a sequence's Shape keeps only the
// dims on which all its tensors agree.
type ValueKind uint8

const (
	TensorValue ValueKind = iota
	// SequenceValue is a list of tensors of one dtype.
	SequenceValue
	// OptionalTensor is a tensor or nothing.
	OptionalTensor
	// OptionalSequence is a sequence or nothing.
	OptionalSequence
)

var valueKindNames = [...]string{"tensor", "sequence", "optional tensor", "optional sequence"}

func (k ValueKind) String() string {
	if int(k) < len(valueKindNames) {
		return valueKindNames[k]
	}
	return fmt.Sprintf("value kind %d", uint8(k))
}

// Valid reports whether k is one of the kinds above.
func (k ValueKind) Valid() bool { return int(k) < len(valueKindNames) }

// IsOptional reports an optional kind.
func (k ValueKind) IsOptional() bool { return k == OptionalTensor || k == OptionalSequence }

// IsSequence reports a sequence (not an optional one).
func (k ValueKind) IsSequence() bool { return k == SequenceValue }

// Element is what an optional holds (a tensor or a sequence); other kinds
// are their own element.
func (k ValueKind) Element() ValueKind {
	switch k {
	case OptionalTensor:
		return TensorValue
	case OptionalSequence:
		return SequenceValue
	}
	return k
}

// OptionalOf is the optional kind holding k (k itself when already optional).
func OptionalOf(k ValueKind) ValueKind {
	switch k {
	case TensorValue:
		return OptionalTensor
	case SequenceValue:
		return OptionalSequence
	}
	return k
}

// IsTensor reports whether v is a tensor (not a sequence or an optional).
func (v ValueInfo) IsTensor() bool { return v.Kind == TensorValue }

// TypeString prints v's type: "f32[2 3]" for a tensor, "seq(f32[N])" for
// a sequence, "opt(f32[4])" and "opt(seq(i64))" for optionals (the dtype
// alone when the rank is unknown).
func (v ValueInfo) TypeString() string {
	t := v.DType.String()
	if v.RankKnown {
		t += fmtDims(v.Shape)
	}
	if v.Kind.Element() == SequenceValue {
		t = "seq(" + t + ")"
	}
	if v.Kind.IsOptional() {
		t = "opt(" + t + ")"
	}
	return t
}

// SequenceOf is the type of a sequence whose tensors have type elem.
func SequenceOf(elem ValueInfo) ValueInfo {
	return ValueInfo{DType: elem.DType, Shape: cloneDims(elem.Shape), RankKnown: elem.RankKnown, Kind: SequenceValue}
}

// ElementType is the type of the tensors a sequence or an optional holds
// (for an optional sequence: the sequence), without a name or a value.
func (v ValueInfo) ElementType() ValueInfo {
	return ValueInfo{DType: v.DType, Shape: cloneDims(v.Shape), RankKnown: v.RankKnown, Kind: v.Kind.Element()}
}

// TensorType is the type of one tensor of v (v itself for a tensor).
func (v ValueInfo) TensorType() ValueInfo {
	return ValueInfo{DType: v.DType, Shape: cloneDims(v.Shape), RankKnown: v.RankKnown}
}

// takesAnyKind is implemented by the ops that read or write sequences and
// optionals (and by Identity, If and Loop, which pass any value through).
// Every other op reads tensors only: inference refuses a sequence or an
// optional input by name.
type takesAnyKind interface{ takesAnyKind() }

func (*Identity) takesAnyKind() {}
func (*If) takesAnyKind()       {}
func (*Loop) takesAnyKind()     {}

// checkTensorInputs refuses a sequence or an optional given to an op that
// reads tensors.
func (c *InferCtx) checkTensorInputs() error {
	if _, ok := c.n.Op.(takesAnyKind); ok {
		return nil
	}
	for i, v := range c.in {
		if i < len(c.n.Inputs) && c.n.Inputs[i] != "" && !v.IsTensor() {
			return c.errf("input %q is a %s (%s); %s reads tensors only", c.n.Inputs[i], v.Kind, v.TypeString(), opKind(c.n.Op))
		}
	}
	return nil
}

// sameKind reports whether a value that is a on some runs and b on others
// (If's branches, a loop's carried value) has one kind.
func sameKind(a, b ValueInfo) bool { return a.Kind == b.Kind }

// mergeDeclaredKind completes an untyped declaration (no dtype, no shape)
// with the computed kind, and refuses a declared kind that differs.
func mergeDeclaredKind(decl *ValueInfo, got ValueInfo) error {
	if decl.Kind == got.Kind {
		return nil
	}
	if decl.Kind == TensorValue && decl.DType == Undefined && !decl.RankKnown {
		decl.Kind = got.Kind
		return nil
	}
	return fmt.Errorf("declared a %s, but it is computed as a %s", decl.Kind, got.Kind)
}

// AllTensors reports whether every value in the table is a tensor.
func (t *ValueTable) AllTensors() bool {
	if t == nil {
		return true
	}
	for _, e := range t.entries {
		if e.flags&valueDeleted == 0 && e.kind != TensorValue {
			return false
		}
	}
	return true
}
