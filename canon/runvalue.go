package canon

import "fmt"

// Value is a value given to or computed by a graph at run time: a *Tensor,
// a *Sequence or an *OptionalValue, told apart by ValueKind.
type Value interface {
	ValueKind() ValueKind
}

// ValueKind of a tensor is TensorValue.
func (*Tensor) ValueKind() ValueKind { return TensorValue }

// Sequence is a sequence value: tensors of one dtype, in order. An empty
// sequence still has its dtype.
type Sequence struct {
	Name    string
	DType   DType
	Tensors []*Tensor
}

// ValueKind of a sequence is SequenceValue.
func (*Sequence) ValueKind() ValueKind { return SequenceValue }

// OptionalValue is an optional: Value (a *Tensor or a *Sequence), or nil
// when empty. Kind (OptionalTensor or OptionalSequence) and DType give its
// type, which an empty optional still has.
type OptionalValue struct {
	Name  string
	Kind  ValueKind
	DType DType
	Value Value
}

// ValueKind of an optional is its Kind.
func (o *OptionalValue) ValueKind() ValueKind { return o.Kind }

// CheckValue checks that v is a value of type want's kind and dtype (an
// Undefined dtype accepts any), with well-formed tensors.
func CheckValue(want ValueInfo, v Value) error {
	if v == nil {
		return fmt.Errorf("no value")
	}
	if v.ValueKind() != want.Kind {
		return fmt.Errorf("a %s is given where a %s is expected", v.ValueKind(), want.Kind)
	}
	dtype := func(dt DType) error {
		if want.DType != Undefined && dt != want.DType {
			return fmt.Errorf("dtype %s expected, got %s", want.DType, dt)
		}
		return nil
	}
	switch x := v.(type) {
	case *Tensor:
		if err := dtype(x.DType); err != nil {
			return err
		}
		return x.CheckData()
	case *Sequence:
		if err := dtype(x.DType); err != nil {
			return err
		}
		for i, t := range x.Tensors {
			if t == nil {
				return fmt.Errorf("tensor %d of the sequence is missing", i)
			}
			if t.DType != x.DType {
				return fmt.Errorf("tensor %d of the sequence is %s, the sequence holds %s", i, t.DType, x.DType)
			}
			if err := t.CheckData(); err != nil {
				return fmt.Errorf("tensor %d of the sequence: %v", i, err)
			}
		}
		return nil
	case *OptionalValue:
		if err := dtype(x.DType); err != nil {
			return err
		}
		if x.Value == nil {
			return nil
		}
		if x.Value.ValueKind() != x.Kind.Element() {
			return fmt.Errorf("an optional %s holds a %s", x.Kind.Element(), x.Value.ValueKind())
		}
		return CheckValue(want.ElementType(), x.Value)
	}
	return fmt.Errorf("unknown value type %T", v)
}
