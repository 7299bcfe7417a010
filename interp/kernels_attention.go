package interp

import (
	"fmt"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the attention family. The Attention op runs in float32
// blocks (attention_blocks.go) unless it has a soft cap or its scores are
// an output; then scores and the softmax accumulate in float64.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"Attention":       float32Only(withOp(runAttention)),
		"RotaryEmbedding": float32Only(withOp(runRotary)),
	})
}

// heads4 is a (batch, heads, seq, size) view of a 3-D or 4-D attention
// operand: at(b, h, s) is the offset of element 0 of that head vector.
type heads4 struct {
	t                    *tensor
	batch, heads, seq, d int
	threeD               bool
}

func viewHeads(t *tensor, heads int, what string) (heads4, error) {
	if err := needFloat(t, what); err != nil {
		return heads4{}, err
	}
	switch len(t.shape) {
	case 4:
		return heads4{t: t, batch: t.shape[0], heads: t.shape[1], seq: t.shape[2], d: t.shape[3]}, nil
	case 3:
		if heads <= 0 || t.shape[2]%heads != 0 {
			return heads4{}, fmt.Errorf("%s has shape %v: its hidden size does not divide into %d heads", what, t.shape, heads)
		}
		return heads4{t: t, batch: t.shape[0], heads: heads, seq: t.shape[1], d: t.shape[2] / heads, threeD: true}, nil
	}
	return heads4{}, fmt.Errorf("%s has shape %v; want 3-D or 4-D", what, t.shape)
}

func (v heads4) at(b, h, s int) int {
	if v.threeD {
		return (b*v.seq+s)*v.heads*v.d + h*v.d
	}
	return ((b*v.heads+h)*v.seq + s) * v.d
}

// withPast is present = concat(past, cur) along the sequence, (batch,
// heads, past+seq, d).
func (x *exec) withPast(past *tensor, cur heads4, what string) (*tensor, error) {
	p := 0
	if past != nil {
		if err := needFloat(past, what); err != nil {
			return nil, err
		}
		if len(past.shape) != 4 || past.shape[0] != cur.batch || past.shape[1] != cur.heads || past.shape[3] != cur.d {
			return nil, fmt.Errorf("%s has shape %v; want (%d, %d, past, %d)", what, past.shape, cur.batch, cur.heads, cur.d)
		}
		p = past.shape[2]
	}
	total := p + cur.seq
	out := x.newF([]int{cur.batch, cur.heads, total, cur.d})
	for b := 0; b < cur.batch; b++ {
		for h := 0; h < cur.heads; h++ {
			dst := (b*cur.heads + h) * total * cur.d
			if p > 0 {
				copy(out.f[dst:dst+p*cur.d], past.f[(b*cur.heads+h)*p*cur.d:])
			}
			for s := 0; s < cur.seq; s++ {
				o := cur.at(b, h, s)
				copy(out.f[dst+(p+s)*cur.d:dst+(p+s+1)*cur.d], cur.t.f[o:o+cur.d])
			}
		}
	}
	return out, nil
}

// attnMask reads the mask as an additive bias at (b, h, i, j); keys past
// the mask's last axis are masked out.
type attnMask struct {
	t       *tensor
	strides [4]int
	cols    int
}

func newAttnMask(t *tensor, dims [4]int) (*attnMask, error) {
	if t == nil {
		return nil, nil
	}
	r := len(t.shape)
	if r < 2 || r > 4 {
		return nil, fmt.Errorf("attn_mask has shape %v; want 2 to 4 dimensions", t.shape)
	}
	m := &attnMask{t: t, cols: t.shape[r-1]}
	if m.cols > dims[3] {
		return nil, fmt.Errorf("attn_mask has shape %v: its last axis is longer than the %d keys", t.shape, dims[3])
	}
	stride := 1
	for i := r - 1; i >= 0; i-- {
		k := 4 - r + i
		d := t.shape[i]
		switch {
		case k == 3:
			m.strides[k] = 1
		case d == dims[k]:
			m.strides[k] = stride
		case d != 1:
			return nil, fmt.Errorf("attn_mask has shape %v, which does not broadcast to (%d, %d, %d, %d)", t.shape, dims[0], dims[1], dims[2], dims[3])
		}
		stride *= d
	}
	return m, nil
}

func (m *attnMask) bias(b, h, i, j int) float64 {
	if j >= m.cols {
		return math.Inf(-1)
	}
	o := b*m.strides[0] + h*m.strides[1] + i*m.strides[2] + j
	if m.t.isFloat() {
		return float64(m.t.f[o])
	}
	if m.t.i[o] != 0 {
		return 0
	}
	return math.Inf(-1)
}

func runAttention(x *exec, op *canon.Attention) error {
	q, err := viewHeads(x.in(canon.AttnQ), int(op.QNumHeads), "Q")
	if err != nil {
		return err
	}
	k, err := viewHeads(x.in(canon.AttnK), int(op.KVNumHeads), "K")
	if err != nil {
		return err
	}
	v, err := viewHeads(x.in(canon.AttnV), int(op.KVNumHeads), "V")
	if err != nil {
		return err
	}
	if q.threeD != k.threeD || q.threeD != v.threeD {
		return fmt.Errorf("Q, K and V have shapes %v, %v and %v: all 3-D or all 4-D", q.t.shape, k.t.shape, v.t.shape)
	}
	if k.batch != q.batch || v.batch != q.batch || k.d != q.d || v.heads != k.heads || v.seq != k.seq || k.heads == 0 || q.heads%k.heads != 0 {
		return fmt.Errorf("Q, K and V have shapes %v, %v and %v, which do not fit together", q.t.shape, k.t.shape, v.t.shape)
	}
	pk, pv := x.in(canon.AttnPastKey), x.in(canon.AttnPastValue)
	// Without a cache, 4-D keys and values are the present ones already:
	// when nothing reads the present outputs they are used in place.
	inPlace := pk == nil && pv == nil && !k.threeD && !x.wants(canon.AttnPresentKey) && !x.wants(canon.AttnPresentValue)
	keys, vals := k.t, v.t
	if !inPlace {
		if keys, err = x.withPast(pk, k, "past_key"); err != nil {
			return err
		}
		if vals, err = x.withPast(pv, v, "past_value"); err != nil {
			return err
		}
	}
	past, total := 0, keys.shape[2]
	if pk != nil {
		past = pk.shape[2]
	}
	if vals.shape[2] != total {
		return fmt.Errorf("past_key and past_value have different lengths")
	}
	mask, err := newAttnMask(x.in(canon.AttnMask), [4]int{q.batch, q.heads, q.seq, total})
	if err != nil {
		return err
	}
	scale := float64(op.Scale)
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(q.d))
	}
	group := q.heads / k.heads
	dv := v.d
	var y *tensor
	if q.threeD {
		y = x.newF([]int{q.batch, q.seq, q.heads * dv})
	} else {
		y = x.newF([]int{q.batch, q.heads, q.seq, dv})
	}
	if attnBlocksFit(op, x.wants(canon.AttnQK), q.d, total) {
		blk := attnBlocks{q: q, keys: keys, vals: vals, kvHeads: k.heads, mask: mask, past: past, total: total, scale: float32(scale), causal: op.IsCausal}
		blk.run(y)
		x.set(canon.AttnY, y)
		if !inPlace {
			x.set(canon.AttnPresentKey, keys)
			x.set(canon.AttnPresentValue, vals)
		}
		return nil
	}
	var qk *tensor
	if x.wants(canon.AttnQK) {
		qk = x.newF([]int{q.batch, q.heads, q.seq, total})
	}
	// Every (batch, head) pair is independent: one task each. Its scores
	// Q·Kᵀ and its output P·V are matrix products; the steps between them
	// (soft cap, mask, softmax) go row by row in float64.
	w := workersFor(q.batch*q.heads, q.seq*total*(q.d+dv))
	rows, probs := make([][]float64, w), make([][]float32, w)
	for i := range rows {
		rows[i], probs[i] = make([]float64, total), make([]float32, q.seq*total)
	}
	qld, yld := q.d, dv // row strides of Q and Y: heads interleave in 3-D
	if q.threeD {
		qld, yld = q.heads*q.d, q.heads*dv
	}
	parallelTasks(q.batch*q.heads, w, func(worker, task int) {
		b, h := task/q.heads, task%q.heads
		row, p := rows[worker], probs[worker]
		kvh := h / group
		kbase := (b*k.heads + kvh) * total * q.d
		vbase := (b*k.heads + kvh) * total * dv
		if q.d == 0 {
			clear(p) // empty dot products: gemm has no k to loop over
		} else {
			gemmSerial(false, true, q.seq, total, q.d, 1, q.t.f[q.at(b, h, 0):], qld, keys.f[kbase:], q.d, p, total, 0)
		}
		for i := 0; i < q.seq; i++ {
			var qkRow []float32
			if qk != nil {
				qkRow = qk.f[((b*q.heads+h)*q.seq+i)*total:][:total]
			}
			pi := p[i*total : (i+1)*total]
			for j := 0; j < total; j++ {
				s := float64(pi[j]) * scale
				if qkRow != nil && op.QKOutputMode == 0 {
					qkRow[j] = float32(s)
				}
				if op.Softcap > 0 {
					c := float64(op.Softcap)
					s = c * math.Tanh(s/c)
				}
				if qkRow != nil && op.QKOutputMode == 1 {
					qkRow[j] = float32(s)
				}
				if mask != nil {
					s += mask.bias(b, h, i, j)
				}
				if op.IsCausal && j > i+past {
					s = math.Inf(-1)
				}
				if qkRow != nil && op.QKOutputMode == 2 {
					qkRow[j] = float32(s)
				}
				row[j] = s
			}
			softmaxRow(row)
			for j, v := range row {
				pi[j] = float32(v)
			}
			if qkRow != nil && op.QKOutputMode == 3 {
				copy(qkRow, pi)
			}
		}
		yo := ((b*q.heads + h) * q.seq) * dv
		if q.threeD {
			yo = b*q.seq*q.heads*dv + h*dv
		}
		if total == 0 {
			for i := 0; i < q.seq; i++ {
				clear(y.f[yo+i*yld : yo+i*yld+dv])
			}
			return
		}
		gemmSerial(false, false, q.seq, dv, total, 1, p, total, vals.f[vbase:], dv, y.f[yo:], yld, 0)
	})
	x.set(canon.AttnY, y)
	if !inPlace {
		x.set(canon.AttnPresentKey, keys)
		x.set(canon.AttnPresentValue, vals)
	}
	if qk != nil {
		x.set(canon.AttnQK, qk)
	}
	return nil
}

// softmaxRow replaces row by its softmax; a row masked everywhere becomes
// NaN, as exp(-inf - -inf) is in every framework.
func softmaxRow(row []float64) {
	vec.Softmax64(row)
}

func runRotary(x *exec, op *canon.RotaryEmbedding) error {
	in := x.in(canon.RotX)
	xv, err := viewHeads(in, int(op.NumHeads), "X")
	if err != nil {
		return err
	}
	cosT, sinT, pos := x.in(canon.RotCos), x.in(canon.RotSin), x.in(canon.RotPositionIDs)
	if err := needFloat(cosT, "cos_cache"); err != nil {
		return err
	}
	if err := needFloat(sinT, "sin_cache"); err != nil {
		return err
	}
	rot := int(op.RotaryDim)
	if rot == 0 {
		rot = xv.d
	}
	if rot > xv.d || rot%2 != 0 {
		return fmt.Errorf("rotary_embedding_dim %d must be even and at most the head size %d", rot, xv.d)
	}
	half := rot / 2
	cacheRank := 3
	if pos != nil {
		cacheRank = 2
		if pos.isFloat() || len(pos.shape) != 2 || pos.shape[0] != xv.batch || pos.shape[1] != xv.seq {
			return fmt.Errorf("position_ids has shape %v; want integer (%d, %d)", pos.shape, xv.batch, xv.seq)
		}
	}
	for _, c := range []*tensor{cosT, sinT} {
		if len(c.shape) != cacheRank || c.shape[cacheRank-1] != half {
			return fmt.Errorf("cos_cache and sin_cache have shapes %v and %v; want rank %d ending in rotary_embedding_dim/2 = %d", cosT.shape, sinT.shape, cacheRank, half)
		}
	}
	if cosT.shape[0] != sinT.shape[0] || (cacheRank == 3 && (cosT.shape[0] != xv.batch || cosT.shape[1] != xv.seq || sinT.shape[1] != xv.seq)) {
		return fmt.Errorf("cos_cache and sin_cache have shapes %v and %v; want (%d, %d, %d)", cosT.shape, sinT.shape, xv.batch, xv.seq, half)
	}
	out := x.newF(append([]int{}, in.shape...))
	copy(out.f, in.f)
	for b := 0; b < xv.batch; b++ {
		for s := 0; s < xv.seq; s++ {
			row := b*xv.seq + s
			if pos != nil {
				p := pos.i[row]
				if p < 0 || p >= int64(cosT.shape[0]) {
					return fmt.Errorf("position_ids holds %d, outside the caches' %d positions", p, cosT.shape[0])
				}
				row = int(p)
			}
			cs, sn := cosT.f[row*half:][:half], sinT.f[row*half:][:half]
			for h := 0; h < xv.heads; h++ {
				o := xv.at(b, h, s)
				src, dst := in.f[o:o+rot], out.f[o:o+rot]
				for i := 0; i < half; i++ {
					a, bb := 2*i, 2*i+1
					if !op.Interleaved {
						a, bb = i, i+half
					}
					x1, x2, c, sv := float64(src[a]), float64(src[bb]), float64(cs[i]), float64(sn[i])
					dst[a] = float32(c*x1 - sv*x2)
					dst[bb] = float32(sv*x1 + c*x2)
				}
			}
		}
	}
	x.set(0, out)
	return nil
}
