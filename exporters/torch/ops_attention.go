package torchexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// PyTorch 1.13 has no F.scaled_dot_product_attention and no rotary
// embedding, so both are written as the tensor code of their definitions.

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"Attention": {write: writeAttention, floatOnly: "attention",
			detail: "matmul, scale, tanh soft cap, masked_fill / added mask, causal triu, softmax, matmul; repeat_interleave for grouped heads, cat for the cache"},
		"RotaryEmbedding": {write: writeRotary, floatOnly: "rotary embedding",
			detail: "cache lookup by position ids, then the pair rotation with slicing, mul and cat (stack for interleaved pairs)"},
	})
}

func writeAttention(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Attention)
	code := func(format string, args ...any) { gen.forward = append(gen.forward, fmt.Sprintf(format, args...)) }
	ins := map[int]string{}
	for i := range n.Inputs {
		if gen.given(i) {
			e, err := gen.in(i)
			if err != nil {
				return err
			}
			ins[i] = e
		}
	}
	vi := gen.g.Values.Get(n.Inputs[canon.AttnQ])
	threeD := vi.RankKnown && len(vi.Shape) == 3
	if !vi.RankKnown {
		return gen.fail("Q's rank is unknown; give the inputs full shapes")
	}
	// PyTorch 1.13 has no half-precision matmul on the CPU: 16-bit floats
	// are computed in float32 and the outputs rounded back, as ONNX
	// Runtime does.
	up, down := "", ""
	if vi.DType == canon.Float16 || vi.DType == canon.BFloat16 {
		up, down = ".float()", ".to("+ins[canon.AttnQ]+".dtype)"
		for i, e := range ins {
			if i != canon.AttnMask || gen.g.Values.Get(n.Inputs[i]).DType != canon.Bool {
				ins[i] = e + up
			}
		}
	}
	heads := func(x string, h int64) string {
		if !threeD {
			return x
		}
		return fmt.Sprintf("%s.reshape(%s.shape[0], %s.shape[1], %d, -1).transpose(1, 2)", x, x, x, h)
	}
	q := gen.genTemp("q", heads(ins[canon.AttnQ], op.QNumHeads))
	k := gen.genTemp("k", heads(ins[canon.AttnK], op.KVNumHeads))
	v := gen.genTemp("v", heads(ins[canon.AttnV], op.KVNumHeads))
	kNew := k
	if pk, ok := ins[canon.AttnPastKey]; ok {
		k = gen.genTemp("present_k", fmt.Sprintf("torch.cat([%s, %s], 2)", pk, k))
		v = gen.genTemp("present_v", fmt.Sprintf("torch.cat([%s, %s], 2)", ins[canon.AttnPastValue], v))
	}
	outs := n.Outputs
	has := func(i int) bool { return i < len(outs) && outs[i] != "" }
	if has(canon.AttnPresentKey) {
		code("%s = %s%s", gen.out(canon.AttnPresentKey), k, down)
	}
	if has(canon.AttnPresentValue) {
		code("%s = %s%s", gen.out(canon.AttnPresentValue), v, down)
	}
	// Query head h reads key/value head h // (query heads / kv heads).
	kr := gen.genTemp("k_heads", fmt.Sprintf("%s.repeat_interleave(%s.shape[1] // %s.shape[1], dim=1)", k, q, k))
	vr := gen.genTemp("v_heads", fmt.Sprintf("%s.repeat_interleave(%s.shape[1] // %s.shape[1], dim=1)", v, q, v))
	scale := q + ".shape[-1] ** -0.5"
	if op.Scale > 0 {
		scale = pyFloat(op.Scale)
	}
	s := gen.genTemp("scores", fmt.Sprintf("torch.matmul(%s, %s.transpose(-2, -1)) * %s", q, kr, scale))
	qk := func(mode int64) {
		if has(canon.AttnQK) && op.QKOutputMode == mode {
			code("%s = %s%s", gen.out(canon.AttnQK), s, down)
		}
	}
	qk(0)
	if op.Softcap > 0 {
		c := pyFloat(op.Softcap)
		s = gen.genTemp("capped", fmt.Sprintf("%s * torch.tanh(%s / %s)", c, s, c))
	}
	qk(1)
	if m, ok := ins[canon.AttnMask]; ok {
		bias := m
		if gen.g.Values.Get(n.Inputs[canon.AttnMask]).DType == canon.Bool {
			bias = gen.genTemp("mask_bias", fmt.Sprintf("%s.new_zeros(%s.shape).masked_fill(~%s, float(\"-inf\"))", s, m, m))
		}
		// A mask shorter than the keys leaves the rest masked out.
		bias = gen.genTemp("mask_full", fmt.Sprintf("F.pad(%s, (0, %s.shape[-1] - %s.shape[-1]), value=float(\"-inf\"))", bias, s, bias))
		s = gen.genTemp("masked", s+" + "+bias)
	}
	if op.IsCausal {
		past := fmt.Sprintf("%s.shape[2] - %s.shape[2]", k, kNew)
		s = gen.genTemp("causal", fmt.Sprintf("%s.masked_fill(torch.ones(%s.shape[-2], %s.shape[-1], dtype=torch.bool, device=%s.device).triu(1 + %s), float(\"-inf\"))", s, s, s, s, past))
	}
	qk(2)
	s = gen.genTemp("probs", fmt.Sprintf("torch.softmax(%s, -1)", s))
	qk(3)
	y := fmt.Sprintf("torch.matmul(%s, %s)", s, vr)
	if threeD {
		yt := gen.genTemp("y_heads", y)
		y = fmt.Sprintf("%s.transpose(1, 2).reshape(%s.shape[0], %s.shape[2], -1)", yt, yt, yt)
	}
	code("%s = %s%s", gen.out(0), y, down)
	return nil
}

func writeRotary(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.RotaryEmbedding)
	xin, err := gen.in(canon.RotX)
	if err != nil {
		return err
	}
	cos, err := gen.in(canon.RotCos)
	if err != nil {
		return err
	}
	sin, err := gen.in(canon.RotSin)
	if err != nil {
		return err
	}
	vi := gen.g.Values.Get(n.Inputs[canon.RotX])
	if !vi.RankKnown {
		return gen.fail("X's rank is unknown; give the inputs full shapes")
	}
	threeD := len(vi.Shape) == 3
	x, headsAxis := xin, 1
	if threeD {
		x = gen.genTemp("x", fmt.Sprintf("%s.reshape(%s.shape[0], %s.shape[1], %d, -1)", xin, xin, xin, op.NumHeads))
		headsAxis = 2
	}
	if gen.given(canon.RotPositionIDs) {
		pos, err := gen.in(canon.RotPositionIDs)
		if err != nil {
			return err
		}
		cos, sin = fmt.Sprintf("%s[%s.long()]", cos, pos), fmt.Sprintf("%s[%s.long()]", sin, pos)
	}
	ax := strconv.Itoa(headsAxis)
	c := gen.genTemp("cos", cos+".unsqueeze("+ax+")")
	s := gen.genTemp("sin", sin+".unsqueeze("+ax+")")
	rot := x + ".shape[-1]"
	if op.RotaryDim > 0 {
		rot = strconv.FormatInt(op.RotaryDim, 10)
	}
	xr := gen.genTemp("x_rot", fmt.Sprintf("%s[..., :%s]", x, rot))
	var x1, x2 string
	if op.Interleaved {
		x1, x2 = xr+"[..., 0::2]", xr+"[..., 1::2]"
	} else {
		half := gen.genTemp("half", xr+".shape[-1] // 2")
		x1, x2 = fmt.Sprintf("%s[..., :%s]", xr, half), fmt.Sprintf("%s[..., %s:]", xr, half)
	}
	re := gen.genTemp("real", fmt.Sprintf("%s * %s - %s * %s", c, x1, s, x2))
	im := gen.genTemp("imag", fmt.Sprintf("%s * %s + %s * %s", s, x1, c, x2))
	rotated := fmt.Sprintf("torch.cat([%s, %s], -1)", re, im)
	if op.Interleaved {
		rotated = fmt.Sprintf("torch.stack([%s, %s], -1).flatten(-2)", re, im)
	}
	y := fmt.Sprintf("torch.cat([%s, %s[..., %s:]], -1)", rotated, x, rot)
	if threeD {
		y = fmt.Sprintf("%s.reshape(%s.shape)", y, xin)
	}
	gen.assign(y)
	return nil
}
