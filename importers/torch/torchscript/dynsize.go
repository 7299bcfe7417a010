package torchscript

import (
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
)

// dynInt is an int known only at run time: a tensor size the input shape
// leaves open. t is a 1-D int64 graph value of one element (a Shape slice);
// sym names the dimension it measures, so that a view built from the sizes
// of a tensor can still work out its -1 entry at import.
type dynInt struct {
	t   *tensorVal
	sym string
}

// dimSymbol names axis i of value t when its size is not known: the symbol a
// dynamic view gave it, or the value's own name and axis.
func (b *builder) dimSymbol(t *tensorVal, i int) string {
	if s, ok := b.syms[t.name]; ok && i < len(s) && s[i] != "" {
		return s[i]
	}
	if vi := b.vals[t.name]; vi.RankKnown && i < len(vi.Shape) && vi.Shape[i].Param != "" {
		return vi.Shape[i].Param
	}
	return t.name + "#" + strconv.Itoa(i)
}

// dynamicSize emits Shape(x)[d:d+1] for a dimension unknown at import.
func dynamicSize(c *opCall, x *tensorVal, d int64) (value, error) {
	sym := c.b().dimSymbol(x, int(d))
	t, err := c.b().emit1(c.scope, &canon.ShapeOf{Start: d, End: d + 1}, x)
	if err != nil {
		return nil, err
	}
	return &dynInt{t: t, sym: sym}, nil
}

// dynamicView reshapes x to a target mixing static ints and run-time sizes:
// the target is built by Concat at run time. A -1 entry is worked out at
// import when the unknown sizes of x and of the target are the same
// dimensions (as in shufflenet's channel shuffle), so later ops still see
// the static sizes.
func dynamicView(c *opCall, x *tensorVal, items []value) (value, error) {
	b := c.b()
	pieces := make([]*tensorVal, len(items))
	outSyms := make([]string, len(items))
	dims := make([]canon.Dim, len(items))
	neg := -1
	outStatic := int64(1)
	var outUnknown []string
	for i, it := range items {
		if d, ok := it.(*dynInt); ok {
			pieces[i] = d.t
			outSyms[i] = d.sym
			dims[i] = canon.Dim{Size: -1}
			outUnknown = append(outUnknown, d.sym)
			continue
		}
		n, ok := toInt(it)
		if !ok {
			return nil, c.errf("size element %d is a %s, not an int", i, typeName(it))
		}
		pieces[i] = &tensorVal{konst: canon.NewInt64Tensor("", nil, []int64{n})}
		dims[i] = canon.Dim{Size: n}
		if n == -1 {
			neg = i
			dims[i] = canon.Dim{Size: -1}
		} else {
			outStatic *= n
		}
	}
	shape, err := b.emit1(c.scope, &canon.Concat{Axis: 0}, pieces...)
	if err != nil {
		return nil, err
	}
	out, err := b.emit1(c.scope, &canon.Reshape{}, x, shape)
	if err != nil {
		return nil, err
	}
	vi := b.info(x)
	if neg >= 0 && vi.RankKnown && outStatic > 0 {
		inStatic := int64(1)
		var inUnknown []string
		for i, d := range vi.Shape {
			if d.Known() {
				inStatic *= d.Size
			} else {
				inUnknown = append(inUnknown, b.dimSymbol(x, i))
			}
		}
		if sameMultiset(inUnknown, outUnknown) && inStatic%outStatic == 0 {
			dims[neg] = canon.Dim{Size: inStatic / outStatic}
		}
	}
	info := b.vals[out.name]
	if info.RankKnown && len(info.Shape) == len(dims) {
		for i, d := range dims {
			if d.Known() {
				info.Shape[i] = d
			}
		}
		b.vals[out.name] = info
		out.info = info
	}
	b.syms[out.name] = outSyms
	return out, nil
}

func sameMultiset(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
		if count[s] < 0 {
			return false
		}
	}
	return true
}

// permuteSymbols carries the dimension names of x through a transpose.
func (b *builder) permuteSymbols(x, out *tensorVal, perm []int64) {
	in, ok := b.syms[x.name]
	if !ok {
		return
	}
	s := make([]string, len(perm))
	for i, p := range perm {
		if int(p) < len(in) {
			s[i] = in[p]
		}
	}
	b.syms[out.name] = s
}
