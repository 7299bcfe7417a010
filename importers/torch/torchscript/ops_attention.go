package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// torch.scaled_dot_product_attention (PyTorch 2's nn.MultiheadAttention
// and TransformerEncoderLayer trace to it) is read as what PyTorch
// documents it computes: softmax(q·kᵀ·scale + bias)·v, with scale
// 1/sqrt(E) by default, a bias of -inf above the diagonal when is_causal,
// -inf where a bool mask is false, or a float mask added as is.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.scaled_dot_product_attention": entry(opAttention, "Transpose", "MatMul", "Mul", "Add", "Where", "Softmax", "Cast"),
	})
}

func opAttention(c *opCall) (value, error) {
	q, err := c.bindInput("query", "key", "value", "attn_mask=None", "dropout_p=0", "is_causal=False", "scale=None", "enable_gqa=False")
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
	qs, err := c.shapeOf(q, "the query")
	if err != nil {
		return nil, err
	}
	ks, err := c.shapeOf(k, "the key")
	if err != nil {
		return nil, err
	}
	if len(qs) < 2 || len(ks) != len(qs) {
		return nil, c.errf("query and key must have one rank of at least 2, got %v and %v", qs, ks)
	}
	dt := c.b().info(q).DType
	if !dt.IsFloat() {
		return nil, c.errf("attention on %s tensors is not defined", dt)
	}
	r := len(qs)
	scale := 1 / math.Sqrt(float64(qs[r-1]))
	if !c.isNone(6) {
		if scale, err = c.float(6); err != nil {
			return nil, err
		}
	}
	emit := func(op canon.Op, ins ...*tensorVal) (*tensorVal, error) { return c.b().emit1(c.scope, op, ins...) }
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = int64(i)
	}
	perm[r-2], perm[r-1] = perm[r-1], perm[r-2]
	kt, err := emit(&canon.Transpose{Perm: perm}, k)
	if err != nil {
		return nil, err
	}
	scores, err := emit(&canon.MatMul{}, q, kt)
	if err != nil {
		return nil, err
	}
	sk, err := scalarAs(scale, dt)
	if err != nil {
		return nil, c.errf("%v", err)
	}
	if scores, err = emit(&canon.Binary{Fn: canon.Mul}, scores, &tensorVal{konst: sk}); err != nil {
		return nil, err
	}
	if causal {
		l, s := qs[r-2], ks[r-2]
		if l*s > 1<<24 {
			return nil, c.errf("a causal mask of %d×%d entries is too large to build at import", l, s)
		}
		bias := make([]float32, l*s)
		for i := range l {
			for j := i + 1; j < s; j++ {
				bias[i*s+j] = float32(math.Inf(-1))
			}
		}
		bt := &tensorVal{konst: canon.NewFloat32Tensor("", []int64{l, s}, bias)}
		if bt, err = castTo(c, bt, dt); err != nil {
			return nil, err
		}
		if scores, err = emit(&canon.Binary{Fn: canon.Add}, scores, bt); err != nil {
			return nil, err
		}
	}
	if !c.isNone(3) {
		mask, err := c.tensor(3)
		if err != nil {
			return nil, err
		}
		if c.b().info(mask).DType == canon.Bool {
			zero, _ := scalarAs(0, dt)
			ninf, _ := scalarAs(math.Inf(-1), dt)
			if mask, err = emit(&canon.Where{}, mask, &tensorVal{konst: zero}, &tensorVal{konst: ninf}); err != nil {
				return nil, err
			}
		} else if mask, err = castTo(c, mask, dt); err != nil {
			return nil, err
		}
		if scores, err = emit(&canon.Binary{Fn: canon.Add}, scores, mask); err != nil {
			return nil, err
		}
	}
	weights, err := emit(&canon.Softmax{Axis: int64(r - 1)}, scores)
	if err != nil {
		return nil, err
	}
	return emit(&canon.MatMul{}, weights, v)
}
