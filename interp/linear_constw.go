package interp

import "runtime"

// gemmConstBScaled sets c (m×n, row stride ldc) to alpha·a·B + beta·c, B
// packed once in pb: what gemm computes with B packed on every call (the
// same panels, products and sums), for Linear layers whose weights are
// constants (vit_b_16's attention output projections arrive as Gemm).
func gemmConstBScaled(m, n, k int, alpha float32, a []float32, lda int, pb *packedB, c []float32, ldc int, beta float32) {
	if workers := runtime.GOMAXPROCS(0); shrinkingTasks && workers > 1 && n >= m && m*n*k >= 1<<18 {
		gemmConstBTasks(m, n, k, alpha, a, lda, pb, c, ldc, beta, workers)
		return
	}
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

// gemmConstBTasks is gemmConstBScaled with A packed once for all workers
// and C's columns cut into shrinking tasks (weightTasks), where column
// slabs, one a worker, each packed all of A and one could wait for the
// other's whole slab (vit_b_16's attention output projections).
func gemmConstBTasks(m, n, k int, alpha float32, a []float32, lda int, pb *packedB, c []float32, ldc int, beta float32, workers int) {
	mp := roundUp(m, gemmMR)
	pa := getPack(mp * k)
	defer packPool.Put(pa)
	packed := *pa
	packAWhole(a, lda, m, k, mp, alpha, packed)
	edges := weightTasks((n+gemmNR-1)/gemmNR, workers)
	parallelTasks(len(edges)-1, workers, func(_, t int) {
		j0, j1 := edges[t]*gemmNR, min(edges[t+1]*gemmNR, n)
		gemmCoreP(m, j1-j0, k, c[j0:], ldc, beta, func(pc, ic, _, kb int) []float32 {
			return packed[pc*mp+ic*kb:]
		}, func(pc, jc, kb, _ int, _ []float32) []float32 {
			return pb.block(pc, j0+jc, kb)
		}, nil)
	})
}
