package interp

// gemmConstBScaled sets c (m×n, row stride ldc) to alpha·a·B + beta·c, B
// packed once in pb: what gemm computes with B packed on every call (the
// same panels, products and sums), for Linear layers whose weights are
// constants (vit_b_16's attention output projections arrive as Gemm).
func gemmConstBScaled(m, n, k int, alpha float32, a []float32, lda int, pb *packedB, c []float32, ldc int, beta float32) {
	gemmSlabs(m, n, k, func(i, mb, j, nb int) {
		pa := getPack(gemmKC * ((min(mb, gemmMC) + gemmMR - 1) / gemmMR * gemmMR))
		defer packPool.Put(pa)
		bufA := *pa
		ai := a[i*lda:]
		gemmCoreP(mb, nb, k, c[i*ldc+j:], ldc, beta, func(pc, ic, mb, kb int) []float32 {
			packA(false, ai, lda, ic, pc, mb, kb, alpha, bufA)
			return bufA
		}, func(pc, jc, kb, _ int, _ []float32) []float32 {
			return pb.block(pc, j+jc, kb)
		}, nil)
	})
}
