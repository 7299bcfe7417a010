package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// gridSampleBelow16 writes GridSample before opset 16 (and 5-D before 20)
// as its definition
// in elementwise ops: denormalize each grid coordinate, round (nearest),
// fold coordinates outside the borders back (border, reflection), then
// for every combination of the axes' taps gather X at the flattened index
// and add it times the product of the taps' weights. It needs static
// shapes and float32 data.
func (b *builder) gridSampleBelow16(n *canon.Node, op *canon.GridSample) error {
	x, g := n.Inputs[0], n.Inputs[1]
	xs, ok1 := b.types.Get(x).StaticShape()
	gs, ok2 := b.types.Get(g).StaticShape()
	if !ok1 || !ok2 || b.dtype(x) != canon.Float32 || b.dtype(g) != canon.Float32 {
		min := 16
		if r, ok := b.types.Get(x).Shape, b.types.Get(x).RankKnown; !ok || len(r) != 4 {
			min = 20
		}
		if b.opset >= min {
			return b.opError(n, "bicubic GridSample with border padding is written as its definition (ONNX Runtime clamps each tap instead of the point), which needs static shapes and float32 inputs")
		}
		return b.needOpset(n, "GridSample on inputs without static shapes or not float32 (the expansion needs both)", min)
	}
	r := len(xs)
	k := r - 2
	dims := xs[2:]
	N, C := xs[0], xs[1]
	P := canon.NumElements(gs[1 : r-1])
	S := canon.NumElements(dims)
	b.expanded = true
	pre := prefix(n)
	node := func(opType string, ins []string, attrs ...*onnxpb.AttributeProto) string {
		out := b.unique(pre + "_" + opType)
		b.emit(out, opType, ins, []string{out}, attrs...)
		return out
	}
	f := func(v float64) string { return b.f32Param(n, "c", []int64{}, []float32{float32(v)}) }
	i64 := func(v ...int64) string { return b.i64Param(n, "shape", v) }
	// reflect folds v into [lo, hi] (ONNX's reference _gs_reflect); v
	// inside stays.
	reflect := func(v string, lo, hi float64) string {
		if hi <= lo {
			return node("Add", []string{node("Mul", []string{v, f(0)}), f(lo)})
		}
		below := node("Less", []string{v, f(lo)})
		dx := node("Where", []string{below, node("Sub", []string{f(lo), v}), node("Sub", []string{v, f(hi)})})
		cnt := node("Floor", []string{node("Div", []string{dx, f(hi - lo)})})
		rem := node("Sub", []string{dx, node("Mul", []string{cnt, f(hi - lo)})})
		odd := node("Equal", []string{node("Mod", []string{cnt, f(2)}, attrInt("fmod", 1)), f(1)})
		folded := node("Where", []string{node("Xor", []string{below, odd}), node("Add", []string{f(lo), rem}), node("Sub", []string{f(hi), rem})})
		outside := node("Or", []string{below, node("Greater", []string{v, f(hi)})})
		return node("Where", []string{outside, folded, v})
	}
	grid := node("Reshape", []string{g, i64(N, P, int64(k))})
	type tap struct{ off, w string } // flattened offset (i64) and weight, (N, 1, P)
	axisTaps := make([][]tap, k)
	stride := int64(1)
	for a := k - 1; a >= 0; a-- {
		d := float64(dims[a])
		comp := int64(k - 1 - a) // grid holds x (last axis) first
		v := node("Reshape", []string{node("Slice", []string{grid, i64(comp), i64(comp + 1), i64(2)}), i64(N, 1, P)})
		lo, hi := -0.5, d-0.5
		if op.AlignCorners {
			v = node("Add", []string{node("Mul", []string{v, f((d - 1) / 2)}), f((d - 1) / 2)})
			lo, hi = 0, d-1
		} else {
			v = node("Add", []string{node("Mul", []string{v, f(d / 2)}), f((d - 1) / 2)})
		}
		if op.Mode == canon.ResizeNearest {
			v = node("Round", []string{v})
		}
		if op.Padding != canon.GridZeros {
			outside := node("Or", []string{node("Less", []string{v, f(lo)}), node("Greater", []string{v, f(hi)})})
			folded := node("Clip", []string{v, f(0), f(d - 1)})
			if op.Padding == canon.GridReflection {
				folded = reflect(v, lo, hi)
			}
			v = node("Where", []string{outside, folded, v})
		}
		// The taps: integer positions (as floats) and weights.
		var pos, wts []string
		switch op.Mode {
		case canon.ResizeNearest:
			pos, wts = []string{v}, []string{""}
		case canon.ResizeLinear:
			fl := node("Floor", []string{v})
			t := node("Sub", []string{v, fl})
			pos = []string{fl, node("Add", []string{fl, f(1)})}
			wts = []string{node("Sub", []string{f(1), t}), t}
		default:
			fl := node("Floor", []string{v})
			t := node("Sub", []string{v, fl})
			const A = -0.75
			horner := func(u string, c ...float64) string { // c[0]·u³ + c[1]·u² + c[2]·u + c[3]
				acc := node("Add", []string{node("Mul", []string{u, f(c[0])}), f(c[1])})
				acc = node("Add", []string{node("Mul", []string{acc, u}), f(c[2])})
				return node("Add", []string{node("Mul", []string{acc, u}), f(c[3])})
			}
			outer := []float64{A, -5 * A, 8 * A, -4 * A}
			inner := []float64{A + 2, -(A + 3), 0, 1}
			wts = []string{
				horner(node("Add", []string{t, f(1)}), outer...),
				horner(t, inner...),
				horner(node("Sub", []string{f(1), t}), inner...),
				horner(node("Sub", []string{f(2), t}), outer...),
			}
			for j := -1; j <= 2; j++ {
				pos = append(pos, node("Add", []string{fl, f(float64(j))}))
			}
		}
		for j, p := range pos {
			w := wts[j]
			switch op.Padding {
			case canon.GridZeros:
				valid := node("And", []string{node("Not", []string{node("Less", []string{p, f(0)})}), node("Less", []string{p, f(d)})})
				mask := node("Cast", []string{valid}, attrInt("to", int64(onnxpb.TensorProto_FLOAT)))
				if w == "" {
					w = mask
				} else {
					w = node("Mul", []string{w, mask})
				}
				p = node("Clip", []string{p, f(0), f(d - 1)})
			case canon.GridBorder:
				p = node("Clip", []string{p, f(0), f(d - 1)})
			case canon.GridReflection:
				// int() of the reflected point truncates toward zero.
				p = node("Clip", []string{node("Floor", []string{node("Max", []string{reflect(p, lo, hi), f(0)})}), f(0), f(d - 1)})
			}
			idx := node("Cast", []string{p}, attrInt("to", int64(onnxpb.TensorProto_INT64)))
			off := node("Mul", []string{idx, b.param(n, "stride", canon.NewInt64Tensor("", []int64{}, []int64{stride}))})
			axisTaps[a] = append(axisTaps[a], tap{off, w})
		}
		stride *= dims[a]
	}
	flat := node("Reshape", []string{x, i64(N, C, S)})
	full := i64(N, C, P)
	var terms []string
	var walk func(a int, off, w string)
	walk = func(a int, off, w string) {
		if a == k {
			vals := node("GatherElements", []string{flat, node("Expand", []string{off, full})}, attrInt("axis", 2))
			if w != "" {
				vals = node("Mul", []string{vals, w})
			}
			terms = append(terms, vals)
			return
		}
		for _, t := range axisTaps[a] {
			o, ww := t.off, t.w
			if off != "" {
				o = node("Add", []string{off, o})
			}
			if w != "" && ww != "" {
				ww = node("Mul", []string{w, ww})
			} else if ww == "" {
				ww = w
			}
			walk(a+1, o, ww)
		}
	}
	walk(0, "", "")
	sum := terms[0]
	if len(terms) > 1 {
		sum = node("Sum", terms)
	}
	b.emit(n.Name, "Reshape", []string{sum, i64(append([]int64{N, C}, gs[1:r-1]...)...)}, n.Outputs)
	return nil
}
