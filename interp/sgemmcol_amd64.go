package interp

import "unsafe"

//go:noescape
func sgemmColumn16x8(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func sgemmColumn16x4(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func sgemmColumn16x2(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func sgemmColumn16x1(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

// microColumn computes one column of C for panels full 16-row panels of
// the packed A block a (k-major panels of kb groups of 16 floats): c[r·ldc]
// (+)= Σ_p a[r, p]·b[p·ldb] for the 16·panels rows r, each sum in the
// order and with the FMAs the 16×16 kernel uses, so a narrow edge of C
// costs its own columns only, not a whole 16-column tile. AVX-512 only.
func microColumn(kb, panels int, a, b []float32, ldb int, c []float32, ldc int, add bool) {
	if panels <= 0 {
		return
	}
	if kb > 0 {
		_ = a[panels*16*kb-1] // bounds checks: the assembly trusts these lengths
		_ = b[(kb-1)*ldb]
	}
	_ = c[(panels*16-1)*ldc]
	for p := 0; p < panels; {
		n := 8
		for n > panels-p {
			n /= 2
		}
		ap, cp := unsafe.SliceData(a[p*16*kb:]), unsafe.SliceData(c[p*16*ldc:])
		switch n {
		case 8:
			sgemmColumn16x8(kb, ap, 16*kb, unsafe.SliceData(b), ldb, cp, ldc, add)
		case 4:
			sgemmColumn16x4(kb, ap, 16*kb, unsafe.SliceData(b), ldb, cp, ldc, add)
		case 2:
			sgemmColumn16x2(kb, ap, 16*kb, unsafe.SliceData(b), ldb, cp, ldc, add)
		default:
			sgemmColumn16x1(kb, ap, 16*kb, unsafe.SliceData(b), ldb, cp, ldc, add)
		}
		p += n
	}
}
