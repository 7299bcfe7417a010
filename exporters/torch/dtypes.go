package torchexport

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// inDType is the dtype of input i of the current node, when known.
func (gen *generator) inDType(i int) (canon.DType, bool) {
	if i >= len(gen.node.Inputs) || gen.node.Inputs[i] == "" {
		return 0, false
	}
	name := gen.node.Inputs[i]
	if t, ok := gen.inits[name]; ok {
		return t.DType, true
	}
	if v, ok := gen.g.Values.Lookup(name); ok {
		return v.DType, true
	}
	return 0, false
}

// poolCast is the dtype a max pool computes in when torch's pooling does
// not accept the input dtype: a float type holding every value exactly, so
// the maximum and the cast back are exact. Empty means pool as is.
func (gen *generator) poolCast() (string, error) {
	dt, ok := gen.inDType(0)
	if !ok {
		return "", nil
	}
	switch dt {
	case canon.Float32, canon.Float64, canon.BFloat16:
		return "", nil
	case canon.Uint8, canon.Int8, canon.Int16, canon.Float16:
		return "float32", nil
	case canon.Int32:
		return "float64", nil
	}
	return "", gen.fail("max pooling on %s has no exact PyTorch form (torch pools floating point only, and %s values do not all fit a float64 exactly)", dt, dt)
}

// intRange is the smallest and largest value of an integer dtype torch has.
func intRange(dt canon.DType) (lo, hi float64, ok bool) {
	switch dt {
	case canon.Uint8:
		return 0, math.MaxUint8, true
	case canon.Int8:
		return math.MinInt8, math.MaxInt8, true
	case canon.Int16:
		return math.MinInt16, math.MaxInt16, true
	case canon.Int32:
		return math.MinInt32, math.MaxInt32, true
	case canon.Int64:
		return math.MinInt64, math.MaxInt64, true
	}
	return 0, 0, false
}
