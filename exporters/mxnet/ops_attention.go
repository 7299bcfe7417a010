package mxnetexport

import (
	"fmt"
	"math"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"

	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&writers, map[string]opWriter{
		"Attention": {"its expansion: Reshape/transpose to (batch·heads, seq, size), tile for grouped heads, batch_dot, _mul_scalar, tanh soft cap, broadcast_add of the float and causal masks, softmax, batch_dot (no cache, no score output, float masks)",
			(*exporter).attention},
	})
	optable.Add(&writers, map[string]opWriter{
		"RotaryEmbedding": {"its expansion: take (position ids), expand_dims, slice_axis, broadcast_mul/sub/add, Concat (Reshape for interleaved pairs)",
			(*exporter).rotary},
	})
}

// attention writes Attention as its computation in MXNet 1.x ops, the
// heads merged into batch_dot's batch axis.
func (e *exporter) attention(n *canon.Node) error {
	op := n.Op.(*canon.Attention)
	for i := canon.AttnPastKey; i < len(n.Inputs); i++ {
		if n.Inputs[i] != "" {
			return fmt.Errorf("Attention with a key/value cache is not written to MXNet")
		}
	}
	for _, o := range n.Outputs[1:] {
		if o != "" {
			return fmt.Errorf("Attention's present and score outputs are not written to MXNet")
		}
	}
	sq, ok1 := e.shape(n.Inputs[canon.AttnQ])
	sk, ok2 := e.shape(n.Inputs[canon.AttnK])
	sv, ok3 := e.shape(n.Inputs[canon.AttnV])
	if !ok1 || !ok2 || !ok3 {
		return fmt.Errorf("Attention is written to MXNet when Q, K and V have known shapes; give the inputs full shapes")
	}
	threeD := len(sq) == 3
	var b, heads, kvHeads, qs, ks, d, dv int64
	if threeD {
		b, heads, kvHeads, qs, ks, d, dv = sq[0], op.QNumHeads, op.KVNumHeads, sq[1], sk[1], sq[2]/op.QNumHeads, sv[2]/op.KVNumHeads
	} else {
		b, heads, kvHeads, qs, ks, d, dv = sq[0], sq[1], sk[1], sq[2], sk[2], sq[3], sv[3]
	}
	if kvHeads < 1 || heads%kvHeads != 0 {
		return fmt.Errorf("%d query heads are not a multiple of %d key heads", heads, kvHeads)
	}
	refs, err := e.values(n.Inputs[:3]...)
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	step := func(opName, suffix string, attrs map[string]string, in ...ref) ref {
		return ref{e.add(opName, out+suffix, attrs, 1, in...), 0}
	}
	shape := func(v ...int64) map[string]string { return map[string]string{"shape": tuple(v)} }
	// (batch·heads, seq, size) from (batch, seq, heads·size) or (batch,
	// heads, seq, size); grouped key/value heads repeated in place (query
	// head h reads key head h / reps) by tile on an inserted axis.
	merge := func(r ref, suffix string, h, seq, size int64) ref {
		if threeD {
			r = step("Reshape", suffix+"_heads", shape(b, seq, h, size), r)
			r = step("transpose", suffix+"_bhsd", map[string]string{"axes": "(0, 2, 1, 3)"}, r)
		}
		if reps := heads / h; reps > 1 {
			r = step("Reshape", suffix+"_group", shape(b, h, 1, seq, size), r)
			r = step("tile", suffix+"_repeated", map[string]string{"reps": tuple([]int64{1, 1, reps, 1, 1})}, r)
		}
		return step("Reshape", suffix+"_3d", shape(-1, seq, size), r)
	}
	q, k, v := merge(refs[0], "_q", heads, qs, d), merge(refs[1], "_k", kvHeads, ks, d), merge(refs[2], "_v", kvHeads, ks, dv)
	k = step("transpose", "_k_t", map[string]string{"axes": "(0, 2, 1)"}, k)
	scale := float64(op.Scale)
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(d))
	}
	s := step("batch_dot", "_qk", nil, q, k)
	s = step("_mul_scalar", "_scaled", map[string]string{"scalar": strconv.FormatFloat(scale, 'g', -1, 64)}, s)
	if c := op.Softcap; c > 0 {
		s = step("_div_scalar", "_over_cap", map[string]string{"scalar": f32(c)}, s)
		s = step("Activation", "_tanh", map[string]string{"act_type": "tanh"}, s)
		s = step("_mul_scalar", "_capped", map[string]string{"scalar": f32(c)}, s)
	}
	masked := false
	if m := in(n, canon.AttnMask); m != "" {
		if e.g.Values.Get(m).DType == canon.Bool {
			return fmt.Errorf("a boolean attention mask is not written to MXNet; give it as 0 / -inf floats")
		}
		sm, ok := e.shape(m)
		if !ok || sm[len(sm)-1] != ks {
			return fmt.Errorf("the attention mask must have a known shape covering all %d keys", ks)
		}
		mr, err := e.value(m)
		if err != nil {
			return err
		}
		s = step("Reshape", "_scores4", shape(b, heads, qs, ks), s)
		for len(sm) < 4 {
			sm = append([]int64{1}, sm...)
		}
		mr = step("Reshape", "_mask4", shape(sm...), mr)
		s = step("broadcast_add", "_masked", nil, s, mr)
		masked = true
	}
	if op.IsCausal {
		keep := make([]float32, qs*ks)
		for i := int64(0); i < qs; i++ {
			for j := i + 1; j < ks; j++ {
				keep[i*ks+j] = float32(math.Inf(-1))
			}
		}
		c, err := e.param(out+"_causal", canon.NewFloat32Tensor(out+"_causal", []int64{1, qs, ks}, keep))
		if err != nil {
			return err
		}
		if masked {
			s = step("Reshape", "_scores3", shape(-1, qs, ks), s)
		}
		s = step("broadcast_add", "_causal_masked", nil, s, c)
		masked = true
	}
	if masked {
		s = step("Reshape", "_scores3b", shape(-1, qs, ks), s)
	}
	p := step("softmax", "_probs", map[string]string{"axis": "-1"}, s)
	y := step("batch_dot", "_pv", nil, p, v)
	if threeD {
		y = step("Reshape", "_y4", shape(b, heads, qs, dv), y)
		y = step("transpose", "_y_bshd", map[string]string{"axes": "(0, 2, 1, 3)"}, y)
		return e.finish(out, e.add("Reshape", out, shape(b, qs, heads*dv), 1, y))
	}
	return e.finish(out, e.add("Reshape", out, shape(b, heads, qs, dv), 1, y))
}

func in(n *canon.Node, i int) string {
	if i < len(n.Inputs) {
		return n.Inputs[i]
	}
	return ""
}

// rotary writes RotaryEmbedding as its computation: the angles broadcast
// over the heads axis of (batch, heads, seq, size) or, for 3-D input,
// (batch, seq, heads, size).
func (e *exporter) rotary(n *canon.Node) error {
	op := n.Op.(*canon.RotaryEmbedding)
	sx, ok := e.shape(n.Inputs[canon.RotX])
	if !ok || (len(sx) != 3 && len(sx) != 4) {
		return fmt.Errorf("RotaryEmbedding is written to MXNet when X's shape is known (3-D or 4-D); give the inputs full shapes")
	}
	refs, err := e.values(n.Inputs...)
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	step := func(opName, suffix string, attrs map[string]string, in ...ref) ref {
		return ref{e.add(opName, out+suffix, attrs, 1, in...), 0}
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	x, headsAxis, size := refs[canon.RotX], int64(1), int64(0)
	if len(sx) == 3 {
		if op.NumHeads < 1 || sx[2]%op.NumHeads != 0 {
			return fmt.Errorf("X has shape %v and num_heads %d", sx, op.NumHeads)
		}
		size, headsAxis = sx[2]/op.NumHeads, 2
		x = step("Reshape", "_heads", map[string]string{"shape": tuple([]int64{0, 0, op.NumHeads, size})}, x)
	} else {
		size = sx[3]
	}
	rot := op.RotaryDim
	if rot == 0 {
		rot = size
	}
	half := rot / 2
	cos, sin := refs[canon.RotCos], refs[canon.RotSin]
	if len(refs) > canon.RotPositionIDs {
		pos := refs[canon.RotPositionIDs]
		cos = step("take", "_cos", map[string]string{"axis": "0", "mode": "wrap"}, cos, pos)
		sin = step("take", "_sin", map[string]string{"axis": "0", "mode": "wrap"}, sin, pos)
	}
	expand := func(r ref, suffix string) ref {
		r = step("expand_dims", suffix+"_heads", map[string]string{"axis": i64(headsAxis)}, r)
		if op.Interleaved {
			r = step("expand_dims", suffix+"_pair", map[string]string{"axis": "4"}, r)
		}
		return r
	}
	cos, sin = expand(cos, "_cos_b"), expand(sin, "_sin_b")
	slice := func(r ref, suffix string, axis, begin, end int64) ref {
		return step("slice_axis", suffix, map[string]string{"axis": i64(axis), "begin": i64(begin), "end": i64(end)}, r)
	}
	xr := x
	if rot < size {
		xr = slice(x, "_x_rot", 3, 0, rot)
	}
	var x1, x2 ref
	catAxis := "3"
	if op.Interleaved {
		pairs := step("Reshape", "_pairs", map[string]string{"shape": tuple([]int64{0, 0, 0, half, 2})}, xr)
		x1, x2, catAxis = slice(pairs, "_x_even", 4, 0, 1), slice(pairs, "_x_odd", 4, 1, 2), "4"
	} else {
		x1, x2 = slice(xr, "_x_first", 3, 0, half), slice(xr, "_x_second", 3, half, rot)
	}
	re := step("broadcast_sub", "_real", nil, step("broadcast_mul", "_cos_x1", nil, cos, x1), step("broadcast_mul", "_sin_x2", nil, sin, x2))
	im := step("broadcast_add", "_imag", nil, step("broadcast_mul", "_sin_x1", nil, sin, x1), step("broadcast_mul", "_cos_x2", nil, cos, x2))
	y := step("Concat", "_rotated", map[string]string{"dim": catAxis, "num_args": "2"}, re, im)
	if op.Interleaved {
		y = step("Reshape", "_merged", map[string]string{"shape": tuple([]int64{0, 0, 0, rot})}, y)
	}
	if rot < size {
		y = step("Concat", "_with_rest", map[string]string{"dim": "3", "num_args": "2"}, y, slice(x, "_x_rest", 3, rot, size))
	}
	return e.finish(out, e.add("Reshape", out, map[string]string{"shape": tuple(sx)}, 1, y))
}
