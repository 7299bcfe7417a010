package interp

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

func newPackedB(b []float32, k, n int) *packedB {
	p := &packedB{k: k, n: n, panels: make([]float32, packedBSize(k, n))}
	for pc := 0; pc < k; pc += gemmKC {
		packB(false, b, n, pc, 0, min(gemmKC, k-pc), n, p.panels[pc*p.width():])
	}
	return p
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
	if x.s.in[1] < 0 || x.p.consts[x.s.in[1]] == nil {
		return false
	}
	pb := x.s.packedB
	if pb == nil || pb.k != k || pb.n != n {
		size := int64(packedBSize(k, n)) * 4
		if x.p.packedBytes+size > maxPackedBytes || x.p.pool.budget.tryCharge("packed weights", size) != nil {
			return false
		}
		x.p.packedBytes += size
		pb = newPackedB(b.f, k, n)
		x.s.packedB = pb
	}
	rows := nb * m
	gemmSlabs(rows, n, k, func(i, mb, j, nbs int) {
		gemmPackedB(mb, nbs, k, a.f[i*k:], k, pb, j, y.f[i*n+j:], n)
	})
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
