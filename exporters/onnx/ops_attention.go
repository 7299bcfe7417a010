package onnxexport

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The attention family. Below opset 23 Attention is written as ONNX's own
// function body spells it: heads split by Reshape and Transpose, the key
// and value cache by Concat, grouped heads by Unsqueeze, Expand and
// Reshape, then MatMul, Mul by the scale, Tanh for the soft cap, Where or
// Add for the masks, Softmax and MatMul. RotaryEmbedding is written as
// canon's expansion of it: Gather, Slice, Mul, Sub, Add and Concat.

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"Attention": {onnx: "Attention", native: 23, write: writeAttention,
			below: "Reshape/Transpose (3-D heads), Concat (cache), Unsqueeze/Expand/Reshape (grouped heads), MatMul, Mul, Tanh (soft cap), Where/Add (masks), Softmax, MatMul"},
		"RotaryEmbedding": {onnx: "RotaryEmbedding", native: 23, write: writeRotary,
			below: "Gather (position ids), Unsqueeze, Slice, Mul, Sub, Add, Concat (Reshape for interleaved pairs)"},
	})
}

// unsqueezed emits Unsqueeze of v at axes: an attribute before opset 13,
// an input from 13.
func (b *builder) unsqueezed(n *canon.Node, v, suffix string, axes []int64) string {
	if b.opset >= 13 {
		return b.step(n, "Unsqueeze", suffix, "", []string{v, b.i64Param(n, suffix+"_axes", axes)})
	}
	return b.step(n, "Unsqueeze", suffix, "", []string{v}, attrInts("axes", axes))
}

// sliced emits Slice of v along axis from start to end.
func (b *builder) sliced(n *canon.Node, v, suffix string, axis, start, end int64) string {
	return b.step(n, "Slice", suffix, "", []string{v, b.i64Param(n, suffix+"_starts", []int64{start}),
		b.i64Param(n, suffix+"_ends", []int64{end}), b.i64Param(n, suffix+"_axes", []int64{axis})})
}

// knownSize is dimension i of value v when it is known.
func (b *builder) knownSize(v string, i int) (int64, bool) {
	vi, ok := b.types.Lookup(v)
	if !ok || !vi.RankKnown || i < 0 || i >= len(vi.Shape) || !vi.Shape[i].Known() {
		return 0, false
	}
	return vi.Shape[i].Size, true
}

func writeAttention(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Attention)
	if b.opset >= 23 {
		attrs := []*onnxpb.AttributeProto{}
		if op.QNumHeads > 0 {
			attrs = append(attrs, attrInt("q_num_heads", op.QNumHeads))
		}
		if op.KVNumHeads > 0 {
			attrs = append(attrs, attrInt("kv_num_heads", op.KVNumHeads))
		}
		if op.IsCausal {
			attrs = append(attrs, attrInt("is_causal", 1))
		}
		if op.Scale > 0 {
			attrs = append(attrs, attrFloat("scale", op.Scale))
		}
		if op.Softcap > 0 {
			attrs = append(attrs, attrFloat("softcap", op.Softcap))
		}
		if op.QKOutputMode != 0 {
			attrs = append(attrs, attrInt("qk_matmul_output_mode", op.QKOutputMode))
		}
		b.emit(n.Name, "Attention", n.Inputs, n.Outputs, attrs...)
		return nil
	}
	q, k, v := n.Inputs[canon.AttnQ], n.Inputs[canon.AttnK], n.Inputs[canon.AttnV]
	r := b.rank(q)
	if r != 3 && r != 4 {
		return b.opError(n, "writing Attention below opset 23 needs Q's rank (3 or 4), which is unknown; give the inputs full shapes or choose opset 23")
	}
	dt := b.dtype(q)
	b.expanded = true
	out := func(i int) string {
		if i < len(n.Outputs) {
			return n.Outputs[i]
		}
		return ""
	}
	qHeads, kvHeads := op.QNumHeads, op.KVNumHeads
	// Sequence lengths, from the inputs as given (axis 1 of 3-D, 2 of 4-D).
	seqAxis := r - 2
	qSeq, qSeqKnown := b.knownSize(q, seqAxis)
	total, totalKnown := b.knownSize(k, seqAxis)
	past := int64(0)
	if pk := in(n, canon.AttnPastKey); pk != "" {
		p, ok := b.knownSize(pk, 2)
		past, totalKnown = p, totalKnown && ok
		total += p
	}
	headSize, vHeadSize := int64(0), int64(0)
	if r == 3 {
		// (batch, seq, heads·size) -> (batch, heads, seq, size)
		split := func(x, suffix string, heads int64) string {
			rs := b.step(n, "Reshape", suffix+"_heads", "", []string{x, b.i64Param(n, suffix+"_heads_shape", []int64{0, 0, heads, -1})})
			return b.transposed(n, rs, suffix+"_bhsd", []int64{0, 2, 1, 3})
		}
		if h, ok := b.knownSize(q, 2); ok {
			headSize = h / qHeads
		}
		if h, ok := b.knownSize(v, 2); ok {
			vHeadSize = h / kvHeads
		}
		q, k, v = split(q, "q", qHeads), split(k, "k", kvHeads), split(v, "v", kvHeads)
	} else {
		var ok1, ok2 bool
		qHeads, ok1 = b.knownSize(q, 1)
		kvHeads, ok2 = b.knownSize(k, 1)
		if !ok1 || !ok2 {
			// Head counts known only at run time: the expansion's MatMuls
			// broadcast K and V over Q's heads, which is exact when the
			// counts are equal or K has one head, and fails loudly in the
			// runtime otherwise (grouped heads need known counts).
			qHeads, kvHeads = 0, 0
		}
		headSize, _ = b.knownSize(q, 3)
		vHeadSize, _ = b.knownSize(v, 3)
	}
	if headSize <= 0 && qHeads != kvHeads {
		return b.opError(n, "writing grouped-query Attention below opset 23 needs Q's head size, which is unknown; give the inputs full shapes")
	}
	if pk := in(n, canon.AttnPastKey); pk != "" {
		k = b.step(n, "Concat", "present_key", out(canon.AttnPresentKey), []string{pk, k}, attrInt("axis", 2))
		v = b.step(n, "Concat", "present_value", out(canon.AttnPresentValue), []string{in(n, canon.AttnPastValue), v}, attrInt("axis", 2))
	} else {
		if o := out(canon.AttnPresentKey); o != "" {
			b.emit(b.unique(prefix(n)+"_present_key"), "Identity", []string{k}, []string{o})
		}
		if o := out(canon.AttnPresentValue); o != "" {
			b.emit(b.unique(prefix(n)+"_present_value"), "Identity", []string{v}, []string{o})
		}
	}
	if qHeads != kvHeads {
		// Query head h reads key/value head h/reps: repeat each kv head
		// reps times, adjacent.
		if kvHeads <= 0 || qHeads%kvHeads != 0 {
			return b.opError(n, "Q has %d heads and K %d: not a multiple", qHeads, kvHeads)
		}
		if vHeadSize <= 0 {
			return b.opError(n, "writing grouped-query Attention below opset 23 needs V's head size, which is unknown; give the inputs full shapes")
		}
		reps := qHeads / kvHeads
		repeat := func(x, suffix string, size int64) string {
			u := b.unsqueezed(n, x, suffix+"_group", []int64{2})
			e := b.step(n, "Expand", suffix+"_repeated", "", []string{u, b.i64Param(n, suffix+"_repeats", []int64{1, 1, reps, 1, 1})})
			return b.step(n, "Reshape", suffix+"_qheads", "", []string{e, b.i64Param(n, suffix+"_qheads_shape", []int64{0, qHeads, -1, size})})
		}
		k, v = repeat(k, "k", headSize), repeat(v, "v", vHeadSize)
	}
	scalar := func(suffix string, x float64) (string, error) { return b.activationScalar(n, dt, suffix, float32(x)) }
	var scaleName string
	switch scale := float64(op.Scale); {
	case scale == 0 && headSize <= 0:
		// The head size is known only at run time: 1/sqrt(E) from Q's shape.
		shape := b.step(n, "Shape", "q_shape", "", []string{q})
		e := b.step(n, "Gather", "head_size", "", []string{shape, b.i64Param(n, "head_axis", []int64{3})})
		ef := b.castTo(n, e, dt, "head_size_float")
		root := b.step(n, "Sqrt", "head_size_sqrt", "", []string{ef})
		scaleName = b.step(n, "Reciprocal", "scale", "", []string{root})
	default:
		if scale == 0 {
			scale = 1 / math.Sqrt(float64(headSize))
		}
		var err error
		if scaleName, err = scalar("scale", scale); err != nil {
			return err
		}
	}
	mode := op.QKOutputMode
	qkOut := func(m int64) string {
		if mode == m {
			return out(canon.AttnQK)
		}
		return ""
	}
	kt := b.transposed(n, k, "k_transposed", []int64{0, 1, 3, 2})
	prod := b.step(n, "MatMul", "qk", "", []string{q, kt})
	s := b.step(n, "Mul", "qk_scaled", qkOut(0), []string{prod, scaleName})
	if op.Softcap > 0 {
		capName, err := scalar("softcap", float64(op.Softcap))
		if err != nil {
			return err
		}
		d := b.step(n, "Div", "qk_over_cap", "", []string{s, capName})
		t := b.step(n, "Tanh", "qk_tanh", "", []string{d})
		s = b.step(n, "Mul", "qk_capped", qkOut(1), []string{t, capName})
	} else if o := qkOut(1); o != "" {
		b.emit(b.unique(prefix(n)+"_qk_capped"), "Identity", []string{s}, []string{o})
	}
	negInfName := ""
	negInf := func() (string, error) {
		if negInfName == "" {
			var err error
			negInfName, err = scalar("neg_inf", math.Inf(-1))
			return negInfName, err
		}
		return negInfName, nil
	}
	if m := in(n, canon.AttnMask); m != "" {
		cols, ok := b.knownSize(m, b.rank(m)-1)
		if !ok || !totalKnown {
			return b.opError(n, "writing an Attention mask below opset 23 needs the sequence lengths, which are unknown; give the inputs full shapes")
		}
		if cols != total {
			return b.opError(n, "attn_mask covers %d of %d keys; below opset 23 the mask must cover every key (pad it with -inf or false), or choose opset 23", cols, total)
		}
		if b.dtype(m) == canon.Bool {
			ni, err := negInf()
			if err != nil {
				return err
			}
			s = b.step(n, "Where", "qk_masked", "", []string{m, s, ni})
		} else {
			s = b.step(n, "Add", "qk_masked", "", []string{s, m})
		}
	}
	if op.IsCausal {
		if !qSeqKnown || !totalKnown {
			return b.opError(n, "writing causal Attention below opset 23 needs the query and key sequence lengths, which are unknown; give the inputs full shapes")
		}
		keep := &canon.Tensor{DType: canon.Bool, Shape: []int64{qSeq, total}, Data: make([]byte, qSeq*total)}
		for i := range qSeq {
			for j := range total {
				if j <= i+past {
					keep.Data[i*total+j] = 1
				}
			}
		}
		ni, err := negInf()
		if err != nil {
			return err
		}
		s = b.step(n, "Where", "qk_causal", "", []string{b.param(n, "causal", keep), s, ni})
	}
	if o := qkOut(2); o != "" {
		b.emit(b.unique(prefix(n)+"_qk_with_mask"), "Identity", []string{s}, []string{o})
	}
	p := b.step(n, "Softmax", "probs", qkOut(3), []string{s}, attrInt("axis", 3))
	if r == 4 {
		b.emit(n.Name, "MatMul", []string{p, v}, []string{n.Outputs[0]})
		return nil
	}
	y := b.step(n, "MatMul", "y_heads", "", []string{p, v})
	yt := b.transposed(n, y, "y_bshd", []int64{0, 2, 1, 3})
	b.emit(n.Name, "Reshape", []string{yt, b.i64Param(n, "y_shape", []int64{0, 0, -1})}, []string{n.Outputs[0]})
	return nil
}

func writeRotary(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.RotaryEmbedding)
	if b.opset >= 23 {
		attrs := []*onnxpb.AttributeProto{}
		if op.Interleaved {
			attrs = append(attrs, attrInt("interleaved", 1))
		}
		if op.RotaryDim > 0 {
			attrs = append(attrs, attrInt("rotary_embedding_dim", op.RotaryDim))
		}
		if op.NumHeads > 0 {
			attrs = append(attrs, attrInt("num_heads", op.NumHeads))
		}
		b.emit(n.Name, "RotaryEmbedding", n.Inputs, n.Outputs, attrs...)
		return nil
	}
	// Below 23: canon's expansion (Gather at the position ids, Unsqueeze,
	// Slice, Mul, Sub, Add, Concat, Reshape for 3-D X and interleaved pairs).
	return b.writeExpansion(n)
}
