package interp

// attnScratch is one worker's buffers for the fused attention's products:
// the packed rows of Q, then of the scores, and the packedA that points
// into them.
type attnScratch struct {
	buf *[]float32
	pa  packedA
}

// attnGemm sets c (m×n, row stride ldc) to a·b for a (m×k, row stride lda)
// and b (k×n, row stride ldb) on the calling goroutine: a packed into s's
// buffer, b read where it lies (gemmPackedDirect), each sum gemm's. Used
// for a head's Q·Kᵀ and scores·V, whose B would otherwise be copied into
// panels on every call.
func attnGemm(s *attnScratch, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if !useAVX512 || k == 0 {
		gemmSerial(false, false, m, n, k, 1, a, lda, b, ldb, c, ldc, 0)
		return
	}
	mp := roundUp(m, gemmMR)
	if s.buf == nil {
		s.buf = getPack(mp * k)
	} else if cap(*s.buf) < mp*k {
		packPool.Put(s.buf)
		s.buf = getPack(mp * k)
	}
	buf := (*s.buf)[:mp*k]
	s.pa = packedA{m: m, k: k, blocks: s.pa.blocks[:0]}
	for pc := 0; pc < k; pc += gemmKC {
		kb := min(gemmKC, k-pc)
		blk := buf[pc*mp : pc*mp+mp*kb]
		packA(false, a, lda, 0, pc, m, kb, 1, blk)
		s.pa.blocks = append(s.pa.blocks, blk)
	}
	gemmPackedDirect(&s.pa, 0, m, n, b, ldb, c, ldc, nil)
}

// release returns s's buffer to the pool.
func (s *attnScratch) release() {
	if s.buf != nil {
		packPool.Put(s.buf)
		s.buf = nil
	}
}
