package interp

import (
	"runtime"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Blocking of the packed GEMM (Goto & van de Geijn): a kc×16 panel of B
// stays in L1 while it meets every gemmMR-row panel of an mc×kc block of A,
// which stays in L2.
const (
	gemmNR = 16
	gemmKC = 256
	gemmNC = 3072
	// gemmMaxMR bounds gemmMR, for fixed-size tile buffers.
	gemmMaxMR = 16
)

// gemmMR (rows of the micro-tile) and gemmMC (rows of an A block, a
// multiple of gemmMR) follow the micro-kernel the CPU runs: 16×16 with
// AVX-512, 6×16 with AVX2. Packed panels are laid out for them, so they are
// fixed before anything is packed.
var gemmMR, gemmMC = microTile()

var packPool = sync.Pool{New: func() any { return new([]float32) }}

// getPack returns a buffer of n floats starting on a 64-byte boundary, so
// the kernel's 32-byte loads never straddle cache lines.
func getPack(n int) *[]float32 {
	p := packPool.Get().(*[]float32)
	if cap(*p) < n {
		raw := make([]float32, n+16)
		off := int(uintptr(unsafe.Pointer(&raw[0]))%64) / 4
		if off != 0 {
			off = 16 - off
		}
		*p = raw[off:off]
	}
	*p = (*p)[:n]
	return p
}

// gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices,
// where op(A) is m×k and op(B) is k×n, using all cores for large products.
func gemm(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	if m == 0 || n == 0 {
		return
	}
	if !hasFMA {
		gemmBlas(ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc, beta)
		return
	}
	gemmSlabs(m, n, k, func(i, mb, j, nb int) {
		ai, bj := a[i:], b[j:]
		if !ta {
			ai = a[i*lda:]
		}
		if tb {
			bj = b[j*ldb:]
		}
		gemmSerial(ta, tb, mb, nb, k, alpha, ai, lda, bj, ldb, c[i*ldc+j:], ldc, beta)
	})
}

// gemmSlabs runs f(i, mb, j, nb) on disjoint slabs of an m×n product (rows
// i..i+mb, columns j..j+nb), in parallel when the product is large. It
// splits C along its longer side, aligned to the micro-tile so no slab gets
// a ragged edge it need not have (row slabs then also start on packed-panel
// boundaries).
func gemmSlabs(m, n, k int, f func(i, mb, j, nb int)) {
	w := runtime.GOMAXPROCS(0)
	if w <= 1 || m*n*k < 1<<18 && !(n < gemmNR && m*k >= gemvSplitFloats) {
		f(0, m, 0, n)
		return
	}
	if n >= m {
		edges := slabEdges(n, w, gemmNR)
		runParts(len(edges)-1, func(p int) { f(0, m, edges[p], edges[p+1]-edges[p]) })
	} else {
		edges := slabEdges(m, w, gemmMR)
		runParts(len(edges)-1, func(p int) { f(edges[p], edges[p+1]-edges[p], 0, n) })
	}
}

// slabEdges cuts size items into at most w slabs that start on multiples
// of width, returning their edges: each at the multiple nearest to an
// even share (196 columns make slabs of 96 and 100, not 112 and 84), or,
// when the shares are under two tiles and would round onto each other,
// whole tiles dealt out evenly.
func slabEdges(size, w, width int) []int {
	tiles := (size + width - 1) / width
	parts := max(1, min(w, tiles))
	edges := make([]int, 0, parts+1)
	if !evenSlabs {
		step := (size + w*width - 1) / (w * width) * width
		for at := 0; at < size; at += step {
			edges = append(edges, at)
		}
		return append(edges, size)
	}
	for p := range parts {
		if size < 2*parts*width {
			edges = append(edges, p*tiles/parts*width)
		} else {
			edges = append(edges, (p*size/parts+width/2)/width*width)
		}
	}
	return append(edges, size)
}

// evenSlabs lets gemmSlabs cut near even shares (a switch for
// BenchmarkABBA to compare with shares rounded up to whole tiles).
var evenSlabs = true

// gemvSplitFloats is how many floats of A make a product of a few
// columns (a squeeze-excite block's 1×1 convolutions on one pixel) worth
// splitting between cores although its flops are few: it streams A from
// memory, and two cores read it faster (efficientnet_b0's sixteen SE
// convolutions to a wide output: 202–238 → 148–176 µs a run).
const gemvSplitFloats = 1 << 14

// gemmSerial is gemm on the calling goroutine only (for callers that
// already run one task per core).
func gemmSerial(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	if m == 0 || n == 0 {
		return
	}
	if !hasFMA {
		gemmBlas(ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc, beta)
		return
	}
	if alpha == 0 {
		scaleC(m, n, c, ldc, beta)
		return
	}
	pa := getPack(gemmKC * ((min(m, gemmMC) + gemmMR - 1) / gemmMR * gemmMR))
	defer packPool.Put(pa)
	bufA := *pa
	gemmCore(tb, m, n, k, b, ldb, c, ldc, beta, func(pc, ic, mb, kb int) []float32 {
		packA(ta, a, lda, ic, pc, mb, kb, alpha, bufA)
		return bufA
	})
}

// packedA is op(A)·alpha packed once into the panels gemmCore reads, so a
// constant weight matrix (a convolution's W) is not re-packed on every run.
type packedA struct {
	m, k int
	// blocks[pc/gemmKC] holds all m rows (in gemmMR-row panels, k-major) for
	// that slice of k.
	blocks [][]float32
}

func newPackedA(ta bool, m, k int, alpha float32, a []float32, lda int) *packedA {
	p := &packedA{m: m, k: k}
	mp := (m + gemmMR - 1) / gemmMR * gemmMR
	for pc := 0; pc < k; pc += gemmKC {
		kb := min(gemmKC, k-pc)
		buf := make([]float32, mp*kb)
		packA(ta, a, lda, 0, pc, m, kb, alpha, buf)
		p.blocks = append(p.blocks, buf)
	}
	return p
}

// gemmPacked is gemm with a pre-packed A, using all cores for large
// products.
func gemmPacked(pa *packedA, tb bool, n int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	if pa.m == 0 || n == 0 {
		return
	}
	gemmSlabs(pa.m, n, pa.k, func(i, mb, j, nb int) {
		bj := b[j:]
		if tb {
			bj = b[j*ldb:]
		}
		gemmPackedSerial(pa, i, mb, tb, nb, bj, ldb, c[i*ldc+j:], ldc, beta)
	})
}

// gemmPackedSerial computes rows r0..r0+m of C from the packed A.
func gemmPackedSerial(pa *packedA, r0, m int, tb bool, n int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	gemmCore(tb, m, n, pa.k, b, ldb, c, ldc, beta, func(pc, ic, mb, kb int) []float32 {
		return pa.blocks[pc/gemmKC][(r0+ic)*kb:]
	})
}

// scaleC sets C = beta·C (beta 0 clears, since C may hold garbage).
func scaleC(m, n int, c []float32, ldc int, beta float32) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
		} else {
			for j := range row {
				row[j] *= beta
			}
		}
	}
}

// gemmCore runs the blocked loops; panelA returns the packed rows
// ic..ic+mb of op(A)·alpha for k-slice pc..pc+kb.
func gemmCore(tb bool, m, n, k int, b []float32, ldb int, c []float32, ldc int, beta float32, panelA func(pc, ic, mb, kb int) []float32) {
	gemmCoreP(m, n, k, c, ldc, beta, panelA, func(pc, jc, kb, nb int, dst []float32) []float32 {
		packB(tb, b, ldb, pc, jc, kb, nb, dst)
		return dst
	}, nil)
}

// gemmCoreP is gemmCore with B supplied already packed: panelB returns rows
// pc..pc+kb, columns jc..jc+nb of op(B) as packB lays them out, either
// written into dst or held ready, so B need never exist as a matrix (a
// convolution packs its im2col rows directly; Winograd transforms its input
// straight into panels). done, when not nil, is called on each strip of C
// (rows i..i+mb, at most gemmMC; columns j..j+nb, at most gemmNR) as soon
// as it holds its final sums, while it is in L1, so an epilogue costs no
// pass over C from memory.
func gemmCoreP(m, n, k int, c []float32, ldc int, beta float32, panelA func(pc, ic, mb, kb int) []float32, panelB func(pc, jc, kb, nb int, dst []float32) []float32, done func(i, mb, j, nb int)) {
	if k == 0 || beta != 0 {
		scaleC(m, n, c, ldc, beta)
	}
	if k == 0 {
		return
	}
	pb := getPack(gemmKC * ((min(n, gemmNC) + gemmNR - 1) / gemmNR * gemmNR))
	defer packPool.Put(pb)
	bufB := *pb
	var tmp [gemmMaxMR * gemmNR]float32
	for jc := 0; jc < n; jc += gemmNC {
		nb := min(gemmNC, n-jc)
		for pc := 0; pc < k; pc += gemmKC {
			kb := min(gemmKC, k-pc)
			// With beta 0 the first k block stores into C, which may hold
			// garbage, instead of clearing it first.
			add := pc > 0 || beta != 0
			last := pc+kb == k && done != nil
			bufB := panelB(pc, jc, kb, nb, bufB)
			for ic := 0; ic < m; ic += gemmMC {
				mb := min(gemmMC, m-ic)
				bufA := panelA(pc, ic, mb, kb)
				for jr := 0; jr < nb; jr += gemmNR {
					bp := bufB[jr*kb : (jr+gemmNR)*kb]
					nr := min(gemmNR, nb-jr)
					ir := 0
					if columnEdges && nr <= maxColumnEdge && gemmMR == 16 {
						// A narrow last panel (a 7×7 map's 49 = 3·16 + 1
						// columns) column by column through the whole row
						// panels, not as 16-column tiles.
						ir = mb / gemmMR * gemmMR
						for j := range nr {
							microColumn(kb, ir/gemmMR, bufA, bp[j:], gemmNR, c[ic*ldc+jc+jr+j:], ldc, add)
						}
					}
					for ; ir < mb; ir += gemmMR {
						ap := bufA[ir*kb : (ir+gemmMR)*kb]
						off := (ic+ir)*ldc + jc + jr
						if ir+gemmMR <= mb && nr == gemmNR {
							microKernel(kb, ap, bp, c[off:], ldc, add)
							continue
						}
						microTileAt(kb, ap, bp, gemmNR, c[off:], ldc, min(gemmMR, mb-ir), nr, add, &tmp)
					}
					if last {
						done(ic, mb, jc+jr, nr)
					}
				}
			}
		}
	}
}

// microTileAt runs the micro-kernel on the tile of C at c (mr ≤ gemmMR rows,
// nr ≤ gemmNR columns), B read as kb rows ldb apart (gemmNR when packed).
// A ragged tile is computed whole in tmp, then its valid part stored.
func microTileAt(kb int, ap, bp []float32, ldb int, c []float32, ldc, mr, nr int, add bool, tmp *[gemmMaxMR * gemmNR]float32) {
	if mr == gemmMR && nr == gemmNR {
		microKernelAny(kb, ap, bp, ldb, c, ldc, add)
		return
	}
	microKernelAny(kb, ap, bp, ldb, tmp[:], gemmNR, false)
	for i := 0; i < mr; i++ {
		crow := c[i*ldc : i*ldc+nr]
		trow := tmp[i*gemmNR : i*gemmNR+nr]
		if add {
			for j := range crow {
				crow[j] += trow[j]
			}
		} else {
			copy(crow, trow)
		}
	}
}

// microKernelAny is microKernel for B packed (ldb = gemmNR) or read in
// place.
func microKernelAny(kb int, ap, bp []float32, ldb int, c []float32, ldc int, add bool) {
	if ldb == gemmNR {
		microKernel(kb, ap, bp, c, ldc, add)
	} else {
		microKernelB(gemmNR, kb, ap, bp, ldb, c, ldc, add, false)
	}
}

// columnEdges lets gemmCoreP compute a narrow last panel of columns
// column by column (a switch for BenchmarkABBA to compare).
var columnEdges = true

// maxColumnEdge is the widest last panel of columns gemmPackedDirect
// computes column by column rather than as whole 16-column tiles.
const maxColumnEdge = 4

// prefetchRowLen is the shortest row of B (in floats) for which
// gemmPackedDirect has the kernel prefetch B (measured on mobilenet_v2: it
// pays on 56×56 and 112×112 maps, costs on 7×7 ones).
const prefetchRowLen = 1024

// gemmEp is the epilogue gemmPackedDirect applies to each strip of C as
// it finishes it: c = min(max(c + bias[r] (+ res), lo), hi), clampRow's
// operations (bias nil adds 0; res, laid out as C, may be nil). Only
// bounds canClampTile accepts may be used.
type gemmEp struct {
	bias, res []float32
	lo, hi    float32
}

// at is ep for the part of C that starts at row r, element off.
func (ep *gemmEp) at(r, off int) gemmEp {
	e := *ep
	if e.bias != nil {
		e.bias = e.bias[r:]
	}
	if e.res != nil {
		e.res = e.res[off:]
	}
	return e
}

// finish applies ep to rows r..r+mb, columns j..j+nb of C (nb ≤ 16).
func (ep *gemmEp) finish(c []float32, ldc, r, mb, j, nb int) {
	e := ep.at(r, r*ldc+j)
	clampTile(c[r*ldc+j:], ldc, mb, nb, e.bias, e.res, e.lo, e.hi)
}

// gemmPackedDirect is gemmPackedSerial (B not transposed, beta 0) with the
// micro-kernel reading B where it lies rather than from packed panels:
// when A has few rows, packing B costs about as much as multiplying by
// it. Only a last, partial panel of columns is packed (zero-padded). The
// sums are gemmPackedSerial's, in the same order. With ep not nil each
// strip of C (up to gemmMC rows, 16 columns) gets the epilogue as soon as
// it holds its final sums, while it is in L1. (Applying it inside the
// micro-kernel, as it stores each tile, was slower when C is not in cache,
// as in a network: the stores then wait for the epilogue's arithmetic.)
func gemmPackedDirect(pa *packedA, r0, m, n int, b []float32, ldb int, c []float32, ldc int, ep *gemmEp) {
	k := pa.k
	if k == 0 || !useAVX512 {
		panic("gemmPackedDirect: needs AVX-512 and k > 0")
	}
	full := n / gemmNR * gemmNR
	// A narrow last panel of columns goes column by column through whole
	// row panels; what that leaves (or a wider last panel) is packed.
	columns := n-full <= maxColumnEdge
	packEdge := full < n && (!columns || m%gemmMR != 0)
	pe := getPack(gemmKC * gemmNR)
	defer packPool.Put(pe)
	edge := *pe
	var tmp [gemmMaxMR * gemmNR]float32
	// B's rows lie far apart in a large feature map, and the strips of C
	// stream to memory: the kernel then prefetches B ahead of itself.
	prefetch := ldb >= prefetchRowLen
	if stripsAlongC(m, n, k) {
		if packEdge {
			packB(false, b, ldb, 0, full, k, n-full, edge)
		}
		gemmDirectStrips(pa, r0, m, n, b, ldb, c, ldc, ep, edge, columns, prefetch)
		return
	}
	for pc := 0; pc < k; pc += gemmKC {
		kb := min(gemmKC, k-pc)
		add := pc > 0
		if packEdge {
			packB(false, b, ldb, pc, full, kb, n-full, edge)
		}
		for ic := 0; ic < m; ic += gemmMC {
			mb := min(gemmMC, m-ic)
			bufA := pa.blocks[pc/gemmKC][(r0+ic)*kb:]
			for jr := 0; jr < n; jr += gemmNR {
				nr := min(gemmNR, n-jr)
				bp, bld := b[pc*ldb+jr:], ldb
				ir := 0
				if nr < gemmNR {
					bp, bld = edge, gemmNR
					if columns {
						ir = mb / gemmMR * gemmMR
						for j := range nr {
							microColumn(kb, ir/gemmMR, bufA, b[pc*ldb+jr+j:], ldb, c[ic*ldc+jr+j:], ldc, add)
						}
					}
				}
				for ; ir < mb; ir += gemmMR {
					r, mr := ic+ir, min(gemmMR, mb-ir)
					directTile(kb, mr, nr, bufA[ir*kb:(ir+gemmMR)*kb], bp, bld, c[r*ldc+jr:], ldc, add, prefetch, &tmp)
				}
				if ep != nil && pc+kb == k {
					ep.finish(c, ldc, ic, mb, jr, nr)
				}
			}
		}
	}
}

// directTile runs the micro-kernel on one tile of gemmPackedDirect's C
// (mr ≤ gemmMR rows of A's panel ap, nr ≤ gemmNR columns of B at bp).
func directTile(kb, mr, nr int, ap, bp []float32, bld int, c []float32, ldc int, add, prefetch bool, tmp *[gemmMaxMR * gemmNR]float32) {
	// Whole tiles, and tiles of 8 whole rows, go straight into C.
	switch {
	case (mr == gemmMR || mr == 8) && nr == gemmNR:
		microKernelB(mr, kb, ap, bp, bld, c, ldc, add, prefetch)
	case mr < 8:
		// A last panel of a few rows (197 = 12·16 + 5) through the 8-row
		// kernel: each sum is the same.
		microKernelB(8, kb, ap, bp, bld, tmp[:], gemmNR, false, prefetch)
		storeTile(c, ldc, tmp[:], mr, nr, add)
	default:
		microTileAt(kb, ap, bp, bld, c, ldc, mr, nr, add, tmp)
	}
}

// stripsAlongC reports whether gemmPackedDirect should run each strip of
// rows along all of C's columns before the next (k short, one block; B's
// block small enough to stay in L2 between strips; C's rows long): C is
// then written as 16 streams at a time, not one for each row of a block
// (96 for a 16 → 96 1×1 convolution on 112², more than the prefetchers
// follow).
func stripsAlongC(m, n, k int) bool {
	return k <= gemmKC && m > gemmMR && n >= prefetchRowLen && k*n*4 <= 1<<20
}

// gemmDirectStrips is gemmPackedDirect for stripsAlongC: the same tiles,
// kernel calls and epilogue, strip by strip.
func gemmDirectStrips(pa *packedA, r0, m, n int, b []float32, ldb int, c []float32, ldc int, ep *gemmEp, edge []float32, columns, prefetch bool) {
	kb := pa.k
	bufA := pa.blocks[0][r0*kb:]
	var tmp [gemmMaxMR * gemmNR]float32
	for ir := 0; ir < m; ir += gemmMR {
		mr := min(gemmMR, m-ir)
		ap := bufA[ir*kb : (ir+gemmMR)*kb]
		for jr := 0; jr < n; jr += gemmNR {
			nr := min(gemmNR, n-jr)
			switch {
			case nr < gemmNR && columns && mr == gemmMR:
				for j := range nr {
					microColumn(kb, 1, ap, b[jr+j:], ldb, c[ir*ldc+jr+j:], ldc, false)
				}
			case nr < gemmNR:
				directTile(kb, mr, nr, ap, edge, gemmNR, c[ir*ldc+jr:], ldc, false, prefetch, &tmp)
			default:
				directTile(kb, mr, nr, ap, b[jr:], ldb, c[ir*ldc+jr:], ldc, false, prefetch, &tmp)
			}
			if ep != nil {
				ep.finish(c, ldc, ir, mr, jr, nr)
			}
		}
	}
}

// packedBLayout places a k×n matrix in the packed panels gemmCoreP reads,
// all of them at once: for each block of gemmNC columns, each block of
// gemmKC rows, as packB would write it, the last panel zero-padded.
type packedBLayout struct{ k, n int }

// size is the number of floats the packed matrix takes.
func (l packedBLayout) size() int { return l.k * roundUp(l.n, gemmNR) }

// panel returns the packed rows pc..pc+kb, columns jc..jc+gemmNC of p.
func (l packedBLayout) panel(p []float32, pc, jc, kb int) []float32 {
	nbp := roundUp(min(gemmNC, l.n-jc), gemmNR)
	return p[jc*l.k+pc*nbp:][:kb*nbp]
}

// at is the offset in the packed matrix of element (r, c0), for c0 a
// multiple of gemmNR: the start of a run of 16 columns of row r.
func (l packedBLayout) at(r, c0 int) int {
	pc, jc := r/gemmKC*gemmKC, c0/gemmNC*gemmNC
	kb := min(gemmKC, l.k-pc)
	nbp := roundUp(min(gemmNC, l.n-jc), gemmNR)
	return jc*l.k + pc*nbp + (c0-jc)*kb + (r-pc)*gemmNR
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// packB copies op(B)[pc:pc+kb, jc:jc+nb] into panels of 16 columns, each
// stored k-major; the last panel is zero-padded.
func packB(tb bool, b []float32, ldb, pc, jc, kb, nb int, dst []float32) {
	for j0 := 0; j0 < nb; j0 += gemmNR {
		nr := min(gemmNR, nb-j0)
		panel := dst[j0*kb : (j0+gemmNR)*kb]
		if tb && nr == gemmNR && panelTaps(panel, b[(jc+j0)*ldb+pc:], panelSeq[:kb], ldb) {
			continue // sixteen rows of B, one vector gather per k
		}
		for p := 0; p < kb; p++ {
			d := panel[p*gemmNR : (p+1)*gemmNR]
			switch {
			case !tb && nr == gemmNR:
				copyPanelRow(d, b[(pc+p)*ldb+jc+j0:])
			case !tb:
				copy(d[:nr], b[(pc+p)*ldb+jc+j0:][:nr])
			default:
				for j := 0; j < nr; j++ {
					d[j] = b[(jc+j0+j)*ldb+pc+p]
				}
			}
			clear(d[nr:])
		}
	}
}

// copyPanelRow copies 16 floats from src to dst as four 16-byte moves the
// compiler inlines (copy, or a [16]float32 assignment, calls memmove, which
// costs more than the copy at this size).
func copyPanelRow(dst, src []float32) {
	d, s := dst[:gemmNR:gemmNR], src[:gemmNR:gemmNR]
	*(*[4]float32)(d[0:]) = *(*[4]float32)(s[0:])
	*(*[4]float32)(d[4:]) = *(*[4]float32)(s[4:])
	*(*[4]float32)(d[8:]) = *(*[4]float32)(s[8:])
	*(*[4]float32)(d[12:]) = *(*[4]float32)(s[12:])
}

// packA copies alpha·op(A)[ic:ic+mb, pc:pc+kb] into panels of gemmMR rows,
// each stored k-major; the last panel is zero-padded.
func packA(ta bool, a []float32, lda, ic, pc, mb, kb int, alpha float32, dst []float32) {
	for i0 := 0; i0 < mb; i0 += gemmMR {
		mr := min(gemmMR, mb-i0)
		panel := dst[i0*kb : (i0+gemmMR)*kb]
		if mr < gemmMR {
			clear(panel)
		}
		if !ta && alpha == 1 && mr == gemmNR && panelTaps(panel, a[(ic+i0)*lda+pc:], panelSeq[:kb], lda) {
			continue // sixteen rows, one vector gather per column
		}
		for i := 0; i < mr; i++ {
			r := ic + i0 + i
			if !ta {
				src := a[r*lda+pc : r*lda+pc+kb]
				for p, v := range src {
					panel[p*gemmMR+i] = alpha * v
				}
			} else {
				for p := 0; p < kb; p++ {
					panel[p*gemmMR+i] = alpha * a[(pc+p)*lda+r]
				}
			}
		}
	}
}

// panelSeq is 0, 1, ..., gemmKC-1: the taps that pack gemmNR rows of A.
var panelSeq = func() (s [gemmKC]int32) {
	for i := range s {
		s[i] = int32(i)
	}
	return s
}()

// gemmBlas is the portable fallback.
func gemmBlas(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	if k == 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			for j := range row {
				if beta == 0 {
					row[j] = 0 // C may hold recycled garbage, even NaN
				} else {
					row[j] *= beta
				}
			}
		}
		return
	}
	tA, tB := blas.NoTrans, blas.NoTrans
	ar, ac := m, k
	if ta {
		tA, ar, ac = blas.Trans, k, m
	}
	br, bc := k, n
	if tb {
		tB, br, bc = blas.Trans, n, k
	}
	blas32.Gemm(tA, tB, alpha,
		blas32.General{Rows: ar, Cols: ac, Stride: lda, Data: a},
		blas32.General{Rows: br, Cols: bc, Stride: ldb, Data: b},
		beta,
		blas32.General{Rows: m, Cols: n, Stride: ldc, Data: c})
}
