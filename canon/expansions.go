package canon

import (
	"math"
)

// Decompose of the kinds that have an exact expansion into other
// canonical ops (OpDef slot): what a writer falls back to when its format
// lacks the op. Constants are written in the data's dtype.

// geluExpand writes x·(1 + erf(x/√2))·0.5 or, for the tanh form,
// x·(1 + tanh((x + x³·0.044715)·√(2/π)))·0.5, node for node as torch.onnx
// writes them (so an ONNX importer reads the exact form back as one Gelu).
func geluExpand(e *Expander) error {
	x, dt := e.Input(0), e.DType(0)
	if !dt.IsFloat() {
		return e.Errorf("Gelu's expansion needs floating-point input; %q is %s", x, dt)
	}
	mul := func(a, b string) string { return e.Op(&Binary{Fn: Mul}, a, b) }
	add := func(a, b string) string { return e.Op(&Binary{Fn: Add}, a, b) }
	var inner string
	switch e.Node.Op.(*Gelu).Approximate {
	case GeluExact:
		inner = e.Op(&Math{Fn: MathErf}, e.Op(&Binary{Fn: Div}, x, e.Scalar(dt, math.Sqrt2)))
	case GeluTanh:
		cube := mul(mul(x, x), x)
		arg := add(x, mul(cube, e.Scalar(dt, 0.044715)))
		inner = e.Op(&Unary{Fn: Tanh}, mul(arg, e.Scalar(dt, math.Sqrt(2/math.Pi))))
	default:
		return e.Errorf("unknown approximation %v", e.Node.Op.(*Gelu).Approximate)
	}
	prod := mul(x, add(inner, e.Scalar(dt, 1)))
	e.Add(&Binary{Fn: Mul}, []string{prod, e.Scalar(dt, 0.5)}, e.Output(0))
	return nil
}

// hardSwishExpand writes x·HardSigmoid(x) with alpha 1/6 and beta 1/2.
func hardSwishExpand(e *Expander) error {
	x := e.Input(0)
	gate := e.Op(&HardSigmoid{Alpha: 1.0 / 6, Beta: 0.5}, x)
	e.Add(&Binary{Fn: Mul}, []string{x, gate}, e.Output(0))
	return nil
}

// attentionExpand writes Attention as its computation on (batch, heads,
// seq, size) stacks: heads split from 3-D inputs, the key/value cache
// prepended along the sequence (the present outputs), grouped key/value
// heads repeated in place (query head h reads key head h / (heads / kv
// heads)), Q·Kᵀ·scale, the soft cap, the masks added (a boolean mask as
// 0 / -inf; the causal mask hides key j from query i when j > i + past
// length), softmax over the keys, then ·V.
func attentionExpand(e *Expander) error {
	op := e.Node.Op.(*Attention)
	if e.Output(AttnQK) != "" {
		return e.Errorf("the expansion does not write the scores output (qk_matmul_output)")
	}
	sq, sk, sv := e.Shape(AttnQ), e.Shape(AttnK), e.Shape(AttnV)
	if sq == nil || sk == nil || sv == nil {
		return e.Errorf("Q, K and V need static shapes; give the inputs full shapes")
	}
	past := int64(0)
	if e.Input(AttnPastKey) != "" {
		sp := e.Shape(AttnPastKey)
		if len(sp) != 4 || e.Shape(AttnPastValue) == nil {
			return e.Errorf("past_key and past_value need static 4-D shapes; give the inputs full shapes")
		}
		past = sp[2]
	}
	dt := e.DType(AttnQ)
	threeD := len(sq) == 3
	var b, heads, kvHeads, qs, ks, d, dv int64
	if threeD {
		if op.QNumHeads < 1 || op.KVNumHeads < 1 {
			return e.Errorf("3-D inputs need q_num_heads and kv_num_heads")
		}
		b, heads, kvHeads, qs, ks, d, dv = sq[0], op.QNumHeads, op.KVNumHeads, sq[1], sk[1], sq[2]/op.QNumHeads, sv[2]/op.KVNumHeads
	} else {
		b, heads, kvHeads, qs, ks, d, dv = sq[0], sq[1], sk[1], sq[2], sk[2], sq[3], sv[3]
	}
	if kvHeads < 1 || heads%kvHeads != 0 {
		return e.Errorf("%d query heads are not a multiple of %d key heads", heads, kvHeads)
	}
	// (batch, heads, seq, size) from (batch, seq, heads·size).
	split := func(name string, h, seq, size int64) string {
		if threeD {
			name = e.Op(&Reshape{Shape: []int64{b, seq, h, size}}, name)
			name = e.Op(&Transpose{Perm: []int64{0, 2, 1, 3}}, name)
		}
		return name
	}
	// The cache prepended: the present key or value (written into the
	// node's output when it has one).
	present := func(name string, pastSlot, outSlot int) string {
		out := e.Output(outSlot)
		switch {
		case e.Input(pastSlot) != "":
			return e.Add(&Concat{Axis: 2}, []string{e.Input(pastSlot), name}, out)[0]
		case out != "":
			return e.Add(&Identity{}, []string{name}, out)[0]
		}
		return name
	}
	total := past + ks
	// Grouped heads repeated on an inserted axis.
	repeat := func(name string, size int64) string {
		if reps := heads / kvHeads; reps > 1 {
			name = e.Op(&Reshape{Shape: []int64{b, kvHeads, 1, total, size}}, name)
			name = e.Op(&Tile{Repeats: []int64{1, 1, reps, 1, 1}}, name)
			name = e.Op(&Reshape{Shape: []int64{b, heads, total, size}}, name)
		}
		return name
	}
	q := split(e.Input(AttnQ), heads, qs, d)
	k := repeat(present(split(e.Input(AttnK), kvHeads, ks, d), AttnPastKey, AttnPresentKey), d)
	v := repeat(present(split(e.Input(AttnV), kvHeads, ks, dv), AttnPastValue, AttnPresentValue), dv)
	scale := float64(op.Scale)
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(d))
	}
	s := e.Op(&MatMul{}, q, e.Op(&Transpose{Perm: []int64{0, 1, 3, 2}}, k))
	s = e.Op(&Binary{Fn: Mul}, s, e.Scalar(dt, scale))
	if c := float64(op.Softcap); c > 0 {
		s = e.Op(&Binary{Fn: Div}, s, e.Scalar(dt, c))
		s = e.Op(&Unary{Fn: Tanh}, s)
		s = e.Op(&Binary{Fn: Mul}, s, e.Scalar(dt, c))
	}
	if m := e.Input(AttnMask); m != "" {
		if sm := e.Shape(AttnMask); len(sm) == 0 || sm[len(sm)-1] != total {
			return e.Errorf("attn_mask needs a static shape covering all %d keys (pad it with -inf or false)", total)
		}
		if e.DType(AttnMask) == Bool {
			m = e.Op(&Where{}, m, e.Scalar(dt, 0), e.Scalar(dt, math.Inf(-1)))
		}
		s = e.Op(&Binary{Fn: Add}, s, m)
	}
	if op.IsCausal {
		// Key j is hidden from query i when j > i + past.
		causal := make([]float32, qs*total)
		for i := range qs {
			for j := i + past + 1; j < total; j++ {
				causal[i*total+j] = float32(math.Inf(-1))
			}
		}
		c := NewFloat32Tensor("", []int64{qs, total}, causal)
		name := e.Const(c)
		if dt != Float32 {
			name = e.Op(&Cast{To: dt}, name)
		}
		s = e.Op(&Binary{Fn: Add}, s, name)
	}
	p := e.Op(&Softmax{Axis: -1}, s)
	if !threeD {
		e.Add(&MatMul{}, []string{p, v}, e.Output(0))
		return nil
	}
	y := e.Op(&MatMul{}, p, v)
	y = e.Op(&Transpose{Perm: []int64{0, 2, 1, 3}}, y)
	e.Add(&Reshape{Shape: []int64{b, qs, heads * dv}}, []string{y}, e.Output(0))
	return nil
}

// rotaryExpand writes RotaryEmbedding as its computation: the first
// rotary_dim channels of each head, as pairs (x1, x2) (halves, or
// neighbours when interleaved), become (x1·cos - x2·sin, x1·sin + x2·cos);
// the rest pass through. The angles (gathered at the position ids when
// given) broadcast over the heads axis. It needs X's rank and head size
// only: the batch and sequence lengths are copied by Reshape's 0 codes.
func rotaryExpand(e *Expander) error {
	op := e.Node.Op.(*RotaryEmbedding)
	xi := e.In[RotX]
	r := -1
	if xi.RankKnown {
		r = len(xi.Shape)
	}
	if r != 3 && r != 4 {
		return e.Errorf("X needs a known rank of 3 or 4; give the inputs full shapes")
	}
	last := xi.Shape[r-1]
	x, headsAxis, size := e.Input(RotX), int64(1), int64(0)
	switch {
	case !last.Known():
	case r == 4:
		size = last.Size
	case op.NumHeads > 0 && last.Size%op.NumHeads == 0:
		size = last.Size / op.NumHeads
	}
	if size <= 0 {
		return e.Errorf("X's head size is unknown (last axis %v, num_heads %d); give the inputs full shapes", last, op.NumHeads)
	}
	if r == 3 {
		headsAxis = 2
		x = e.Op(&Reshape{Shape: []int64{0, 0, op.NumHeads, size}}, x)
	}
	rot := op.RotaryDim
	if rot == 0 {
		rot = size
	}
	half := rot / 2
	cos, sin := e.Input(RotCos), e.Input(RotSin)
	if pos := e.Input(RotPositionIDs); pos != "" {
		cos = e.Op(&Gather{Axis: 0}, cos, pos)
		sin = e.Op(&Gather{Axis: 0}, sin, pos)
	}
	broadcast := func(angles string) string {
		angles = e.Op(&Unsqueeze{Axes: []int64{headsAxis}}, angles)
		if op.Interleaved {
			angles = e.Op(&Unsqueeze{Axes: []int64{4}}, angles)
		}
		return angles
	}
	cos, sin = broadcast(cos), broadcast(sin)
	slice := func(v string, axis, begin, end int64) string {
		return e.Op(&Slice{Starts: []int64{begin}, Ends: []int64{end}, Axes: []int64{axis}, Steps: []int64{1}}, v)
	}
	xr := x
	if rot < size {
		xr = slice(x, 3, 0, rot)
	}
	var x1, x2 string
	catAxis := int64(3)
	if op.Interleaved {
		pairs := e.Op(&Reshape{Shape: []int64{0, 0, 0, half, 2}}, xr)
		x1, x2, catAxis = slice(pairs, 4, 0, 1), slice(pairs, 4, 1, 2), 4
	} else {
		x1, x2 = slice(xr, 3, 0, half), slice(xr, 3, half, rot)
	}
	mul := func(a, b string) string { return e.Op(&Binary{Fn: Mul}, a, b) }
	re := e.Op(&Binary{Fn: Sub}, mul(cos, x1), mul(sin, x2))
	im := e.Op(&Binary{Fn: Add}, mul(sin, x1), mul(cos, x2))
	y := e.Op(&Concat{Axis: catAxis}, re, im)
	if op.Interleaved {
		y = e.Op(&Reshape{Shape: []int64{0, 0, 0, rot}}, y)
	}
	if rot < size {
		y = e.Op(&Concat{Axis: 3}, y, slice(x, 3, rot, size))
	}
	if r == 3 {
		e.Add(&Reshape{Shape: []int64{0, 0, -1}}, []string{y}, e.Output(0))
	} else {
		e.Add(&Identity{}, []string{y}, e.Output(0))
	}
	return nil
}

// celuExpand writes alpha·Elu(x/alpha) (Elu with alpha 1), Celu's
// definition, with alpha in the data's dtype.
func celuExpand(e *Expander) error {
	x, dt := e.Input(0), e.DType(0)
	if !dt.IsFloat() {
		return e.Errorf("Celu's expansion needs floating-point input; %q is %s", x, dt)
	}
	alpha := e.Scalar(dt, float64(e.Node.Op.(*Celu).Alpha))
	elu := e.Op(&Elu{Alpha: 1}, e.Op(&Binary{Fn: Div}, x, alpha))
	e.Add(&Binary{Fn: Mul}, []string{elu, alpha}, e.Output(0))
	return nil
}

// mishExpand writes x·Tanh(Softplus(x)), Mish's definition.
func mishExpand(e *Expander) error {
	x := e.Input(0)
	th := e.Op(&Unary{Fn: Tanh}, e.Op(&Unary{Fn: Softplus}, x))
	e.Add(&Binary{Fn: Mul}, []string{x, th}, e.Output(0))
	return nil
}

// sumExpand writes Sum as Adds from the first input to the last (one
// input: Identity), which broadcast as Sum does.
func sumExpand(e *Expander) error {
	ins := e.Node.Inputs
	if len(ins) == 1 {
		e.Add(&Identity{}, []string{ins[0]}, e.Output(0))
		return nil
	}
	acc := ins[0]
	for i, x := range ins[1:] {
		out := ""
		if i == len(ins)-2 {
			out = e.Output(0)
		}
		acc = e.Add(&Binary{Fn: Add}, []string{acc, x}, out)[0]
	}
	return nil
}
