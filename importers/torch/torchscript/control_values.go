package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// dynBool is a bool known only at run time (a branch or loop condition of
// scripted code): t is a 0-d bool graph value.
type dynBool struct{ t *tensorVal }

// scalarShape is the target of a Reshape to a 0-d tensor.
func scalarShape() *tensorVal {
	return &tensorVal{konst: canon.NewInt64Tensor("", []int64{0}, nil)}
}

// oneShape is the target of a Reshape to a 1-D tensor of one element.
func oneShape() *tensorVal {
	return &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{1})}
}

// constBool is a bool known at import, when v is one (a Python bool, or a
// run-time bool whose value inference worked out).
func (b *builder) constBool(v value) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case *dynBool:
		if c := b.info(x.t).Const; c != nil && len(c.Data) == 1 && c.DType == canon.Bool {
			return c.Data[0] != 0, true
		}
	}
	return false, false
}

// runTimeBool makes t (a tensor of one element) a run-time bool: t != 0,
// as bool(tensor) reads it.
func (b *builder) runTimeBool(scope string, t *tensorVal) (*dynBool, error) {
	vi := b.info(t)
	if n, ok := vi.StaticShape(); ok && numelOf(n) != 1 {
		return nil, fmt.Errorf("bool() of a tensor of shape %v: only a tensor of one element has a truth value", n)
	}
	s, err := b.emit1(scope, &canon.Reshape{}, t, scalarShape())
	if err != nil {
		return nil, err
	}
	if vi.DType != canon.Bool {
		if s, err = b.emit1(scope, &canon.Cast{To: canon.Bool}, s); err != nil {
			return nil, err
		}
	}
	return &dynBool{t: s}, nil
}

// runTimeInt makes t (a tensor of one element) a run-time int, truncated
// toward zero as int(tensor) does.
func (b *builder) runTimeInt(scope string, t *tensorVal) (*dynInt, error) {
	vi := b.info(t)
	if n, ok := vi.StaticShape(); ok && numelOf(n) != 1 {
		return nil, fmt.Errorf("int() of a tensor of shape %v: only a tensor of one element converts to a number", n)
	}
	if vi.DType.IsFloat() && vi.DType != canon.Float64 && vi.DType != canon.Float32 {
		// Half floats go through float32 so that the cast truncates as torch does.
		var err error
		if t, err = b.emit1(scope, &canon.Cast{To: canon.Float32}, t); err != nil {
			return nil, err
		}
	}
	s, err := b.emit1(scope, &canon.Reshape{}, t, oneShape())
	if err != nil {
		return nil, err
	}
	if vi.DType != canon.Int64 {
		if s, err = b.emit1(scope, &canon.Cast{To: canon.Int64}, s); err != nil {
			return nil, err
		}
	}
	return &dynInt{t: s, sym: s.name}, nil
}

// intTensor is v (an int known at import or at run time) as a 1-D int64
// tensor of one element.
func intTensor(v value) (*tensorVal, bool) {
	switch x := v.(type) {
	case int64:
		return &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{x})}, true
	case bool:
		n := int64(0)
		if x {
			n = 1
		}
		return &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{n})}, true
	case *dynInt:
		return x.t, true
	}
	return nil, false
}

// boolTensor is v (a bool known at import or at run time) as a 0-d bool
// tensor.
func boolTensor(v value) (*tensorVal, bool) {
	switch x := v.(type) {
	case bool:
		d := byte(0)
		if x {
			d = 1
		}
		return &tensorVal{konst: &canon.Tensor{DType: canon.Bool, Shape: []int64{}, Data: []byte{d}}}, true
	case *dynBool:
		return x.t, true
	}
	return nil, false
}

func numelOf(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}
