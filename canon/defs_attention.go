package canon

import "math"

// The attention family: scaled dot-product attention with grouped heads,
// masks, a key/value cache and soft-capping (ONNX Attention-23,
// aten::scaled_dot_product_attention), and rotary position embedding
// (ONNX RotaryEmbedding-23).

func init() {
	Register(withReason(&OpDef{
		Kind: "Attention", Summary: "softmax(Q·Kᵀ·scale [softcap] + mask)·V over heads (grouped-query heads, causal or given mask, key/value cache)",
		Decompose:          attentionExpand,
		AccumulationLength: attentionSum,
		HalfUnsafe:         "its softmax's exponentials and sums, and the Q·Kᵀ sums, exceed float16's range and precision",
		New:                func() Op { return &Attention{} },
		Infer:              func(c *InferCtx) ([]ValueInfo, error) { return c.attention(c.n.Op.(*Attention)) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*Attention)
			if op.QNumHeads < 0 || op.KVNumHeads < 0 || op.QNumHeads > 1<<20 || op.KVNumHeads > 1<<20 {
				return c.Errorf("head counts %d and %d must be between 0 and 2^20", op.QNumHeads, op.KVNumHeads)
			}
			if op.QNumHeads > 0 && op.KVNumHeads > 0 && op.QNumHeads%op.KVNumHeads != 0 {
				return c.Errorf("q_num_heads %d is not a multiple of kv_num_heads %d", op.QNumHeads, op.KVNumHeads)
			}
			if op.Scale < 0 || op.Softcap < 0 || math.IsNaN(float64(op.Scale)) || math.IsNaN(float64(op.Softcap)) ||
				math.IsInf(float64(op.Scale), 0) || math.IsInf(float64(op.Softcap), 0) {
				return c.Errorf("scale %g and softcap %g must be finite and >= 0 (0: default / none)", op.Scale, op.Softcap)
			}
			if op.QKOutputMode < 0 || op.QKOutputMode > 3 {
				return c.Errorf("qk_matmul_output_mode %d is not 0 to 3", op.QKOutputMode)
			}
			if (c.HasInput(AttnPastKey) || c.HasInput(AttnPastValue)) && len(c.N.Outputs) < 3 {
				return c.Errorf("a key/value cache needs the present_key and present_value outputs")
			}
			if c.HasInput(AttnPastKey) != c.HasInput(AttnPastValue) {
				return c.Errorf("past_key and past_value come together")
			}
			return nil
		},
		Example: func() Example {
			return Example{Op: &Attention{IsCausal: true}, Inputs: []ExampleInput{
				{DType: Float32, Shape: []int64{1, 4, 3, 2}}, exampleF32(1, 2, 5, 2), exampleF32(1, 2, 5, 3)}}
		},
	}, attentionWithout))
	Register(withReason(&OpDef{
		Kind: "RotaryEmbedding", Summary: "rotary position embedding: rotates pairs of each head's first rotary_dim channels by cached angles",
		Decompose: rotaryExpand,
		New:       func() Op { return &RotaryEmbedding{} },
		Infer:     func(c *InferCtx) ([]ValueInfo, error) { return c.rotary(c.n.Op.(*RotaryEmbedding)) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*RotaryEmbedding)
			if op.NumHeads < 0 || op.NumHeads > 1<<20 || op.RotaryDim < 0 || op.RotaryDim%2 != 0 {
				return c.Errorf("num_heads %d must be >= 0 and rotary_embedding_dim %d even and >= 0", op.NumHeads, op.RotaryDim)
			}
			return nil
		},
		Example: func() Example {
			return Example{Op: &RotaryEmbedding{Interleaved: true}, Inputs: []ExampleInput{
				{DType: Float32, Shape: []int64{1, 2, 3, 4}}, exampleF32(1, 3, 2), exampleF32(1, 3, 2)}}
		},
	}, attentionWithout))
}

// Attention input slots and output slots.
const (
	AttnQ = iota
	AttnK
	AttnV
	AttnMask
	AttnPastKey
	AttnPastValue
)

const (
	AttnY = iota
	AttnPresentKey
	AttnPresentValue
	AttnQK
)

// Attention is ONNX's Attention-23. Q, K and V are either 4-D (batch,
// heads, sequence, head size) or 3-D (batch, sequence, heads·head size),
// the head counts then given by QNumHeads and KVNumHeads. Query head h
// reads key/value head h / (QNumHeads/KVNumHeads). Past keys and values are
// prepended along the sequence (the present outputs). The mask is boolean
// (true: attend) or added to the scores; a mask shorter than the total
// sequence is padded with "do not attend". IsCausal masks key j for query i
// when j > i + past length. Scores are Q·Kᵀ·Scale (0: 1/√head size), then
// Softcap·tanh(s/Softcap) when Softcap > 0, then the mask, then softmax.
// Output 3 holds the scores after step QKOutputMode (0: the product, 1:
// soft-capped, 2: with the mask, 3: the softmax). This order is ONNX
// Runtime 1.30's and the ONNX 1.22 suite's (checked with a softcap and an
// additive mask); newer ONNX reference code adds the mask before the softcap.
type Attention struct {
	QNumHeads, KVNumHeads int64
	IsCausal              bool
	Scale                 float32
	Softcap               float32
	QKOutputMode          int64
}

func (*Attention) Kind() string { return "Attention" }
func (*Attention) Signature() Signature {
	return Signature{Inputs: []InputSpec{{Name: "Q"}, {Name: "K"}, {Name: "V"}, {Name: "attn_mask", Optional: true},
		{Name: "past_key", Optional: true}, {Name: "past_value", Optional: true}}, MinOutputs: 1, MaxOutputs: 4}
}

// AttentionDims are the sizes Attention works with, read from its inputs.
type AttentionDims struct {
	Batch, QHeads, KVHeads, QSeq, KVSeq, PastSeq, HeadSize, VHeadSize Dim
	ThreeD                                                            bool
}

// TotalSeq is the past plus the new key sequence.
func (d AttentionDims) TotalSeq() Dim { return addDims(d.PastSeq, d.KVSeq) }

func addDims(a, b Dim) Dim {
	if a.Known() && b.Known() {
		return knownDim(a.Size + b.Size)
	}
	return unknownDim
}

func mulDims(a, b Dim) Dim {
	if a.Known() && b.Known() {
		return knownDim(a.Size * b.Size)
	}
	return unknownDim
}

// splitHeads divides a 3-D hidden size by a head count.
func splitHeads(hidden Dim, heads int64) (Dim, bool) {
	if !hidden.Known() {
		return unknownDim, true
	}
	if heads <= 0 || hidden.Size%heads != 0 {
		return unknownDim, false
	}
	return knownDim(hidden.Size / heads), true
}

func (c *InferCtx) attention(op *Attention) ([]ValueInfo, error) {
	q, k, v := c.in[AttnQ], c.in[AttnK], c.in[AttnV]
	if dt := q.DType; dt != Undefined && !dt.IsFloat() {
		return nil, c.errf("input Q is %s: Attention takes floating-point tensors", dt)
	}
	for _, i := range []int{AttnK, AttnV, AttnPastKey, AttnPastValue} {
		if c.present(i) {
			if err := c.sameDType(AttnQ, i); err != nil {
				return nil, err
			}
		}
	}
	rank := 0
	for _, vi := range []ValueInfo{q, k, v} {
		if vi.RankKnown {
			if rank != 0 && len(vi.Shape) != rank {
				return nil, c.errf("Q, K and V have ranks %s, %s and %s; they must all be 3-D or all 4-D", fmtShape(q), fmtShape(k), fmtShape(v))
			}
			rank = len(vi.Shape)
		}
	}
	if rank != 0 && rank != 3 && rank != 4 {
		return nil, c.errf("Q has shape %s; Attention takes 3-D (batch, sequence, hidden) or 4-D (batch, heads, sequence, head size) inputs", fmtShape(q))
	}
	d, err := c.attentionDims(op, rank)
	if err != nil {
		return nil, err
	}
	if c.present(AttnMask) {
		m := c.in[AttnMask]
		if m.DType != Undefined && m.DType != Bool && m.DType != q.DType && q.DType != Undefined {
			return nil, c.errf("attn_mask is %s; it must be bool or Q's type %s", m.DType, q.DType)
		}
		if m.RankKnown && (len(m.Shape) < 2 || len(m.Shape) > 4) {
			return nil, c.errf("attn_mask has shape %s; it must have 2 to 4 dimensions ending (q sequence, total sequence)", fmtShape(m))
		}
	}
	_ = k
	_ = v
	dt := q.DType
	y := []Dim{d.Batch, d.QHeads, d.QSeq, d.VHeadSize}
	if rank == 3 {
		y = []Dim{d.Batch, d.QSeq, mulDims(d.QHeads, d.VHeadSize)}
	} else if rank == 0 {
		y = nil
	}
	outs := []ValueInfo{{DType: dt, Shape: y, RankKnown: rank != 0},
		shaped(dt, []Dim{d.Batch, d.KVHeads, d.TotalSeq(), d.HeadSize}),
		shaped(dt, []Dim{d.Batch, d.KVHeads, d.TotalSeq(), d.VHeadSize}),
		shaped(dt, []Dim{d.Batch, d.QHeads, d.QSeq, d.TotalSeq()})}
	return outs[:max(len(c.n.Outputs), 1)], nil
}

// attentionDims reads and checks the sizes of Q, K, V and the cache.
func (c *InferCtx) attentionDims(op *Attention, rank int) (AttentionDims, error) {
	q, k, v := c.in[AttnQ], c.in[AttnK], c.in[AttnV]
	d := AttentionDims{Batch: dimAt(q, 0), PastSeq: knownDim(0), ThreeD: rank == 3}
	if rank == 3 {
		if op.QNumHeads <= 0 || op.KVNumHeads <= 0 {
			return d, c.errf("3-D Q, K and V need q_num_heads and kv_num_heads")
		}
		d.QHeads, d.KVHeads = knownDim(op.QNumHeads), knownDim(op.KVNumHeads)
		d.QSeq, d.KVSeq = dimAt(q, 1), dimAt(k, 1)
		var ok1, ok2, ok3 bool
		d.HeadSize, ok1 = splitHeads(dimAt(q, 2), op.QNumHeads)
		kh, ok2 := splitHeads(dimAt(k, 2), op.KVNumHeads)
		d.VHeadSize, ok3 = splitHeads(dimAt(v, 2), op.KVNumHeads)
		if !ok1 || !ok2 || !ok3 {
			return d, c.errf("Q, K and V have shapes %s, %s and %s: their hidden sizes must divide by %d, %d and %d heads", fmtShape(q), fmtShape(k), fmtShape(v), op.QNumHeads, op.KVNumHeads, op.KVNumHeads)
		}
		if kh.Known() && d.HeadSize.Known() && kh.Size != d.HeadSize.Size {
			return d, c.errf("Q's head size %d differs from K's %d", d.HeadSize.Size, kh.Size)
		}
	} else {
		d.QHeads, d.KVHeads = dimAt(q, 1), dimAt(k, 1)
		d.QSeq, d.KVSeq, d.HeadSize, d.VHeadSize = dimAt(q, 2), dimAt(k, 2), dimAt(q, 3), dimAt(v, 3)
		if kd := dimAt(k, 3); kd.Known() && d.HeadSize.Known() && kd.Size != d.HeadSize.Size {
			return d, c.errf("Q has shape %s and K %s: their head sizes differ", fmtShape(q), fmtShape(k))
		}
		if vh := dimAt(v, 1); vh.Known() && d.KVHeads.Known() && vh.Size != d.KVHeads.Size {
			return d, c.errf("K has shape %s and V %s: their head counts differ", fmtShape(k), fmtShape(v))
		}
	}
	if vs := dimAt(v, map[bool]int{true: 1, false: 2}[rank == 3]); vs.Known() && d.KVSeq.Known() && vs.Size != d.KVSeq.Size {
		return d, c.errf("K has shape %s and V %s: their sequence lengths differ", fmtShape(k), fmtShape(v))
	}
	if d.QHeads.Known() && d.KVHeads.Known() && (d.KVHeads.Size == 0 || d.QHeads.Size%d.KVHeads.Size != 0) {
		return d, c.errf("Q has %d heads and K %d: the query heads must be a multiple of the key/value heads", d.QHeads.Size, d.KVHeads.Size)
	}
	if c.present(AttnPastKey) {
		pk, pv := c.in[AttnPastKey], c.in[AttnPastValue]
		if err := firstErr(c.needRank(AttnPastKey, 4, "Attention"), c.needRank(AttnPastValue, 4, "Attention")); err != nil {
			return d, err
		}
		d.PastSeq = dimAt(pk, 2)
		want := []Dim{d.Batch, d.KVHeads, unknownDim, d.HeadSize}
		for i, w := range want {
			if g := dimAt(pk, i); g.Known() && w.Known() && g.Size != w.Size {
				return d, c.errf("past_key has shape %s; it must be (batch %s, kv heads %s, past, head size %s)", fmtShape(pk), fmtDims(want[:1]), fmtDims(want[1:2]), fmtDims(want[3:]))
			}
		}
		if g := dimAt(pv, 2); g.Known() && d.PastSeq.Known() && g.Size != d.PastSeq.Size {
			return d, c.errf("past_key has shape %s and past_value %s: their past lengths differ", fmtShape(pk), fmtShape(pv))
		}
		if g := dimAt(pv, 3); g.Known() && d.VHeadSize.Known() && g.Size != d.VHeadSize.Size {
			return d, c.errf("past_value has shape %s; its head size must be V's %d", fmtShape(pv), d.VHeadSize.Size)
		}
	}
	return d, nil
}

// RotaryEmbedding is ONNX's RotaryEmbedding-23. X is 4-D (batch, heads,
// sequence, head size) or 3-D (batch, sequence, heads·head size) with
// NumHeads. The first RotaryDim channels of each head (0: all) are rotated
// in pairs — (x[i], x[i+RotaryDim/2]), or adjacent (x[2i], x[2i+1]) when
// Interleaved — by the angle whose cosine and sine the caches hold: indexed
// by position_ids (caches (max position, RotaryDim/2)) or given per batch
// and position (caches (batch, sequence, RotaryDim/2)).
type RotaryEmbedding struct {
	Interleaved bool
	RotaryDim   int64
	NumHeads    int64
}

// RotaryEmbedding input slots.
const (
	RotX = iota
	RotCos
	RotSin
	RotPositionIDs
)

func (*RotaryEmbedding) Kind() string { return "RotaryEmbedding" }
func (*RotaryEmbedding) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "cos_cache"}, InputSpec{Name: "sin_cache"}, InputSpec{Name: "position_ids", Optional: true})
}

func (c *InferCtx) rotary(op *RotaryEmbedding) ([]ValueInfo, error) {
	x := c.in[RotX]
	if dt := x.DType; dt != Undefined && !dt.IsFloat() {
		return nil, c.errf("input X is %s: RotaryEmbedding takes floating-point tensors", dt)
	}
	if err := firstErr(c.sameDType(RotX, RotCos), c.sameDType(RotX, RotSin)); err != nil {
		return nil, err
	}
	if x.RankKnown {
		switch len(x.Shape) {
		case 3:
			if op.NumHeads <= 0 {
				return nil, c.errf("3-D input X %s needs num_heads", fmtShape(x))
			}
			if h := x.Shape[2]; h.Known() && h.Size%op.NumHeads != 0 {
				return nil, c.errf("input X has shape %s: its hidden size does not divide into %d heads", fmtShape(x), op.NumHeads)
			}
		case 4:
		default:
			return nil, c.errf("input X has shape %s; RotaryEmbedding takes 3-D or 4-D input", fmtShape(x))
		}
	}
	want := 3
	if c.present(RotPositionIDs) {
		want = 2
		if err := c.needIndices(RotPositionIDs); err != nil {
			return nil, err
		}
	}
	for _, i := range []int{RotCos, RotSin} {
		if err := c.needRank(i, want, "RotaryEmbedding (2-D with position_ids, else 3-D)"); err != nil {
			return nil, err
		}
		if half := dimAt(c.in[i], want-1); op.RotaryDim > 0 && half.Known() && half.Size*2 != op.RotaryDim {
			return nil, c.errf("%s has shape %s; its last axis must be rotary_embedding_dim/2 = %d", c.slot(i), fmtShape(c.in[i]), op.RotaryDim/2)
		}
	}
	return c.SameAsInput(RotX)
}

// attentionWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var attentionWithout = Without{Accumulation: SumsNothing, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
