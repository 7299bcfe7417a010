package interp

import (
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// gridSampleByPoints is GridSample point by point through gridSum, the
// nested definition of the taps' sum.
func gridSampleByPoints(op *canon.GridSample, in, grid []float32, n, ch, h, w, oh, ow int) []float32 {
	out := make([]float32, n*ch*oh*ow)
	dims := []int{h, w}
	taps := make([][]gridTap, 2)
	for b := range n {
		for p := range oh * ow {
			g := grid[(b*oh*ow+p)*2:]
			for a, d := range dims {
				lo, hi := -0.5, float64(d)-0.5
				if op.AlignCorners {
					lo, hi = 0, float64(d-1)
				}
				v := float64(g[1-a])
				if op.AlignCorners {
					v = (v + 1) / 2 * float64(d-1)
				} else {
					v = ((v+1)*float64(d) - 1) / 2
				}
				if op.Mode == canon.ResizeNearest {
					v = math.RoundToEven(v)
				}
				if v < lo || v > hi {
					switch op.Padding {
					case canon.GridBorder:
						v = min(max(v, 0), float64(d-1))
					case canon.GridReflection:
						v = gridReflect(v, lo, hi)
					}
				}
				taps[a] = gridAxisTaps(taps[a][:0], op, v, d, lo, hi)
			}
			for c := range ch {
				out[(b*ch+c)*oh*ow+p] = float32(gridSum(in[(b*ch+c)*h*w:(b*ch+c+1)*h*w], taps, []int{w, 1}, 0, 0, 1))
			}
		}
	}
	return out
}

// GridSample in blocks of points gives the point-by-point sums bit for bit
// in every mode and padding, on one core and two (NaN for NaN: which NaN's
// payload a sum of two keeps is not part of the result).
func TestGridSampleBlocksMatchPoints(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	modes := []canon.ResizeMode{canon.ResizeLinear, canon.ResizeNearest, canon.ResizeCubic}
	pads := []canon.GridPadding{canon.GridZeros, canon.GridBorder, canon.GridReflection}
	for trial := range 72 {
		op := &canon.GridSample{Mode: modes[trial%3], Padding: pads[trial/3%3], AlignCorners: trial/9%2 == 1}
		n, ch, h, w := 1+rng.Intn(2), 1+rng.Intn(4), 1+rng.Intn(20), 1+rng.Intn(20)
		if trial >= 36 { // bigger planes and blocks: several vector steps and a tail
			h, w = 1+rng.Intn(60), 1+rng.Intn(60)
		}
		oh, ow := 1+rng.Intn(30), 1+rng.Intn(30)
		if trial >= 36 {
			oh, ow = 1+rng.Intn(50), 1+rng.Intn(50)
		}
		x := randTensor(rng, "x", n, ch, h, w)
		grid := make([]float32, n*oh*ow*2)
		for i := range grid {
			grid[i] = float32(rng.Float64()*2.6 - 1.3)
			if rng.Intn(6) == 0 { // taps of weight 0 (whole coordinates)
				grid[i] = float32(rng.Intn(3) - 1)
			}
		}
		gt := canon.NewFloat32Tensor("grid", []int64{int64(n), int64(oh), int64(ow), 2}, grid)
		if trial%4 == 3 { // signed zeros, infinities and NaN in the planes
			xs := make([]float32, n*ch*h*w)
			for i := range xs {
				xs[i] = float32(rng.NormFloat64())
				if rng.Intn(12) == 0 {
					xs[i] = []float32{float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}[rng.Intn(4)]
				}
			}
			x = canon.NewFloat32Tensor("x", []int64{int64(n), int64(ch), int64(h), int64(w)}, xs)
		}
		xv, _ := x.Float64s()
		xf := make([]float32, len(xv))
		for i, v := range xv {
			xf[i] = float32(v)
		}
		want := gridSampleByPoints(op, xf, grid, n, ch, h, w, oh, ow)
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			y, err := runLogicOpErr(op, x, gt)
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := y.Float64s()
			for i, v := range want {
				if g := float32(got[i]); math.Float32bits(g) != math.Float32bits(v) && !(g != g && v != v) {
					t.Fatalf("trial %d (%v %v align %v): y[%d] = %v, point by point %v", trial, op.Mode, op.Padding, op.AlignCorners, i, got[i], v)
				}
			}
		}
	}
}
