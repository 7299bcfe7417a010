package interp

import "github.com/modelbridge/modelbridge/internal/mmapfile"

// A MatMul whose right operand is a weight matrix (a Linear layer exported
// as MatMul, as in convnext's and transformers' MLPs) packs that matrix for
// the micro-kernel once per Program instead of on every run: with few rows
// on the left (a 7×7 map is 49 rows against 768×3072 weights) packing cost
// as much as the products.

// packedB is a k×n matrix packed as packB lays out its blocks: for each
// block of gemmKC rows, ceil(n/gemmNR) panels of kb rows × gemmNR columns
// (the last panel's missing columns zero), block after block.
type packedB struct {
	k, n   int
	panels []float32
}

// newPackedB packs the k×n matrix b, or with tb the n×k matrix b as its
// transpose.
func newPackedB(tb bool, b []float32, k, n int) *packedB {
	p := &packedB{k: k, n: n, panels: make([]float32, packedBSize(k, n))}
	ldb := n
	if tb {
		ldb = k
	}
	for pc := 0; pc < k; pc += gemmKC {
		packB(tb, b, ldb, pc, 0, min(gemmKC, k-pc), n, p.panels[pc*p.width():])
	}
	return p
}

// constPackedB returns input slot's constant matrix b (k×n, or n×k with
// tb) packed, made on first use and kept as the step's i-th packed
// operand; nil when the input is not a constant or there is no room.
func (x *exec) constPackedB(slot, i int, tb bool, b []float32, k, n int) *packedB {
	if !hasFMA || slot >= len(x.s.in) || x.s.in[slot] < 0 || x.p.consts[x.s.in[slot]] == nil || k*n == 0 || len(b) < k*n {
		return nil
	}
	if i < len(x.s.packedB) {
		if pb := x.s.packedB[i]; pb != nil && pb.k == k && pb.n == n {
			return pb
		}
	}
	for len(x.s.packedB) <= i {
		x.s.packedB = append(x.s.packedB, nil)
	}
	// Tied weights (one matrix read by several steps, or by the Program
	// of an optimized copy sharing this one's weights) are packed once.
	key := packBKey{&b[0], len(b), tb, k, n}
	if pb := x.p.packedBOf(key); pb != nil {
		x.s.packedB[i] = pb
		return pb
	}
	// Weights in a mapped file are let go once packed (read again, they
	// come back from the file), so the packed copy replaces them instead
	// of doubling them, and maxPackedBytes does not bound it; packing
	// stops at half the memory budget, leaving the rest to the values a
	// run computes (packing is optional, running out of budget is not).
	src := float32Bytes(b[:k*n])
	mapped := mmapfile.Mapped(src)
	size := int64(packedBSize(k, n)) * 4
	switch {
	case !mapped && x.p.packedBytes+size > maxPackedBytes:
		return nil
	case mapped && !x.p.pool.budget.roomToSpare(size):
		return nil
	case x.p.pool.budget.tryCharge("packed weights", size) != nil:
		return nil
	}
	if !mapped {
		x.p.packedBytes += size
	}
	pb := newPackedB(tb, b, k, n)
	x.s.packedB[i] = pb
	x.p.keepPackedB(key, pb)
	if mapped {
		mmapfile.EvictMapped(src)
	}
	return pb
}

// gemmConstB sets c (m×n, row stride ldc) to a·B, B packed in pb, in
// slabs split between cores.
func gemmConstB(m, n, k int, a []float32, lda int, pb *packedB, c []float32, ldc int) {
	gemmSlabs(m, n, k, func(i, mb, j, nbs int) {
		gemmPackedB(mb, nbs, k, a[i*lda:], lda, pb, j, c[i*ldc+j:], ldc)
	})
}

// width is n rounded up to whole panels.
func (p *packedB) width() int { return (p.n + gemmNR - 1) / gemmNR * gemmNR }

func packedBSize(k, n int) int { return k * ((n + gemmNR - 1) / gemmNR * gemmNR) }

// block is the packed k block starting at row pc (kb rows), from column j
// (a multiple of gemmNR) on.
func (p *packedB) block(pc, j, kb int) []float32 {
	return p.panels[pc*p.width()+j*kb:]
}

// matMulConstB computes y = a·b for a constant 2-D b (or one broadcast
// over every batch) from b packed once, and reports whether it did.
func (x *exec) matMulConstB(a, b *tensor, as, bs []int, nb, m, n, k int, y *tensor) bool {
	if !hasFMA || !b.isFloat() || b.dt != y.dt || numel(bs[:len(bs)-2]) != 1 || numel(as[:len(as)-2]) != nb {
		return false
	}
	pb := x.constPackedB(1, 0, false, b.f, k, n)
	if pb == nil {
		return false
	}
	gemmConstB(nb*m, n, k, a.f, k, pb, y.f, n)
	return true
}

// gemmPackedB sets c (m×nb, row stride ldc) to a·B's columns j..j+nb,
// B packed in pb; j is a multiple of gemmNR.
func gemmPackedB(m, nb, k int, a []float32, lda int, pb *packedB, j int, c []float32, ldc int) {
	pa := getPack(gemmKC * ((min(m, gemmMC) + gemmMR - 1) / gemmMR * gemmMR))
	defer packPool.Put(pa)
	bufA := *pa
	gemmCoreP(m, nb, k, c, ldc, 0, func(pc, ic, mb, kb int) []float32 {
		packA(false, a, lda, ic, pc, mb, kb, 1, bufA)
		return bufA
	}, func(pc, jc, kb, _ int, _ []float32) []float32 {
		return pb.block(pc, j+jc, kb)
	}, nil)
}
