package interp

import (
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// activationInput is shared by the hand-computed activation tests below.
var activationInput = []float32{-3, -1, -0.5, 0, 0.5, 1, 2, 40, -40}

// The expected values were computed independently in float64 with numpy:
//
//	x = np.array([-3, -1, -0.5, 0, 0.5, 1, 2, 40, -40], dtype=np.float64)
//	softplus = np.log1p(np.exp(x))
//	softsign = x / (1 + np.abs(x))
//	elu(a)   = np.where(x > 0, x, a * (np.exp(x) - 1))
//	selu     = 1.0507009873554804934193349852946 * elu(1.6732632423543772848170429916717)
//
// and rounded to float32.
func TestActivationsHandComputed(t *testing.T) {
	cases := []struct {
		name string
		op   canon.Op
		want []float32
	}{
		{"softplus", &canon.Unary{Fn: canon.Softplus}, []float32{0.048587352, 0.3132617, 0.474077, 0.6931472, 0.974077, 1.3132616, 2.126928, 40, 4.248354e-18}},
		{"softsign", &canon.Unary{Fn: canon.Softsign}, []float32{-0.75, -0.5, -0.33333334, 0, 0.33333334, 0.5, 0.6666667, 0.9756098, -0.9756098}},
		{"elu alpha 1", &canon.Elu{Alpha: 1}, []float32{-0.95021296, -0.63212055, -0.39346933, 0, 0.5, 1, 2, 40, -1}},
		{"elu alpha 0.25", &canon.Elu{Alpha: 0.25}, []float32{-0.23755324, -0.15803014, -0.09836733, 0, 0.5, 1, 2, 40, -0.25}},
		{"selu", &canon.Selu{Alpha: canon.SeluAlpha, Gamma: canon.SeluGamma}, []float32{-1.6705687, -1.1113307, -0.6917582, 0, 0.5253505, 1.050701, 2.101402, 42.028038, -1.7580993}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := canon.NewFloat32Tensor("x", []int64{3, 3}, activationInput)
			out, err := Run(graphOf(c.op, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil), map[string]*canon.Tensor{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			assertClose(t, c.name, floats(t, out["y"]), c.want, 1e-6)
		})
	}
}

// TestSoftplusExtremes checks that softplus neither overflows for large
// inputs nor rounds the tiny tail of very negative inputs to a wrong value.
func TestSoftplusExtremes(t *testing.T) {
	big := float32(1e30)
	for _, c := range []struct{ in, want float32 }{
		{big, big},
		{100, 100},
		{89, 89}, // exp(89) overflows float32 but not the float64 we compute in
		{-20, 2.0611537e-09},
		{float32(math.Inf(1)), float32(math.Inf(1))},
		{float32(math.Inf(-1)), 0},
	} {
		if got := softplus(c.in); math.Abs(float64(got-c.want)) > 1e-6*math.Abs(float64(c.want)) && got != c.want {
			t.Errorf("softplus(%g) = %g, want %g", c.in, got, c.want)
		}
	}
	if got := softplus(float32(math.NaN())); !math.IsNaN(float64(got)) {
		t.Errorf("softplus(NaN) = %g, want NaN", got)
	}
}

// TestActivationsRejectIntegers: these activations are only defined for
// floating-point tensors, so an integer input is an error, not a cast.
func TestActivationsRejectIntegers(t *testing.T) {
	x := canon.NewInt64Tensor("x", []int64{2}, []int64{-1, 1})
	for _, op := range []canon.Op{&canon.Unary{Fn: canon.Softplus}, &canon.Unary{Fn: canon.Softsign}, &canon.Elu{Alpha: 1}, &canon.Selu{Alpha: 1, Gamma: 1}} {
		g := graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil)
		g.Outputs[0].DType = canon.Int64
		if _, err := Run(g, map[string]*canon.Tensor{"x": x}); err == nil {
			t.Errorf("%s on i64: no error", op.Kind())
		}
	}
}

// TestGelu runs both Gelu approximations through the interpreter and
// compares them with the textbook formulas evaluated here in float64:
// exact 0.5·x·(1+erf(x/√2)) and tanh 0.5·x·(1+tanh(√(2/π)·(x+0.044715·x³))).
// Where 1+erf or 1+tanh cancels (very negative x) the textbook value has an
// absolute error of about |x|·1e-16, which the tolerance allows.
func TestGelu(t *testing.T) {
	xs := []float32{-3e38, -1e4, -40, -10, -5, -3, -1, -0.5, -1e-3, -1e-30, 0, 1e-30, 1e-3, 0.5, 1, 1.5, 3, 5, 10, 40, 1e4, 3e38}
	refs := map[canon.GeluApprox]func(float64) float64{
		canon.GeluExact: func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt(2))) },
		canon.GeluTanh: func(x float64) float64 {
			return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
		},
	}
	for approx, ref := range refs {
		t.Run(approx.String(), func(t *testing.T) {
			x := canon.NewFloat32Tensor("x", []int64{int64(len(xs))}, xs)
			out, err := Run(graphOf(&canon.Gelu{Approximate: approx}, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil), map[string]*canon.Tensor{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			got := floats(t, out["y"])
			for i, v := range xs {
				want := float32(ref(float64(v)))
				tol := 1e-6*math.Abs(float64(want)) + 1e-15*math.Abs(float64(v))
				if d := math.Abs(float64(got[i] - want)); !(d <= tol) {
					t.Errorf("gelu %s(%g) = %g, want %g", approx, v, got[i], want)
				}
				// Gelu has the sign of x and lies between min(x, 0) and max(x, 0).
				if g := got[i]; g > max(v, 0) || g < min(v, 0) {
					t.Errorf("gelu %s(%g) = %g, outside [min(x,0), max(x,0)]", approx, v, g)
				}
			}
		})
	}
	// Well-known values: Φ(1) = 0.8413447460685429.
	if got := gelu(1); math.Abs(got-0.8413447460685429) > 1e-15 {
		t.Errorf("gelu(1) = %v, want 0.8413447460685429", got)
	}
	// The tails are kept where 1+erf(x/√2) would cancel: x·Φ(x) at -10 is
	// about -7.6e-23, a normal float32.
	if got := float32(gelu(-10)); !(got < -7.6e-23 && got > -7.7e-23) {
		t.Errorf("gelu(-10) = %g, want about -7.62e-23", got)
	}
}

// TestGeluRejectsIntegers: Gelu is defined for floating-point data only.
func TestGeluRejectsIntegers(t *testing.T) {
	x := canon.NewInt64Tensor("x", []int64{2}, []int64{-1, 1})
	g := graphOf(&canon.Gelu{}, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil)
	g.Outputs[0].DType = canon.Int64
	if _, err := Run(g, map[string]*canon.Tensor{"x": x}); err == nil {
		t.Error("Gelu on i64: no error")
	}
}

// gelu32 stays within a few float32 ulps of the float64 gelu over the
// whole range, tails included, and keeps gelu's infinities and NaN.
func TestGelu32MatchesGelu(t *testing.T) {
	worst := 0.0
	for i := -300000; i <= 300000; i++ {
		x := float32(i) * 4e-5 // [-12, 12]
		if i%1000 == 0 {
			x = float32(i) * 1e-3 // out to ±300
		}
		want := float32(gelu(float64(x)))
		got := gelu32(x)
		if want == 0 {
			if got != 0 {
				t.Fatalf("gelu32(%g) = %g, want 0", x, got)
			}
			continue
		}
		if rel := math.Abs(float64(got-want)) / math.Abs(float64(want)); rel > worst {
			worst = rel
		}
	}
	t.Logf("worst relative error %.3g", worst)
	if worst > 5e-7 {
		t.Errorf("gelu32 is off by up to %.3g relative, want within a few ulps (5e-7)", worst)
	}
	inf := float32(math.Inf(1))
	if got := gelu32(inf); got != inf {
		t.Errorf("gelu32(+Inf) = %v", got)
	}
	if got, want := gelu32(-inf), float32(gelu(math.Inf(-1))); !(math.IsNaN(float64(got)) && math.IsNaN(float64(want))) && got != want {
		t.Errorf("gelu32(-Inf) = %v, gelu gives %v", got, want)
	}
	if got := gelu32(float32(math.NaN())); !math.IsNaN(float64(got)) {
		t.Errorf("gelu32(NaN) = %v", got)
	}
}
