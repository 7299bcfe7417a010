package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
)

// DrawnRange is what a comparison of random draws looked at: the range of
// each side's values (NaN counted apart).
type DrawnRange struct {
	GotMin  float64 `json:"got_min"`
	GotMax  float64 `json:"got_max"`
	WantMin float64 `json:"want_min"`
	WantMax float64 `json:"want_max"`
	// GotNaN and WantNaN count NaN elements.
	GotNaN  int64 `json:"got_nan,omitempty"`
	WantNaN int64 `json:"want_nan,omitempty"`
}

// Drawn compares two outputs computed from random draws (canon.DrawnValues),
// which no two runs share element by element: they match when they have
// the same dtype and shape and got holds NaN only where the reference's
// draws hold NaN too. The ranges are reported for the reader to judge the
// distribution.
func Drawn(got, want *canon.Tensor) (Result, error) {
	if got.DType != want.DType {
		return Result{}, fmt.Errorf("dtype %s differs from the reference dtype %s", got.DType, want.DType)
	}
	if !slices.Equal(got.Shape, want.Shape) {
		return Result{}, fmt.Errorf("shape %v differs from the reference shape %v", got.Shape, want.Shape)
	}
	a, err := got.Float64s()
	if err != nil {
		return Result{}, err
	}
	b, err := want.Float64s()
	if err != nil {
		return Result{}, err
	}
	r := &DrawnRange{}
	r.GotMin, r.GotMax, r.GotNaN = valueRange(a)
	r.WantMin, r.WantMax, r.WantNaN = valueRange(b)
	res := Result{Elements: int64(len(a)), OK: r.GotNaN == 0 || r.WantNaN > 0, Drawn: r}
	if !res.OK {
		res.Mismatched = r.GotNaN
	}
	return res, nil
}

func valueRange(v []float64) (lo, hi float64, nan int64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if math.IsNaN(x) {
			nan++
			continue
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo > hi {
		lo, hi = 0, 0
	}
	return lo, hi, nan
}
