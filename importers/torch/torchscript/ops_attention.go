package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// aten::scaled_dot_product_attention, written as the computation it
// defines: softmax(Q Kᵀ · scale + mask) V.
func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.scaled_dot_product_attention": entry(opScaledDotProductAttention, "Transpose", "MatMul", "Mul", "Add", "Where", "Softmax"),
	})
}

// opScaledDotProductAttention maps scaled_dot_product_attention(query, key,
// value, attn_mask=None, dropout_p=0, is_causal=False, *, scale=None,
// enable_gqa=False). The scale defaults to 1/sqrt(E), E the size of the
// query's last axis. A boolean mask keeps the scores where it is true; a
// float mask is added to them; is_causal masks the keys after each query.
func opScaledDotProductAttention(c *opCall) (value, error) {
	if err := c.bind("query", "key", "value", "attn_mask=None", "dropout_p=0.0", "is_causal=False", "scale=None", "enable_gqa=False"); err != nil {
		return nil, err
	}
	q, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	k, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	v, err := c.tensor(2)
	if err != nil {
		return nil, err
	}
	if p, err := c.float(4); err != nil || p != 0 {
		return nil, c.errf("dropout_p must be 0 at inference (got %v)", c.bound[4])
	}
	if gqa, err := c.bool(7); err != nil || gqa {
		return nil, c.errf("enable_gqa (grouped-query attention) is not supported")
	}
	causal, err := c.bool(5)
	if err != nil {
		return nil, err
	}
	qi, ki := c.b().info(q), c.b().info(k)
	if !qi.RankKnown || !ki.RankKnown || len(qi.Shape) < 2 || len(ki.Shape) < 2 {
		return nil, c.errf("query and key need known ranks of at least 2")
	}
	scale := 0.0
	if c.isNone(6) {
		e := qi.Shape[len(qi.Shape)-1]
		if !e.Known() {
			return nil, c.errf("the query's last dimension must be known at import to compute the default scale")
		}
		scale = 1 / math.Sqrt(float64(e.Size))
	} else if scale, err = c.float(6); err != nil {
		return nil, err
	}
	b := c.b()
	r := len(ki.Shape)
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = int64(i)
	}
	perm[r-2], perm[r-1] = perm[r-1], perm[r-2]
	kt, err := b.emit1(c.scope, &canon.Transpose{Perm: perm}, k)
	if err != nil {
		return nil, err
	}
	scores, err := b.emit1(c.scope, &canon.MatMul{}, q, kt)
	if err != nil {
		return nil, err
	}
	dt := b.info(scores).DType
	if dt != canon.Float32 {
		return nil, c.errf("attention on %s tensors is not supported (float32 only)", dt)
	}
	if scores, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, scores, &tensorVal{konst: scalarTensor(scale, dt)}); err != nil {
		return nil, err
	}
	if causal {
		if !c.isNone(3) {
			return nil, c.errf("attn_mask and is_causal cannot both be given")
		}
		l, s := qi.Shape[len(qi.Shape)-2], ki.Shape[r-2]
		if !l.Known() || !s.Known() {
			return nil, c.errf("is_causal needs the query and key lengths known at import")
		}
		if err := b.a.charge("a causal mask", l.Size*s.Size*4); err != nil {
			return nil, c.errf("%v", err)
		}
		mask := make([]float32, l.Size*s.Size)
		for i := int64(0); i < l.Size; i++ {
			for j := i + 1; j < s.Size; j++ {
				mask[i*s.Size+j] = float32(math.Inf(-1))
			}
		}
		if scores, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, scores, &tensorVal{konst: canon.NewFloat32Tensor("", []int64{l.Size, s.Size}, mask)}); err != nil {
			return nil, err
		}
	} else if !c.isNone(3) {
		mask, err := c.tensor(3)
		if err != nil {
			return nil, err
		}
		if b.info(mask).DType == canon.Bool {
			scores, err = b.emit1(c.scope, &canon.Where{}, mask, scores, &tensorVal{konst: scalarTensor(math.Inf(-1), dt)})
		} else {
			scores, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, scores, mask)
		}
		if err != nil {
			return nil, err
		}
	}
	probs, err := b.emit1(c.scope, &canon.Softmax{Axis: int64(len(b.info(scores).Shape) - 1)}, scores)
	if err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.MatMul{}, probs, v)
}
