package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Attention as TorchScript records it: aten::scaled_dot_product_attention
// (PyTorch 2.x), nn.MultiheadAttention's fused eval-mode kernel
// aten::_native_multi_head_attention (PyTorch 1.13, batch_first), and the
// bmm/baddbmm products of its unfused path. Each maps onto the canonical
// Attention op or MatMul.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.scaled_dot_product_attention": entry(opSDPA, "Attention"),
		"torch._native_multi_head_attention": entry(opNativeMHA, "Attention", "Transpose", "MatMul", "Add", "ReduceMean"),
		"torch._transformer_encoder_layer_fwd": entry(opEncoderLayer, "Attention", "Transpose", "MatMul", "Add",
			"LayerNormalization", "Relu", "Gelu"),
		"torch.bmm":     entry(opBmm, "MatMul"),
		"torch.baddbmm": entry(opBaddbmm, "MatMul", "Mul", "Add"),
	})
	optable.Add(&opLacks, map[string]string{
		"RotaryEmbedding": "PyTorch has no rotary embedding op: models spell it with slicing, mul and cat, read op by op",
	})
}

// opSDPA maps scaled_dot_product_attention(query, key, value,
// attn_mask=None, dropout_p=0, is_causal=False, *, scale=None,
// enable_gqa=False) onto Attention. 4-D inputs are Attention's 4-D form;
// 3-D (batch, seq, size) inputs are its 3-D form with one head, which is
// the same computation. PyTorch's boolean mask keeps what is true and its
// float mask is added, as ONNX's; is_causal keeps key j for query i when
// j <= i, ONNX's causal mask without a cache; grouped heads repeat each key
// head as ONNX's do.
func opSDPA(c *opCall) (value, error) {
	if err := c.bind("query", "key", "value", "attn_mask=None", "dropout_p=0.0", "is_causal=False", "scale=None", "enable_gqa=False"); err != nil {
		return nil, err
	}
	var qkv [3]*tensorVal
	for i := range qkv {
		t, err := c.tensor(i)
		if err != nil {
			return nil, err
		}
		qkv[i] = t
	}
	if p, err := c.float(4); err != nil || p != 0 {
		return nil, c.errf("dropout_p must be 0 at inference (got %v)", c.bound[4])
	}
	causal, err := c.bool(5)
	if err != nil {
		return nil, err
	}
	mask, err := c.optTensor(3)
	if err != nil {
		return nil, err
	}
	if causal && mask != nil {
		return nil, c.errf("attn_mask and is_causal cannot both be given (PyTorch refuses them too)")
	}
	op := &canon.Attention{IsCausal: causal}
	if !c.isNone(6) {
		s, err := c.float(6)
		if err != nil {
			return nil, err
		}
		if !(s > 0) {
			return nil, c.errf("scale %g must be positive", s)
		}
		op.Scale = float32(s)
	}
	r, err := c.rankOf(qkv[0], "query")
	if err != nil {
		return nil, err
	}
	switch r {
	case 4:
	case 3:
		op.QNumHeads, op.KVNumHeads = 1, 1
	default:
		return nil, c.errf("query has rank %d; scaled_dot_product_attention is read for 3-D (batch, seq, size) and 4-D (batch, heads, seq, size) inputs", r)
	}
	return c.b().emit1(c.scope, op, qkv[0], qkv[1], qkv[2], mask)
}

// opNativeMHA maps _native_multi_head_attention(query, key, value,
// embed_dim, num_head, qkv_weight, qkv_bias, proj_weight, proj_bias,
// mask=None, need_weights=True, average_attn_weights=True, mask_type=None):
// batch-first nn.MultiheadAttention in eval mode. The query, key and value
// projections are the three row blocks of qkv_weight; the heads split the
// embedding as the 3-D Attention form does; the weights output is the
// softmax averaged over heads (or per head).
func opNativeMHA(c *opCall) (value, error) {
	if err := c.bind("query", "key", "value", "embed_dim", "num_head", "qkv_weight", "qkv_bias", "proj_weight", "proj_bias",
		"mask=None", "need_weights=True", "average_attn_weights=True", "mask_type=None"); err != nil {
		return nil, err
	}
	ts := make([]*tensorVal, 9)
	for _, i := range []int{0, 1, 2, 5, 6, 7, 8} {
		t, err := c.tensor(i)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	e, err := c.int(3)
	if err != nil {
		return nil, err
	}
	heads, err := c.int(4)
	if err != nil {
		return nil, err
	}
	if heads < 1 || e < 1 || e%heads != 0 {
		return nil, c.errf("embed_dim %d does not split into %d heads", e, heads)
	}
	if !c.isNone(9) {
		return nil, c.errf("a mask (key padding or attention mask, where true masks out) is not read yet; trace the model without one or with batch_first=False")
	}
	needWeights, err := c.bool(10)
	if err != nil {
		return nil, err
	}
	average, err := c.bool(11)
	if err != nil {
		return nil, err
	}
	for i, what := range map[int]string{0: "query", 1: "key", 2: "value"} {
		if r, err := c.rankOf(ts[i], what); err != nil {
			return nil, err
		} else if r != 3 {
			return nil, c.errf("%s has rank %d; the fused kernel takes batch-first (batch, seq, embed) input", what, r)
		}
	}
	y, w, err := selfAttention(c, [3]*tensorVal{ts[0], ts[1], ts[2]}, e, heads, ts[5:9], needWeights)
	if err != nil {
		return nil, err
	}
	if !needWeights {
		return &tupleVal{items: []value{y, noneVal{}}}, nil
	}
	if average {
		if w, err = c.b().emit1(c.scope, &canon.Reduce{Fn: canon.ReduceMean, Axes: []int64{1}}, w); err != nil {
			return nil, err
		}
	}
	return &tupleVal{items: []value{y, w}}, nil
}

// selfAttention is nn.MultiheadAttention's computation on batch-first
// query, key and value: the three projections by the row blocks of the
// packed in-projection (params: in weight, in bias, out weight, out bias),
// 3-D Attention over heads, the out projection; with the per-head softmax
// when weights is set.
func selfAttention(c *opCall, qkv [3]*tensorVal, e, heads int64, params []*tensorVal, weights bool) (y, w *tensorVal, err error) {
	var proj [3]*tensorVal
	for part := range proj {
		if proj[part], err = linearBlock(c, qkv[part], params[0], params[1], int64(part)*e, e); err != nil {
			return nil, nil, err
		}
	}
	nOut := 1
	op := &canon.Attention{QNumHeads: heads, KVNumHeads: heads}
	if weights {
		nOut, op.QKOutputMode = 4, 3
	}
	outs, err := c.b().emit(c.scope, op, []*tensorVal{proj[0], proj[1], proj[2]}, nOut)
	if err != nil {
		return nil, nil, err
	}
	if y, err = linearBlock(c, outs[0], params[2], params[3], 0, e); err != nil {
		return nil, nil, err
	}
	if weights {
		w = outs[canon.AttnQK]
	}
	return y, w, nil
}

// opEncoderLayer maps _transformer_encoder_layer_fwd(src, embed_dim,
// num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias, use_gelu,
// norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2,
// ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None,
// mask_type=None): batch-first nn.TransformerEncoderLayer in eval mode.
// With norm_first: x + attn(norm1(x)), then x + ffn(norm2(x)); otherwise
// norm1(x + attn(x)), then norm2(x + ffn(x)). ffn is linear2(act(linear1)),
// act the exact GELU or ReLU.
func opEncoderLayer(c *opCall) (value, error) {
	if err := c.bind("src", "embed_dim", "num_heads", "qkv_weight", "qkv_bias", "proj_weight", "proj_bias", "use_gelu",
		"norm_first", "eps", "norm_weight_1", "norm_bias_1", "norm_weight_2", "norm_bias_2", "ffn_weight_1", "ffn_bias_1",
		"ffn_weight_2", "ffn_bias_2", "mask=None", "mask_type=None"); err != nil {
		return nil, err
	}
	ts := map[int]*tensorVal{}
	for _, i := range []int{0, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16, 17} {
		t, err := c.tensor(i)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	e, err := c.int(1)
	if err != nil {
		return nil, err
	}
	heads, err := c.int(2)
	if err != nil {
		return nil, err
	}
	if heads < 1 || e < 1 || e%heads != 0 {
		return nil, c.errf("embed_dim %d does not split into %d heads", e, heads)
	}
	gelu, err := c.bool(7)
	if err != nil {
		return nil, err
	}
	normFirst, err := c.bool(8)
	if err != nil {
		return nil, err
	}
	eps, err := c.float(9)
	if err != nil {
		return nil, err
	}
	if !c.isNone(18) {
		return nil, c.errf("a mask (where true masks out) is not read yet; trace the layer without one")
	}
	if r, err := c.rankOf(ts[0], "src"); err != nil {
		return nil, err
	} else if r != 3 {
		return nil, c.errf("src has rank %d; the fused layer takes batch-first (batch, seq, embed) input", r)
	}
	b := c.b()
	norm := func(x *tensorVal, w, bias int) (*tensorVal, error) {
		return b.emit1(c.scope, &canon.LayerNorm{Axis: -1, Epsilon: float32(eps), Stash: canon.Float32}, x, ts[w], ts[bias])
	}
	add := func(x, y *tensorVal) (*tensorVal, error) { return b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, x, y) }
	attn := func(x *tensorVal) (*tensorVal, error) {
		y, _, err := selfAttention(c, [3]*tensorVal{x, x, x}, e, heads, []*tensorVal{ts[3], ts[4], ts[5], ts[6]}, false)
		return y, err
	}
	ffn := func(x *tensorVal) (*tensorVal, error) {
		hidden := int64(-1)
		if info := b.info(ts[14]); info.RankKnown && len(info.Shape) == 2 && info.Shape[0].Known() {
			hidden = info.Shape[0].Size
		} else {
			return nil, c.errf("ffn_weight_1's shape is unknown")
		}
		h, err := linearBlock(c, x, ts[14], ts[15], 0, hidden)
		if err != nil {
			return nil, err
		}
		if gelu {
			h, err = b.emit1(c.scope, &canon.Gelu{Approximate: canon.GeluExact}, h)
		} else {
			h, err = b.emit1(c.scope, &canon.Unary{Fn: canon.Relu}, h)
		}
		if err != nil {
			return nil, err
		}
		return linearBlock(c, h, ts[16], ts[17], 0, e)
	}
	// One residual block: x + f(norm(x)) or norm(x + f(x)).
	block := func(x *tensorVal, f func(*tensorVal) (*tensorVal, error), w, bias int) (*tensorVal, error) {
		if normFirst {
			n, err := norm(x, w, bias)
			if err != nil {
				return nil, err
			}
			y, err := f(n)
			if err != nil {
				return nil, err
			}
			return add(x, y)
		}
		y, err := f(x)
		if err != nil {
			return nil, err
		}
		s, err := add(x, y)
		if err != nil {
			return nil, err
		}
		return norm(s, w, bias)
	}
	x, err := block(ts[0], attn, 10, 11)
	if err != nil {
		return nil, err
	}
	return block(x, ffn, 12, 13)
}

// linearBlock is x·W[from:from+n]ᵀ + bias[from:from+n]: one row block of a
// packed projection, cut from the parameters at import.
func linearBlock(c *opCall, x, w, bias *tensorVal, from, n int64) (*tensorVal, error) {
	b := c.b()
	ws, err := rowBlock(c, w, from, n, "the projection weight")
	if err != nil {
		return nil, err
	}
	wt, err := b.emit1(c.scope, &canon.Transpose{Perm: []int64{1, 0}}, ws)
	if err != nil {
		return nil, err
	}
	y, err := b.emit1(c.scope, &canon.MatMul{}, x, wt)
	if err != nil || bias == nil {
		return y, err
	}
	bs, err := rowBlock(c, bias, from, n, "the projection bias")
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, y, bs)
}

// rowBlock is rows from..from+n of a parameter or constant (all of it when
// that is the whole tensor).
func rowBlock(c *opCall, t *tensorVal, from, n int64, what string) (*tensorVal, error) {
	var full *canon.Tensor
	switch {
	case t.konst != nil:
		full = t.konst
	case t.ref != nil:
		loaded, err := t.ref.load(c.b().a, t.path)
		if err != nil {
			return nil, err
		}
		full = loaded
	default:
		if info := c.b().info(t); from == 0 && info.RankKnown && len(info.Shape) > 0 && info.Shape[0].Known() && info.Shape[0].Size == n {
			return t, nil
		}
		return nil, c.errf("%s is computed at run time; the packed projection is read from parameters only", what)
	}
	if len(full.Shape) == 0 || from < 0 || from+n > full.Shape[0] {
		return nil, c.errf("%s has shape %v; rows %d..%d do not exist", what, full.Shape, from, from+n)
	}
	if from == 0 && n == full.Shape[0] {
		return t, nil
	}
	row := int64(len(full.Data)) / full.Shape[0]
	shape := append([]int64{n}, full.Shape[1:]...)
	return &tensorVal{konst: &canon.Tensor{DType: full.DType, Shape: shape, Data: full.Data[from*row : (from+n)*row]}}, nil
}

// opBmm maps torch.bmm: a product of two 3-D batches of equal size.
func opBmm(c *opCall) (value, error) {
	a, err := c.bindInput("input", "mat2")
	if err != nil {
		return nil, err
	}
	m, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	if err := needRank3(c, a, "input"); err != nil {
		return nil, err
	}
	if err := needRank3(c, m, "mat2"); err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.MatMul{}, a, m)
}

func needRank3(c *opCall, t *tensorVal, what string) error {
	r, err := c.rankOf(t, what)
	if err != nil {
		return err
	}
	if r != 3 {
		return c.errf("%s has rank %d; bmm and baddbmm take 3-D batches", what, r)
	}
	return nil
}

// opBaddbmm maps torch.baddbmm(input, batch1, batch2, beta=1, alpha=1) =
// beta·input + alpha·batch1@batch2 (the masked scores of
// nn.MultiheadAttention's unfused path).
func opBaddbmm(c *opCall) (value, error) {
	if err := c.bind("input", "batch1", "batch2", "beta=1", "alpha=1"); err != nil {
		return nil, err
	}
	var ts [3]*tensorVal
	for i := range ts {
		t, err := c.tensor(i)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	if err := needRank3(c, ts[1], "batch1"); err != nil {
		return nil, err
	}
	if err := needRank3(c, ts[2], "batch2"); err != nil {
		return nil, err
	}
	beta, err := c.float(3)
	if err != nil {
		return nil, err
	}
	alpha, err := c.float(4)
	if err != nil {
		return nil, err
	}
	b := c.b()
	p, err := b.emit1(c.scope, &canon.MatMul{}, ts[1], ts[2])
	if err != nil {
		return nil, err
	}
	dt := b.info(p).DType
	scaled := func(t *tensorVal, k float64) (*tensorVal, error) {
		if k == 1 {
			return t, nil
		}
		return b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, t, &tensorVal{konst: scalarTensor(k, dt)})
	}
	if p, err = scaled(p, alpha); err != nil {
		return nil, err
	}
	if beta == 0 {
		// PyTorch ignores input (even NaN) when beta is 0.
		return p, nil
	}
	in, err := scaled(ts[0], beta)
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, in, p)
}
