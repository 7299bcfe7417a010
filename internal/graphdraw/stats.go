package graphdraw

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// weightStats summarizes a weight's values as Netron's panel does: range,
// mean, standard deviation, and how many are zero or not finite.
func weightStats(t *canon.Tensor) string {
	n := int(t.NumElements())
	if n <= 0 || int64(len(t.Data)) < t.ByteSize() {
		return ""
	}
	var at func(i int) float64
	switch t.DType {
	case canon.Float32:
		at = func(i int) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))) }
	case canon.Float16:
		at = func(i int) float64 { return float64(canon.HalfToFloat32(binary.LittleEndian.Uint16(t.Data[2*i:]))) }
	case canon.BFloat16:
		at = func(i int) float64 {
			return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(t.Data[2*i:])) << 16))
		}
	case canon.Float64:
		at = func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(t.Data[8*i:])) }
	default:
		v, err := t.Int64s()
		if err != nil || len(v) != n {
			return ""
		}
		at = func(i int) float64 { return float64(v[i]) }
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var sum, sumSq float64
	zeros, bad, finite := 0, 0, 0
	for i := 0; i < n; i++ {
		x := at(i)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			bad++
			continue
		}
		finite++
		if x == 0 {
			zeros++
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		sum += x
		sumSq += x * x
	}
	if finite == 0 {
		return fmt.Sprintf("%d values, none finite", n)
	}
	mean := sum / float64(finite)
	std := math.Sqrt(math.Max(sumSq/float64(finite)-mean*mean, 0))
	s := fmt.Sprintf("min %.4g  max %.4g  mean %.4g  std %.4g  zeros %d/%d", lo, hi, mean, std, zeros, n)
	if bad > 0 {
		s += fmt.Sprintf("  NaN/Inf %d", bad)
	}
	return s
}
