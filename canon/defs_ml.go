package canon

import (
	"fmt"
	"math"
)

// The ops of ONNX's ai.onnx.ml domain that modelbridge reads: Binarizer-1,
// ArrayFeatureExtractor-1, LabelEncoder-4 and TreeEnsemble-5 (defs_tree.go).
// Their kinds carry the ONNX names; the ONNX writer emits them in that
// domain.

func init() {
	Register(withReason(&OpDef{
		Kind:    "Binarizer",
		Summary: "1 where X > Threshold, else 0, in X's float type (ai.onnx.ml)",
		New:     func() Op { return &Binarizer{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) {
			if dt := c.in[0].DType; dt != Undefined && dt != Float32 && dt != Float64 {
				return nil, c.errf("input X is %s; Binarizer is computed on float32 and float64 (ONNX Runtime runs it on float32 only, and ONNX does not say how Threshold converts to an integer type)", dt)
			}
			return []ValueInfo{shaped2(c.in[0])}, nil
		},
		OutputDTypes: func(_ *Node, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Example: func() Example {
			return Example{Op: &Binarizer{Threshold: 0.25}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 3}}}}
		},
	}, mlWithout))
	Register(withReason(&OpDef{
		Kind:         "ArrayFeatureExtractor",
		Summary:      "the elements of X at the int64 indices Y along X's last axis; a 1-D X gives [1, len(Y)] (ai.onnx.ml)",
		New:          func() Op { return &ArrayFeatureExtractor{} },
		Infer:        func(c *InferCtx) ([]ValueInfo, error) { return one(c.arrayFeatureExtractor()) },
		OutputDTypes: func(_ *Node, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Example: func() Example {
			return Example{Op: &ArrayFeatureExtractor{}, Inputs: []ExampleInput{
				{DType: Float32, Shape: []int64{3, 4}},
				{DType: Int64, Shape: []int64{3}, Const: NewInt64Tensor("", []int64{3}, []int64{2, 0, 2})}}}
		},
	}, mlWithout))
}

var mlWithout = Without{Accumulation: SumsNothing, RemapAxes: AxesFixed, Decompose: "an ai.onnx.ml op kept whole so that it is written back as itself", Noop: NoNoopSetting}

// Binarizer maps each element of X to 1 when it is greater than Threshold
// and to 0 otherwise (NaN gives 0).
type Binarizer struct {
	Threshold float32
}

func (*Binarizer) Kind() string         { return "Binarizer" }
func (*Binarizer) Signature() Signature { return sig(1, inX) }

// ArrayFeatureExtractor gathers X's elements at the indices Y (int64, any
// shape, read flat) along X's last axis, as ONNX Runtime does: the output
// is X's shape with the last axis replaced by Y's element count, and a
// 1-D X gives a [1, count] output. An index outside [0, last axis) is an
// error at run time.
type ArrayFeatureExtractor struct{}

func (*ArrayFeatureExtractor) Kind() string { return "ArrayFeatureExtractor" }
func (*ArrayFeatureExtractor) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "Y"})
}

// mlValueType reports the element types the ai.onnx.ml ops here compute on.
func mlValueType(dt DType) bool {
	switch dt {
	case Float32, Float64, Int64, Int32, Int16, String:
		return true
	}
	return false
}

func (c *InferCtx) arrayFeatureExtractor() (ValueInfo, error) {
	x, y := c.in[0], c.in[1]
	if dt := x.DType; dt != Undefined && (!mlValueType(dt) || dt == Int16) {
		return ValueInfo{}, c.errf("input X is %s; ArrayFeatureExtractor takes float32, float64, int64, int32 or string", dt)
	}
	if dt := y.DType; dt != Undefined && dt != Int64 {
		return ValueInfo{}, c.errf("Y is %s; ArrayFeatureExtractor's indices are int64", dt)
	}
	if !x.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	if len(x.Shape) == 0 {
		return ValueInfo{}, c.errf("input X is a scalar; ArrayFeatureExtractor selects along the last axis of a tensor of rank 1 or more")
	}
	count := unknownDim
	if y.RankKnown {
		n := int64(1)
		for _, d := range y.Shape {
			if !d.Known() {
				n = -1
				break
			}
			n *= d.Size
		}
		if n >= 0 {
			count = knownDim(n)
		}
	}
	var out []Dim
	if len(x.Shape) == 1 {
		out = []Dim{knownDim(1), count}
	} else {
		out = append(cloneDims(x.Shape[:len(x.Shape)-1]), count)
	}
	return shaped(x.DType, out), nil
}

// MLKey is the key of a lookup table on numbers or strings: floats by value
// (every NaN one key, -0 and +0 one key), integers by value.
func MLKey(dt DType, s string, v float64, i int64) string {
	switch {
	case dt == String:
		return "s" + s
	case dt.IsFloat():
		if math.IsNaN(v) {
			return "nan"
		}
		if v == 0 {
			v = 0
		}
		return fmt.Sprintf("f%x", math.Float64bits(v))
	}
	return fmt.Sprintf("i%d", i)
}
