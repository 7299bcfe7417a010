package quantize

import (
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestCalibrationOverDraws: a value computed from random draws is
// calibrated over draws the two histogram passes share (its range holds the
// histogram's), and Evaluate marks an output computed from draws instead of
// measuring an error between two independent samples.
func TestCalibrationOverDraws(t *testing.T) {
	b := newNet(1)
	x := b.input("x", 1, 3, 8, 8)
	z := b.node(&canon.RandomNormalLike{Scale: 3, DType: canon.Float32}, x)
	y := b.node(&canon.Binary{Fn: canon.Add}, x, z)
	g := b.output(y)
	src := RandomSamples{Inputs: g.Inputs, N: 6, Seed: 2}
	for _, m := range []Method{MinMax, Percentile, Entropy} {
		r, err := Calibrate(g, []string{y}, src, CalibrateOptions{Method: m})
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if rg := r[y]; !(rg.Min < -3 && rg.Max > 3) || math.IsInf(float64(rg.Max), 0) {
			t.Errorf("%s: range %v of x + N(0, 3²) draws", m, rg)
		}
	}
	errs, err := Evaluate(g, g, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || !errs[0].Drawn || errs[0].Elements != 0 {
		t.Errorf("Evaluate of a drawn output: %+v, want it marked drawn and not measured", errs)
	}
}
