package canon

import "fmt"

func init() {
	Register(withReason(&OpDef{
		Kind:    "LabelEncoder",
		Summary: "map each element of X through a table of keys to values; elements without a key give Default (ai.onnx.ml)",
		New:     func() Op { return &LabelEncoder{} },
		Infer:   func(c *InferCtx) ([]ValueInfo, error) { return one(c.labelEncoder(c.n.Op.(*LabelEncoder))) },
		Check: func(c *CheckCtx) error {
			return wrapCheck(c, c.N.Op.(*LabelEncoder).Validate())
		},
		OutputDTypes: func(n *Node, _ []DType) ([]DType, error) {
			op := n.Op.(*LabelEncoder)
			if op.Values == nil {
				return nil, fmt.Errorf("LabelEncoder has no values")
			}
			return []DType{op.Values.DType}, nil
		},
		Example: func() Example {
			x := NewStringTensor("", []int64{2, 3}, []string{"a", "b", "zz", "c", "a", ""})
			return Example{Op: &LabelEncoder{
				Keys:    NewStringTensor("", []int64{3}, []string{"a", "b", "c"}),
				Values:  NewInt64Tensor("", []int64{3}, []int64{7, -2, 0}),
				Default: NewInt64Tensor("", []int64{1}, []int64{42}),
			}, Inputs: []ExampleInput{{DType: String, Shape: x.Shape, Const: x}}}
		},
	}, mlWithout))
}

// LabelEncoder maps each element of X (of Keys' type) to the value at the
// position of the equal key, or to Default when no key equals it. Keys
// and Values are 1-D tensors of one length, Default a one-element tensor
// of Values' type; the importer fills ONNX's defaults ("_Unused", -1,
// -0.0). Float keys match by value: NaN matches NaN, -0 matches +0.
type LabelEncoder struct {
	Keys, Values, Default *Tensor
}

func (*LabelEncoder) Kind() string         { return "LabelEncoder" }
func (*LabelEncoder) Signature() Signature { return sig(1, inX) }

// Validate checks the table: types ONNX allows, equal lengths, no key
// twice (ONNX does not say which value a repeated key maps to).
func (op *LabelEncoder) Validate() error {
	if op.Keys == nil || op.Values == nil || op.Default == nil {
		return fmt.Errorf("LabelEncoder needs keys, values and a default")
	}
	for _, t := range []*Tensor{op.Keys, op.Values, op.Default} {
		if !mlValueType(t.DType) {
			return fmt.Errorf("LabelEncoder's keys and values are strings, int64, int32, int16, float32 or float64, not %s", t.DType)
		}
		if err := t.CheckData(); err != nil {
			return err
		}
	}
	if op.Default.DType != op.Values.DType || op.Default.NumElements() != 1 {
		return fmt.Errorf("LabelEncoder's default is %s%v; want one %s", op.Default.DType, op.Default.Shape, op.Values.DType)
	}
	if len(op.Keys.Shape) != 1 || len(op.Values.Shape) != 1 || op.Keys.Shape[0] != op.Values.Shape[0] {
		return fmt.Errorf("LabelEncoder has keys of shape %v and values of shape %v; want two 1-D tensors of one length", op.Keys.Shape, op.Values.Shape)
	}
	keys, err := op.KeyStrings()
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(keys))
	for i, k := range keys {
		if seen[k] {
			return fmt.Errorf("LabelEncoder's key %d repeats an earlier key; ONNX does not say which value a repeated key maps to", i)
		}
		seen[k] = true
	}
	return nil
}

// KeyStrings are the keys as MLKey strings, in order.
func (op *LabelEncoder) KeyStrings() ([]string, error) {
	return MLKeys(op.Keys)
}

// MLKeys gives MLKey of each element of t.
func MLKeys(t *Tensor) ([]string, error) {
	n := int(t.NumElements())
	out := make([]string, n)
	switch {
	case t.DType == String:
		for i, s := range t.Strings {
			out[i] = MLKey(String, s, 0, 0)
		}
	case t.DType.IsFloat():
		v, err := t.Float64s()
		if err != nil {
			return nil, err
		}
		for i, f := range v {
			out[i] = MLKey(t.DType, "", f, 0)
		}
	default:
		v, err := t.Int64s()
		if err != nil {
			return nil, err
		}
		for i, k := range v {
			out[i] = MLKey(t.DType, "", 0, k)
		}
	}
	return out, nil
}

func (c *InferCtx) labelEncoder(op *LabelEncoder) (ValueInfo, error) {
	if err := op.Validate(); err != nil {
		return ValueInfo{}, c.errf("%v", err)
	}
	if dt := c.in[0].DType; dt != Undefined && dt != op.Keys.DType {
		return ValueInfo{}, c.errf("input X is %s but the keys are %s; LabelEncoder looks up X among its keys", dt, op.Keys.DType)
	}
	v := shaped2(c.in[0])
	v.DType = op.Values.DType
	return v, nil
}
