package interp

import "github.com/modelbridge/modelbridge/canon"

// A convolution whose dilation reaches past the input (deeplabv3's ASPP:
// 3×3 windows dilated 24 and 36 over 16×16 maps, padded as much) has taps
// that read padding for every output. They add exact zeros: the window is
// cropped to the taps that reach the input (the pads shrink by as much),
// so ASPP's dilated branches become 1×1 convolutions. Only windows of
// finite weights are cropped (an infinite weight times a pad's zero would
// be NaN in the plain products).

// liveTaps returns the first and last tap along axis a that read inside
// the input for some output.
func (g *geom3) liveTaps(a int) (first, last int) {
	first, last = -1, -1
	for kk := 0; kk < g.k[a]; kk++ {
		for o := 0; o < g.out[a]; o++ {
			if p := o*g.s[a] - g.pb[a] + kk*g.d[a]; p >= 0 && p < g.in[a] {
				if first < 0 {
					first = kk
				}
				last = kk
				break
			}
		}
	}
	return first, last
}

// cropped returns g's window cut to its live taps, and whether that is
// smaller; the outputs keep their size and their input positions.
func (g *geom3) cropped() (geom3, [3]int, bool) {
	c, first := *g, [3]int{}
	smaller := false
	for a := range 3 {
		f, l := g.liveTaps(a)
		if f < 0 || (f == 0 && l == g.k[a]-1) {
			continue
		}
		pb, pe := g.pb[a]-f*g.d[a], g.pe[a]-(g.k[a]-1-l)*g.d[a]
		if pb < 0 || pe < 0 {
			continue
		}
		c.k[a], c.pb[a], c.pe[a], first[a] = l-f+1, pb, pe, f
		smaller = true
	}
	return c, first, smaller
}

// convCrop is a step's cropped window and weights, kept while its weights
// are the constant they were cut from.
type convCrop struct {
	key  geom3     // the geometry it was made for
	from []float32 // the weights it was cut from
	g    geom3
	w    *tensor
}

// cropTaps turns cropConv on (tests compare both ways).
var cropTaps = true

// cropConv returns the geometry and weights to run instead of g and w:
// the window cut to its live taps, or g and w themselves.
func (x *exec) cropConv(g *geom3, w *tensor) (*geom3, *tensor) {
	if !cropTaps || len(w.f) == 0 {
		return g, w
	}
	if c := x.s.crop; c != nil && c.key == *g && len(c.from) == len(w.f) && &c.from[0] == &w.f[0] {
		return &c.g, c.w
	}
	cg, first, ok := g.cropped()
	if !ok || !allFinite(w.f) {
		return g, w
	}
	K, Kc := g.kernelSize(), cg.kernelSize()
	cw := make([]float32, len(w.f)/K*Kc)
	for r := range len(w.f) / K {
		src, dst := w.f[r*K:(r+1)*K], cw[r*Kc:(r+1)*Kc]
		for a0 := range cg.k[0] {
			for a1 := range cg.k[1] {
				o := ((a0+first[0])*g.k[1]+a1+first[1])*g.k[2] + first[2]
				copy(dst[(a0*cg.k[1]+a1)*cg.k[2]:][:cg.k[2]], src[o:o+cg.k[2]])
			}
		}
	}
	shape := append([]int(nil), w.shape...)
	sp := len(shape) - 2
	for i := range sp {
		shape[2+i] = cg.k[3-sp+i]
	}
	ct := &tensor{dt: canon.Float32, shape: shape, f: cw}
	if x.s.in[1] >= 0 && x.p.consts[x.s.in[1]] != nil {
		x.s.crop = &convCrop{key: *g, from: w.f, g: cg, w: ct}
	}
	return &cg, ct
}
