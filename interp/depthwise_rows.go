package interp

import (
	"math"

	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// Depthwise convolutions with windows other than 3×3 (convnext's 7×7,
// efficientnet's and mobilenet_v3's 5×5, strided or dilated) run on the
// taps kernel (vec.DWTaps), which keeps a whole window's sums in registers:
// each input plane is copied inside a zero border (its pads) and split into
// its stride phases (for stride 2, the even and the odd rows and columns
// apart), so that every tap of every output reads a fixed offset from the
// output's place in one flat run: output (oy, ox) sits at oy·ws + ox, and
// tap (ky, kx) reads the phase of (ky·dy mod sy, kx·dx mod sx) at row
// oy + ky·dy/sy, column ox + kx·dx/sx. The run's columns past OW read on
// into the next row and are dropped. A tap in the pads adds w·0, which
// changes nothing but the sign of a zero sum while w is finite, so each
// kept output is its bias plus its taps inside the plane, in row-major
// order, each by a fused multiply-add, NaNs and infinities included.

// maxRowsWindow is the widest window (each side) the taps path takes.
const maxRowsWindow = 15

// dwRunAlign rounds a run up to whole vectors of the widest kernel.
const dwRunAlign = 16

// dwRowsSlack is the spare input vec.DWTaps's row-run kernels need.
const dwRowsSlack = 16

// depthwiseRowsFits reports a 2-D depthwise window the taps path serves:
// not the 3×3 windows the dedicated kernels take, and finite weights (a
// pad's zero times an infinite weight would be NaN where the definition
// leaves the tap out).
func depthwiseRowsFits(g *geom3, w []float32) bool {
	return depthwiseRowsFitsFinite(g, allFinite(w))
}

// depthwiseRowsFitsFinite is depthwiseRowsFits told whether the weights
// are all finite.
func depthwiseRowsFitsFinite(g *geom3, finite bool) bool {
	return hasFMA && g.in[0] == 1 && g.k[0] == 1 && !g.rows3x3() &&
		g.k[1] <= maxRowsWindow && g.k[2] <= maxRowsWindow && finite
}

// dwLayout is where a plane's values and its taps lie for the taps kernel.
type dwLayout struct {
	hs, ws int     // rows and columns of one stride phase
	offs   []int32 // the window's taps, row-major, as offsets into the phases
	rowLen int     // vec.TapRows(offs): the window's taps in rows of consecutive offsets
	run    int     // outputs the kernel computes: the flat rows, whole vectors
	size   int     // floats the phases and the run's reads take
}

func newDwLayout(g *geom3) dwLayout {
	sy, sx, dy, dx := g.s[1], g.s[2], g.d[1], g.d[2]
	hp, wp := g.in[1]+g.pb[1]+g.pe[1], g.in[2]+g.pb[2]+g.pe[2]
	l := dwLayout{hs: (hp + sy - 1) / sy, ws: (wp + sx - 1) / sx}
	phase := l.hs * l.ws
	maxOff := 0
	for ky := range g.k[1] {
		for kx := range g.k[2] {
			a, b := ky*dy, kx*dx
			o := ((a%sy)*sx+b%sx)*phase + (a/sy)*l.ws + b/sx
			l.offs = append(l.offs, int32(o))
			maxOff = max(maxOff, o)
		}
	}
	l.rowLen = vec.TapRows(l.offs)
	l.run = ((g.out[1]-1)*l.ws + g.out[2] + dwRunAlign - 1) &^ (dwRunAlign - 1)
	l.size = max(sy*sx*phase, maxOff+l.run)
	return l
}

// fill copies the input plane src into its phases in buf, whose other
// values (the pads) stay zero: the input rows of each vertical phase in
// one call, split into their even and odd columns at stride 2.
func (l *dwLayout) fill(g *geom3, src, buf []float32) {
	H, W := g.in[1], g.in[2]
	sy, sx, pt, pl := g.s[1], g.s[2], g.pb[1], g.pb[2]
	phase := l.hs * l.ws
	inf := float32(math.Inf(1))
	for q := range min(sy, H) {
		rows := (H - q + sy - 1) / sy
		yp := q + pt
		base := (yp%sy)*sx*phase + (yp/sy)*l.ws
		rowsSrc := src[q*W:]
		switch sx {
		case 1:
			vec.CopyRowsClamp(buf[base+pl:], l.ws, rowsSrc, sy*W, rows, W, -inf, inf)
		case 2:
			even := buf[base+(pl%2)*phase+pl/2:]
			odd := buf[base+((pl+1)%2)*phase+(pl+1)/2:]
			vec.DeinterleaveRows(even, odd, l.ws, rowsSrc, sy*W, rows, W)
		default:
			for r := range rows {
				row := rowsSrc[r*sy*W : r*sy*W+W]
				for ix, v := range row {
					xp := ix + pl
					buf[base+r*l.ws+(xp%sx)*phase+xp/sx] = v
				}
			}
		}
	}
}

// depthwiseRows computes a depthwise convolution that depthwiseRowsFits
// takes, planes split between cores.
func depthwiseRows(g *geom3, x, w, bias, y []float32, n, c int, ep clampEp) {
	P, inP, K := g.outSize(), g.inSize(), g.kernelSize()
	if P == 0 {
		return
	}
	OH, OW := g.out[1], g.out[2]
	l := newDwLayout(g)
	// The clamp runs as the outputs move out of the run; a residual after.
	lo, hi := ep.bounds()
	if ep.res != nil {
		lo, hi = float32(math.Inf(-1)), float32(math.Inf(1))
	}
	parallelFor(n*c, P*K, func(p0, p1 int) {
		// dwRowsSlack zeros after the phases let vec.DWTaps use its
		// row-run kernels, which read a vector past the run.
		size := l.size + dwRowsSlack
		pb := getPack(size + l.run)
		defer packPool.Put(pb)
		buf := (*pb)[:size+l.run]
		clear(buf[:size])
		plane, tmp := buf[:size], buf[size:]
		for p := p0; p < p1; p++ {
			ch := p % c
			var bv float32
			if bias != nil {
				bv = bias[ch]
			}
			l.fill(g, x[p*inP:(p+1)*inP], plane)
			vec.DWTapsRows(plane, l.offs, l.rowLen, w[ch*K:(ch+1)*K], bv, tmp)
			dst := y[p*P : (p+1)*P]
			vec.CopyRowsClamp(dst, OW, tmp, l.ws, OH, OW, lo, hi)
			if ep.res != nil {
				ep.at(p*P).apply(dst, P, nil, 0, 1, 0, P)
			}
		}
	})
}
