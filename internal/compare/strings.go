package compare

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// sameStrings compares two string tensors of equal shape element by
// element, byte for byte.
func sameStrings(got, want *canon.Tensor) error {
	if err := got.CheckData(); err != nil {
		return err
	}
	if err := want.CheckData(); err != nil {
		return err
	}
	for i, w := range want.Strings {
		if got.Strings[i] != w {
			return fmt.Errorf("string element %d = %q, want %q", i, clip(got.Strings[i]), clip(w))
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// stringResult is Tensors for string tensors: equal or not, element by
// element (errors are 0 or infinite; no tolerance applies to text).
func stringResult(got, want *canon.Tensor) (Result, error) {
	if got.DType != want.DType {
		return Result{}, fmt.Errorf("dtype %s differs from the reference dtype %s", got.DType, want.DType)
	}
	if err := got.CheckData(); err != nil {
		return Result{}, err
	}
	if err := want.CheckData(); err != nil {
		return Result{}, err
	}
	r := Result{Elements: int64(len(want.Strings)), OK: true, Text: &TextDiff{}}
	for i, w := range want.Strings {
		if got.Strings[i] != w {
			if r.Mismatched == 0 {
				r.Worst = unravel(int64(i), want.Shape)
				r.Text = &TextDiff{WantFirst: clip(w), GotFirst: clip(got.Strings[i])}
			}
			r.Mismatched++
			r.OK = false
			r.MaxAbs = math.Inf(1)
		}
	}
	return r, nil
}
