package interp

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// The Attention op in float32 blocks: for a block of query rows of one
// head at a time, the scores Q·Kᵀ, their scale, mask and softmax and their
// product with V, while the block's scores are in cache. It runs the same
// GEMMs and score pass as the fused MatMul–Softmax–MatMul pattern
// (attnGemm, ScoreRows) and a softmax in float32 lanes (SoftmaxRows32:
// e^(s - max) within an ulp, summed in float64). Against the float64
// path it rounds each score to float32 after the scale, after the mask
// and after subtracting the row's maximum, and each exponential, so it
// agrees with it within float32 rounding.

// attnBlocksOn lets tests run the float64 path for comparison.
var attnBlocksOn = true

// attnBlocks is one Attention node's operands, shaped and checked by
// runAttention.
type attnBlocks struct {
	q          heads4
	keys, vals *tensor // (batch, kv heads, total, d) and (…, total, dv)
	kvHeads    int
	mask       *attnMask
	past       int
	total      int
	scale      float32
	causal     bool
}

// attnBlocksFit reports whether op's node can take the float32 blocks: no
// soft cap (a tanh between scale and mask) and no scores output, which
// keep the float64 path; empty heads and keys are left to it as well.
func attnBlocksFit(op *canon.Attention, wantQK bool, d, total int) bool {
	return attnBlocksOn && op.Softcap == 0 && !wantQK && d > 0 && total > 0
}

// run sets y (laid out as q is, with dv per head) to the attention.
func (a *attnBlocks) run(y *tensor) {
	q, total := a.q, a.total
	d, dv := q.d, a.vals.shape[3]
	group := q.heads / a.kvHeads
	qld, yld := d, dv // row strides of Q and Y: heads interleave in 3-D
	if q.threeD {
		qld, yld = q.heads*d, q.heads*dv
	}
	rowsPer := min(q.seq, attnRowBlock)
	blocks := (q.seq + rowsPer - 1) / rowsPer
	tasks := q.batch * q.heads * blocks
	workers := workersFor(tasks, 2*rowsPer*total*(d+dv))
	// Each worker keeps its scores and the last key head it transposed
	// (heads of a group and row blocks of a head come in a row).
	scores, keysT := make([]*[]float32, workers), make([]*[]float32, workers)
	lastKV := make([]int, workers)
	packs := make([]attnScratch, workers)
	for i := range scores {
		scores[i], keysT[i], lastKV[i] = getPack(rowsPer*total), getPack(d*total), -1
	}
	parallelTasks(tasks, workers, func(wk, t int) {
		bh, i0 := t/blocks, t%blocks*rowsPer
		b, h := bh/q.heads, bh%q.heads
		rows := min(rowsPer, q.seq-i0)
		kv := b*a.kvHeads + h/group
		kt := *keysT[wk]
		if lastKV[wk] != kv {
			// attnGemm reads B as k×n rows where they lie: Kᵀ, d × total.
			transposeTileF32(kt, total, a.keys.f[kv*total*d:(kv+1)*total*d], d, 0, total, 0, d)
			lastKV[wk] = kv
		}
		sc := (*scores[wk])[:rows*total]
		attnGemm(&packs[wk], rows, total, d, q.t.f[q.at(b, h, i0):], qld, kt, total, sc, total)
		a.scoreRows(sc, b, h, i0)
		vec.SoftmaxRows32(sc, sc, total)
		yo := ((b*q.heads+h)*q.seq + i0) * dv
		if q.threeD {
			yo = (b*q.seq+i0)*q.heads*dv + h*dv
		}
		attnGemm(&packs[wk], rows, dv, total, sc, total, a.vals.f[kv*total*dv:], dv, y.f[yo:], yld)
	})
	for i, s := range scores {
		packPool.Put(s)
		packPool.Put(keysT[i])
		packs[i].release()
	}
}

// scoreRows scales the block of scores of head (b, h) from query i0 on
// and applies the mask and the causal cut, each row as the float64 path
// does: s·scale, then the mask's bias, then -inf past the causal edge.
func (a *attnBlocks) scoreRows(sc []float32, b, h, i0 int) {
	n := a.total
	m := a.mask
	if m == nil || !m.t.isFloat() || m.cols != n {
		vec.ScoreRows(sc, n, a.scale, vec.ScoreMul, nil)
	}
	negInf := float32(math.Inf(-1))
	for r := 0; r*n < len(sc); r++ {
		row, i := sc[r*n:(r+1)*n], i0+r
		if m != nil {
			o := b*m.strides[0] + h*m.strides[1] + i*m.strides[2]
			switch {
			case m.t.isFloat() && m.cols == n:
				vec.ScoreRows(row, n, a.scale, vec.ScoreMul, m.t.f[o:o+n])
			case m.t.isFloat():
				for j, v := range m.t.f[o : o+m.cols] {
					row[j] += v
				}
			default:
				for j, v := range m.t.i[o : o+m.cols] {
					if v == 0 {
						row[j] = negInf
					}
				}
			}
			for j := m.cols; j < n; j++ {
				row[j] = negInf
			}
		}
		if a.causal {
			for j := i + a.past + 1; j < n; j++ {
				row[j] = negInf
			}
		}
	}
}

// wants reports whether the graph reads output k of the node.
func (x *exec) wants(k int) bool { return k < len(x.s.out) && x.s.out[k] >= 0 }
