package interp

import "github.com/modelbridge/modelbridge/interp/internal/vec"

// vecBinOp is fn as the vector kernels' operation, for rows of two
// operands and rows where one operand is a single value broadcast over
// the row (a squeeze-excite block's per-channel scale, a per-channel
// shift): the vector kernels do the scalar loop's one float32 operation an
// element, so the results are its bits.
func vecBinOp(fn binFn) (vec.BinOp, bool) {
	switch fn {
	case binAdd:
		return vec.BinAdd, true
	case binSub:
		return vec.BinSub, true
	case binMul:
		return vec.BinMul, true
	case binDiv:
		return vec.BinDiv, true
	}
	return 0, false
}
