package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the linear-algebra family: Det.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"Det": computesF64(fixed(runDet)),
	})
}

// runDet computes each matrix's determinant in float64 whatever X's float
// dtype, by LU factorization with partial pivoting.
func runDet(x *exec) error {
	in := x.in(0)
	if err := needFloating(in, "input X"); err != nil {
		return err
	}
	r := len(in.shape)
	if r < 2 || in.shape[r-1] != in.shape[r-2] {
		return fmt.Errorf("input X has shape %v; Det needs square matrices in the last two axes", in.shape)
	}
	m := in.shape[r-1]
	out := x.newFloatLike(in, append([]int{}, in.shape[:r-2]...))
	a := make([]float64, m*m)
	for b := range out.size() {
		for i := range a {
			a[i] = in.fl(b*m*m + i)
		}
		out.setFl(b, luDet(a, m))
	}
	x.set(0, out)
	return nil
}

// luDet is the determinant of the m×m row-major matrix a, which it
// overwrites with its LU factors: the product of the pivots, negated once
// per row swap. Each column's pivot is the entry of largest magnitude at or
// below the diagonal; a zero pivot column makes the determinant 0.
func luDet(a []float64, m int) float64 {
	det := 1.0
	for k := range m {
		p := k
		for i := k + 1; i < m; i++ {
			if math.Abs(a[i*m+k]) > math.Abs(a[p*m+k]) {
				p = i
			}
		}
		pivot := a[p*m+k]
		if pivot == 0 {
			return 0
		}
		if p != k {
			for j := range m {
				a[k*m+j], a[p*m+j] = a[p*m+j], a[k*m+j]
			}
			det = -det
		}
		det *= pivot
		for i := k + 1; i < m; i++ {
			f := a[i*m+k] / pivot
			if f == 0 {
				continue
			}
			for j := k + 1; j < m; j++ {
				a[i*m+j] -= f * a[k*m+j]
			}
		}
	}
	return det
}
