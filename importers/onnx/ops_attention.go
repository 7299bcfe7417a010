package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&ops, map[string]opEntry{
		"Attention":       {convAttention, 23, []string{"Attention"}},
		"RotaryEmbedding": {convRotary, 23, []string{"RotaryEmbedding"}},
	})
}

func convAttention(c *nodeCtx) error {
	op := &canon.Attention{QNumHeads: c.int("q_num_heads", 0), KVNumHeads: c.int("kv_num_heads", 0),
		IsCausal: c.int("is_causal", 0) != 0, Scale: c.float("scale", 0), Softcap: c.float("softcap", 0),
		QKOutputMode: c.int("qk_matmul_output_mode", 0)}
	if c.has("scale") && !(op.Scale > 0) {
		return c.errf("scale %g must be positive", op.Scale)
	}
	if is := c.int("is_causal", 0); is != 0 && is != 1 {
		return c.errf("is_causal %d is not 0 or 1", is)
	}
	// softmax_precision asks for at least that precision in the softmax;
	// the interpreter computes it in float64 and exporters in the input's
	// type or wider, so only a type that is not a float is wrong.
	if p := c.int("softmax_precision", 0); p != 0 && p != 1 && p != 10 && p != 11 && p != 16 {
		return c.errf("softmax_precision %d is not a floating-point type (1, 10, 11 or 16)", p)
	}
	if len(c.n.Input) > 6 && c.n.Input[6] != "" {
		return c.errf("nonpad_kv_seqlen (Attention-24's seventh input) is not read yet; give the padding as attn_mask instead")
	}
	ins := make([]string, 6)
	for i := range ins {
		ins[i] = c.in(i)
	}
	for len(ins) > 3 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	outs := append([]string{}, c.n.Output...)
	for len(outs) > 0 && outs[len(outs)-1] == "" {
		outs = outs[:len(outs)-1]
	}
	if len(outs) == 0 || outs[0] == "" {
		return c.errf("Attention needs its output Y")
	}
	if len(outs) > 4 {
		return c.errf("has %d outputs; Attention has 4", len(outs))
	}
	return c.emit(op, ins, outs)
}

func convRotary(c *nodeCtx) error {
	op := &canon.RotaryEmbedding{Interleaved: c.int("interleaved", 0) != 0, RotaryDim: c.int("rotary_embedding_dim", 0),
		NumHeads: c.int("num_heads", 0)}
	if op.RotaryDim < 0 || op.RotaryDim%2 != 0 {
		return c.errf("rotary_embedding_dim %d must be even and >= 0", op.RotaryDim)
	}
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2), c.in(3)}, c.out1())
}
