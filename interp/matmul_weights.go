package interp

import (
	"runtime"

	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// gemmByWeights sets c (m×n) to a·w for a m×k and a constant w k×n, both
// rows packed, then applies ep. With the 16-row micro-kernel the weights
// come packed once per Program (pre, panels of 16 columns: contiguous
// reads, 512 columns a block so that the block's C stays in L2; 124–132
// GFLOP per CPU second on vit_b_16's products against 80–121 read in
// place, BenchmarkGemmWeightsCold), or without pre are read where they
// lie, 16 columns of each row at a time (rows of a multiple of 512 floats
// packed a block at a time), the bias and residual Adds run on each strip
// of c while it is in L1 and a Gelu on each block of rows once its
// columns are done (matMulEp.move and finish). Elsewhere it is gemm, then
// ep over the whole of c. Every way gives every element the same sums in
// the same order.
func gemmByWeights(m, n, k int, a, w []float32, pre *packedB, c []float32, ep *matMulEp) {
	if !hasFMA || gemmMR != 16 {
		gemm(false, false, m, n, k, 1, a, k, w, n, c, n, 0)
		if ep.bias != nil || ep.gelu || ep.res != nil {
			ep.apply(c, n, 0, m, 0, n)
		}
		return
	}
	// A is packed once, in parallel, for all workers (each column slab
	// needs all of it).
	mp := roundUp(m, gemmMR)
	pa := getPack(mp * k)
	defer packPool.Put(pa)
	packed := *pa
	panels := mp / gemmMR
	packAWhole(a, k, m, k, mp, 1, packed)
	// The products are summed in a scratch copy of C whose rows lie
	// cTileGap floats further apart than C's, so that a 16-row tile's rows
	// do not all fall into the same few L1 sets (at n = 3072 they would
	// share one, and the kernel's loads and stores of C would evict each
	// other); the epilogue moves each finished strip into c.
	// Weights packed in blocks (packsWeights) have scratches of their own.
	ldS := roundUp(n, gemmNR) + cTileGap
	var scratch []float32
	packs := pre == nil && packsWeights(n, m)
	if !packs && pre == nil {
		ps := getPack(mp * ldS) // whole panels: a last one of a few rows is stored as 8
		defer packPool.Put(ps)
		scratch = *ps
	}
	// With A packed, a piece of C costs nothing to start: C is cut into
	// about four pieces a worker, taken as workers come free, so that a
	// worker the machine's other load holds up does not hold up the rest.
	workers := runtime.GOMAXPROCS(0)
	if workers <= 1 || m*n*k < 1<<18 {
		gemmByWeightsSerial(0, m, 0, n, k, packed, mp, w, n, scratch, ldS, c, ep, packs, pre)
		return
	}
	if n >= m {
		edges := weightTasks((n+gemmNR-1)/gemmNR, workers)
		parallelTasks(len(edges)-1, workers, func(_, t int) {
			j0, j1 := edges[t]*gemmNR, min(edges[t+1]*gemmNR, n)
			gemmByWeightsSerial(0, m, j0, j1-j0, k, packed, mp, w, n, scratch, ldS, c, ep, packs, pre)
		})
		return
	}
	edges := weightTasks(panels, workers)
	parallelTasks(len(edges)-1, workers, func(_, t int) {
		i0, i1 := edges[t]*gemmMR, min(edges[t+1]*gemmMR, m)
		gemmByWeightsSerial(i0, i1-i0, 0, n, k, packed, mp, w, n, scratch, ldS, c, ep, packs, pre)
	})
}

// packAWhole packs all m rows of a (lda floats apart, times alpha) for
// every block of gemmKC columns pc, the block's mp rows (m rounded up to
// whole panels) at packed[pc·mp:], rows split between cores: A packed once
// for every worker's share of C's columns.
func packAWhole(a []float32, lda, m, k, mp int, alpha float32, packed []float32) {
	parallelFor(mp/gemmMR, gemmMR*k, func(lo, hi int) {
		r0, r1 := lo*gemmMR, min(hi*gemmMR, m)
		for pc := 0; pc < k; pc += gemmKC {
			kb := min(gemmKC, k-pc)
			packA(false, a, lda, r0, pc, r1-r0, kb, alpha, packed[pc*mp+r0*kb:])
		}
	})
}

// weightTasks cuts the product's panels (of rows or columns) into tasks
// for workers, returning their edges in panels: tasks that shrink as the
// work runs out, each a quarter of what is left for two workers (of two
// w-ths for w), at least two panels. Big tasks first, so that few tasks
// read A again (or the weights, for rows), and small ones last, so that
// the worker that finishes first waits for little of the other's work
// (on/off against four even tasks a worker: BERT 0.945, 0.990, 0.938;
// convnext_tiny 0.972, 0.904, 0.968; vit_b_16 0.958, 1.004, 1.013).
func weightTasks(panels, workers int) []int {
	edges := []int{0}
	if !shrinkingTasks {
		tasks := min(4*workers, panels)
		for t := 1; t <= tasks; t++ {
			edges = append(edges, t*panels/tasks)
		}
		return edges
	}
	for at := 0; at < panels; {
		rest := panels - at
		at += min(rest, max(2, (rest+2*workers-1)/(2*workers)))
		edges = append(edges, at)
	}
	return edges
}

// shrinkingTasks lets weightTasks cut shrinking tasks (a switch for
// BenchmarkABBA to compare with four even tasks a worker).
var shrinkingTasks = true

// cTileGap is how many floats more than C's own a row of the scratch C
// of gemmByWeights takes.
const cTileGap = gemmNR

// gemmByWeightsSerial computes rows i..i+m, columns j..j+n of the product
// on the calling goroutine from A packed whole (for each block of gemmKC
// columns pc, its mp rows in gemmMR-row panels at pc·mp, as packA lays
// them out), B (ld columns a row) read in place with the micro-kernel
// gemm uses on packed panels (a last, partial panel of columns is packed,
// zero-padded), summing into s (lds columns a row), then applies ep to
// each finished strip on its way into c (ld columns a row) and finishes
// each block of rows (a Gelu). With packs (packsWeights) the weights are
// packed a block of columns at a time, and with pre they are read from
// their packed copy; both sum in a scratch of the block's own, s unused.
// i is a multiple of gemmMR.
func gemmByWeightsSerial(i, m, j, n, k int, packed []float32, mp int, w []float32, ld int, s []float32, lds int, c []float32, ep *matMulEp, packs bool, pre *packedB) {
	// Rows of w a multiple of 512 floats long put a strip's k rows into
	// one or two L1 sets, so a strip read in place does not stay in L1
	// for the next panel of A: those weights are packed a block of columns
	// at a time (rows read whole, as the prefetchers like), as gemm packs.
	var block []float32
	nc := n
	// The scratch the products are summed in, row r and column q at
	// (r-r0)·sld + q-q0: s itself (r0 = q0 = 0), or for packed blocks one
	// of the block's own width (r0 = i, q0 = the block's first column), so
	// that a tile's rows lie 2 KB apart, not 12 (3–4% on vit_b_16's
	// 768 → 3072 product, paired).
	scr, sld, r0 := s, lds, 0
	var edge []float32 // a last, partial panel of weights read in place
	if packs || pre != nil {
		nc = min(n, weightsBlockCols)
		if packs {
			pb := getPack(gemmKC * roundUp(nc, gemmNR))
			defer packPool.Put(pb)
			block = *pb
		}
		sld, r0 = roundUp(nc, gemmNR)+cTileGap, i
		ps := getPack(roundUp(m, gemmMR) * sld)
		defer packPool.Put(ps)
		scr = *ps
	} else {
		pe := getPack(gemmKC * gemmNR)
		defer packPool.Put(pe)
		edge = *pe
	}
	prefetch := !packs && pre == nil // measured: as fast or faster at every ld of BERT and vit_b_16
	var tmp [gemmMaxMR * gemmNR]float32
	for jc := j; jc < j+n; jc += nc {
		nb := min(nc, j+n-jc)
		full := nb / gemmNR * gemmNR
		q0 := 0
		if packs || pre != nil {
			q0 = jc
		}
		for pc := 0; pc < k; pc += gemmKC {
			kb := min(gemmKC, k-pc)
			add := pc > 0
			switch {
			case packs:
				packB(false, w, ld, pc, jc, kb, nb, block)
			case pre != nil:
			case full < nb:
				packB(false, w, ld, pc, jc+full, kb, nb-full, edge)
			}
			for ic := 0; ic < m; ic += gemmMC {
				mb := min(gemmMC, m-ic)
				bufA := packed[pc*mp+(i+ic)*kb:]
				for jr := 0; jr < nb; jr += gemmNR {
					nr := min(gemmNR, nb-jr)
					bp, bld := w[pc*ld+jc+jr:], ld
					switch {
					case packs:
						bp, bld = block[jr*kb:], gemmNR
					case pre != nil:
						bp, bld = pre.block(pc, jc+jr, kb), gemmNR
					case nr < gemmNR:
						bp, bld = edge, gemmNR
					}
					for ir := 0; ir < mb; ir += gemmMR {
						ap := bufA[ir*kb : (ir+gemmMR)*kb]
						r, mr := i+ic+ir, min(gemmMR, mb-ir)
						cp := scr[(r-r0)*sld+jc+jr-q0:]
						switch {
						case (mr == gemmMR || mr == 8) && nr == gemmNR:
							microKernelB(mr, kb, ap, bp, bld, cp, sld, add, prefetch)
						case mr < 8 && nr == gemmNR:
							// A last panel of a few rows (vit_b_16's 197 = 12·16 + 5):
							// the 8-row kernel wastes 3 rows where the 16-row one
							// wastes 11, stored into the scratch's spare rows; each
							// sum is the same.
							microKernelB(8, kb, ap, bp, bld, cp, sld, add, prefetch)
						default:
							microTileAt(kb, ap, bp, bld, cp, sld, mr, nr, add, &tmp)
						}
					}
					if pc+kb == k {
						ep.move(c, ld, i+ic, mb, jc+jr, nr, scr[(i+ic-r0)*sld+jc+jr-q0:], sld)
					}
				}
				if pc+kb == k {
					ep.finish(c, ld, i+ic, mb, jc, nb)
				}
			}
		}
	}
}

// packAliasedWeights lets gemmByWeightsSerial pack weights whose rows
// are a multiple of 512 floats long (a variable for benchmarks to compare).
var packAliasedWeights = true

// packsWeights reports whether the product of m rows by weights with
// rows of n floats packs them in blocks: n a multiple of 512 and A more
// than one panel (a single panel reads each strip once).
func packsWeights(n, m int) bool { return packAliasedWeights && n%512 == 0 && m > gemmMR }

// weightsBlockCols is how many columns of such weights are packed at a
// time: 256 rows of them (512 KB) stay in L2 beside A's block and C's
// (measured on vit_b_16 at one thread: 256 to 1024 columns alike, the
// whole 3072 10–20% slower).
const weightsBlockCols = 512

// geluRow sets row to its exact Gelu, as the Gelu op computes it.
func geluRow(row []float32) { vec.Gelu32(row, row) }

// storeTile stores (or adds, as microTileAt does) the first rows×cols of
// the 16-column tile t into c.
func storeTile(c []float32, ldc int, t []float32, rows, cols int, add bool) {
	for i := range rows {
		crow, trow := c[i*ldc:i*ldc+cols], t[i*gemmNR:i*gemmNR+cols]
		if add {
			for j := range crow {
				crow[j] += trow[j]
			}
		} else {
			copy(crow, trow)
		}
	}
}
