package interp

import (
	"github.com/modelbridge/modelbridge/interp/internal/vec"
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func needAVX512(t testing.TB) {
	if !useAVX512 {
		t.Skip("skipping: no AVX-512 on this machine (or MODELBRIDGE_NO_AVX512 is set)")
	}
}

// needExpVectors skips tests of the kernels that serve with AVX-512 or
// with AVX2 + FMA (whichever the machine and the test select).
func needExpVectors(t testing.TB) {
	if !hasFMA {
		t.Skip("skipping: no AVX2 and FMA on this machine")
	}
}

// vectorLevel selects the kernels for a test: "avx512" (if the machine
// has it), "avx2" or "scalar"; the returned function restores the flags.
func vectorLevel(level string) func() {
	return setVectorLevel(useAVX512 && level == "avx512", hasFMA && level != "scalar")
}

// expSpecials are inputs at the edges of math.Exp's ranges: zeros, the
// overflow and subnormal thresholds, infinities and NaNs.
func expSpecials() []float64 {
	s := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1e-300, -1e-300, 5e-324,
		709.78, 709.782712893384, math.Nextafter(709.782712893384, 1000), 709.5, 709.43, 709.44,
		-708.39, -708.4, -709, -720, -744.4, -745.1, -745.13, -745.2, -746, -800, -1e5, 1e5, -1e300, 1e300,
		88.72, 88.73, -87.3, -103.2, -103.3, -103.97, -104, -104.5, -105,
		math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0xfff8000000000123), math.Float64frombits(0x7ff4000000000001)}
	for k := -1080; k <= 1030; k++ {
		x := float64(k) * math.Ln2
		s = append(s, x, math.Nextafter(x, 0), math.Nextafter(x, 2*x+1), x+math.Ln2/2, x-math.Ln2/2)
	}
	return s
}

// checkLanes64 compares a float64 kernel with the math function it
// repeats, bit for bit on xs, NaNs included.
func checkLanes64(t *testing.T, name string, kernel func(dst, src []float64), ref func(float64) float64, xs []float64) {
	t.Helper()
	got := make([]float64, len(xs))
	kernel(got, xs)
	n := len(xs)
	bad := 0
	for i, x := range xs[:n] {
		if want := ref(x); math.Float64bits(got[i]) != math.Float64bits(want) {
			if bad++; bad <= 5 {
				t.Errorf("%s(%v [%#x]) = %v [%#x], math gives %v [%#x]", name, x, math.Float64bits(x), got[i], math.Float64bits(got[i]), want, math.Float64bits(want))
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d of %d differ", name, bad, n)
	}
}

// sameFloat32s compares float32 results bit for bit, but for NaNs: any
// NaN matches any NaN, as the sign a scalar loop leaves on a NaN depends
// on which operand the compiler puts first (GOAMD64=v3 flips Gelu's).
func sameFloat32s(t *testing.T, what string, in, got, want []float32) {
	t.Helper()
	bad := 0
	for i := range want {
		if g, w := got[i], want[i]; math.Float32bits(g) != math.Float32bits(w) && (g == g || w == w) {
			if bad++; bad <= 5 {
				t.Errorf("%s(%v [%#x]) = %v [%#x], the scalar loop gives %v [%#x]", what, in[i], math.Float32bits(in[i]),
					got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d of %d differ", what, bad, len(want))
	}
}

// float32Inputs returns n float32 inputs: a mix of the specials, uniform
// values over ±span, small magnitudes and random bit patterns.
func float32Inputs(rng *rand.Rand, n int, span float64) []float32 {
	s := make([]float32, 0, n)
	for _, x := range expSpecials() {
		s = append(s, float32(x), float32(-x))
	}
	for len(s) < n {
		switch len(s) % 4 {
		case 0, 1:
			s = append(s, float32((rng.Float64()*2-1)*span))
		case 2:
			s = append(s, float32((rng.Float64()*2-1)*math.Pow(2, float64(rng.Intn(40)-30))))
		default:
			s = append(s, math.Float32frombits(rng.Uint32()))
		}
	}
	return s[:n]
}

// checkSoftmaxCols: Softmax along a strided axis, sixteen columns at a
// time transposed into rows, gives softmaxStridedGo's columns bit for bit,
// a column with a NaN, -Inf entries, and ragged column counts included.
func checkSoftmaxCols(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, inner := range []int{8, 9, 16, 37} {
		for _, n := range []int{1, 2, 5, 16, 33} {
			const outer = 2
			src := make([]float32, outer*n*inner)
			for i := range src {
				src[i] = float32(rng.NormFloat64() * 15)
			}
			src[rng.Intn(len(src))] = float32(math.Inf(-1))
			if n > 1 {
				src[(n-1)*inner+3] = float32(math.NaN())
			}
			want := make([]float32, len(src))
			for o := 0; o < outer; o++ {
				for j := 0; j < inner; j++ {
					softmaxStridedGo(want, src, o*n*inner+j, n, inner)
				}
			}
			x := canon.NewFloat32Tensor("x", []int64{outer, int64(n), int64(inner)}, src)
			got := floats(t, runActivation(t, &canon.Softmax{Axis: 1}, canon.Float32, x))
			sameFloat32s(t, "softmax along a strided axis", src, got, want)
		}
	}
}

// checkSoftmaxRows: the row kernel at this vector level gives
// softmaxStridedGo's rows bit for bit, a row holding a NaN included.
func checkSoftmaxRows(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, n := range []int{16, 21, 128, 131} {
		for _, rows := range []int{1, 4, 7, 13} {
			src := make([]float32, rows*n)
			for i := range src {
				src[i] = float32(rng.NormFloat64() * 10)
			}
			if rows > 4 {
				src[5*n+3] = float32(math.NaN())
			}
			want := make([]float32, len(src))
			for r := 0; r < rows; r++ {
				softmaxStridedGo(want, src, r*n, n, 1)
			}
			got := append([]float32{}, src...)
			vec.SoftmaxRows32(got, got, n)
			sameFloat32s(t, "softmaxRows", src, got, want)
		}
	}
}

// vectorLevels runs f at each vector level this machine has.
func vectorLevels(t *testing.T, f func(t *testing.T)) {
	for _, level := range []string{"scalar", "avx2", "avx512"} {
		if (level == "avx512" && !useAVX512) || (level == "avx2" && !hasFMA) {
			continue
		}
		t.Run(level, func(t *testing.T) {
			defer vectorLevel(level)()
			f(t)
		})
	}
}

// The exponential kernels give math.Exp bit for bit at the edges of its
// ranges (every k·ln2 from the subnormals to overflow, either side), and
// Sigmoid, Tanh and both Gelus their scalar loops' results on float32
// inputs of every kind.
func TestExpKernelsMatchMath(t *testing.T) {
	vectorLevels(t, func(t *testing.T) {
		checkLanes64(t, "exp", vec.Exp64, math.Exp, expSpecials())
		xs := expSpecials()
		for i := range xs {
			xs[i] = -xs[i] / 2
		}
		checkLanes64(t, "sigmoid64", vec.Sigmoid64, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, xs)
		checkLanes64(t, "tanh64", vec.Tanh64, math.Tanh, xs)
		in := float32Inputs(rand.New(rand.NewSource(4)), 4099, 100)
		for _, c := range []struct {
			name string
			fast func(d, s []float32)
			ref  func(float32) float32
		}{
			{"sigmoid", vec.Sigmoid, func(x float32) float32 { return float32(1 / (1 + math.Exp(-float64(x)))) }},
			{"tanh", vec.Tanh, func(x float32) float32 { return float32(math.Tanh(float64(x))) }},
			{"gelu", vec.Gelu32, gelu32},
			{"geluTanh", vec.GeluTanh, func(x float32) float32 { return float32(geluTanh(float64(x))) }},
		} {
			got, want := make([]float32, len(in)), make([]float32, len(in))
			c.fast(got, in)
			for i, x := range in {
				want[i] = c.ref(x)
			}
			sameFloat32s(t, c.name, in, got, want)
		}
	})
}

// Softmax's row and column kernels give softmaxStridedGo's results bit
// for bit.
func TestSoftmaxRowsAndColumns(t *testing.T) {
	vectorLevels(t, func(t *testing.T) {
		checkSoftmaxRows(t)
		checkSoftmaxCols(t)
	})
}

// TestExpOpsAVX512MatchScalar runs Softmax (rows of 37 and 160, and
// along a strided axis), Sigmoid, both Gelus and Attention's softmax
// through the interpreter with the vector kernels (of the level the test
// selects) and without: the outputs agree bit for bit.
func TestExpOpsAVX512MatchScalar(t *testing.T) {
	needExpVectors(t)
	rng := rand.New(rand.NewSource(5))
	ops := []struct {
		name  string
		op    canon.Op
		shape []int
	}{
		{"softmax37", &canon.Softmax{Axis: -1}, []int{3, 5, 37}},
		{"softmax160", &canon.Softmax{Axis: -1}, []int{2, 3, 160}},
		{"softmaxAxis1", &canon.Softmax{Axis: 1}, []int{2, 40, 9}},
		{"softmaxAxis1Wide", &canon.Softmax{Axis: 1}, []int{3, 5, 203}},
		{"softmaxAxis0", &canon.Softmax{Axis: 0}, []int{1, 64}},
		{"sigmoid", &canon.Unary{Fn: canon.Sigmoid}, []int{5, 333}},
		{"gelu", &canon.Gelu{}, []int{5, 333}},
		{"geluTanh", &canon.Gelu{Approximate: canon.GeluTanh}, []int{5, 333}},
		{"tanh", &canon.Unary{Fn: canon.Tanh}, []int{5, 333}},
	}
	for _, c := range ops {
		v := floats(t, randTensor(rng, "x", c.shape...))
		shape := make([]int64, len(c.shape))
		for i, d := range c.shape {
			shape[i] = int64(d)
		}
		for i := range v {
			v[i] *= 30
		}
		x := canon.NewFloat32Tensor("x", shape, v)
		run := func(level string) []float32 {
			defer vectorLevel(level)()
			return floats(t, runActivation(t, c.op, canon.Float32, x))
		}
		sameFloat32s(t, c.name, v, run("avx512"), run("scalar"))
	}
	checkSoftmax64(t, rng)
}

// checkSoftmax64 compares Attention's softmaxRow with AVX-512 on and off
// bit for bit (float64 results show any change in the order of the sum):
// rows of 1 to 40 and 203 values, with -Inf (masked) entries, signed
// zeros, a NaN, and a row masked everywhere.
func checkSoftmax64(t *testing.T, rng *rand.Rand) {
	t.Helper()
	var rows [][]float64
	for _, n := range []int{1, 7, 8, 9, 16, 23, 40, 203} {
		for rep := 0; rep < 3; rep++ {
			row := make([]float64, n)
			for i := range row {
				row[i] = rng.NormFloat64() * 20
			}
			switch rep {
			case 1:
				row[rng.Intn(n)] = math.Inf(-1)
				row[rng.Intn(n)] = math.Copysign(0, -1)
			case 2:
				row[rng.Intn(n)] = math.NaN()
			}
			rows = append(rows, row)
		}
	}
	masked := make([]float64, 24)
	for i := range masked {
		masked[i] = math.Inf(-1)
	}
	rows = append(rows, masked)
	for _, row := range rows {
		want := append([]float64{}, row...)
		func() {
			defer vectorLevel("scalar")()
			softmaxRow(want)
		}()
		got := append([]float64{}, row...)
		softmaxRow(got)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("attention softmax of %d: [%d] = %v, scalar %v", len(row), i, got[i], want[i])
			}
		}
	}
}

// BenchmarkExpKernels times the kernels against the scalar loops on
// normally distributed inputs (σ = 3); ns/op is per element.
func BenchmarkExpKernels(b *testing.B) {
	rng := rand.New(rand.NewSource(6))
	const n = 4096
	in, out := make([]float32, n), make([]float32, n)
	in64, out64 := make([]float64, n), make([]float64, n)
	for i := range in64 {
		in64[i] = rng.NormFloat64() * 3
		in[i] = float32(in64[i])
	}
	for _, name := range []string{"scalar", "avx2", "avx512"} {
		if (name == "avx512" && !useAVX512) || (name == "avx2" && !hasFMA) {
			continue
		}
		perElement := func(b *testing.B, f func()) {
			defer vectorLevel(name)()
			for i := 0; i < b.N; i += n {
				f()
			}
		}
		b.Run("exp64/"+name, func(b *testing.B) {
			perElement(b, func() {
				vec.Exp64(out64, in64)
			})
		})
		for _, fn := range []struct {
			name string
			fn   unaryFn
		}{{"sigmoid", uSigmoid}, {"tanh", uTanh}, {"gelu", uGelu}, {"geluTanh", uGeluTanh}} {
			b.Run(fn.name+"/"+name, func(b *testing.B) {
				perElement(b, func() { unaryF(unaryOp{fn: fn.fn}, out, in) })
			})
		}
		b.Run("softmax128/"+name, func(b *testing.B) {
			perElement(b, func() { vec.SoftmaxRows32(out, in, 128) })
		})
	}
}

// TestRecurrentActivationsAVX512: LSTM and GRU layers whose Sigmoid and
// Tanh run a vector at a time give the scalar activations' outputs bit for
// bit (both directions, a clip, peepholes, a coupled forget gate, ragged
// hidden sizes).
func TestRecurrentActivationsAVX512(t *testing.T) {
	needAVX512(t)
	for _, hidden := range []int64{13, 40} {
		for _, c := range []struct {
			op    canon.RecurrentOp
			gates int64
			clip  float32
			peep  bool
		}{{&canon.LSTM{}, 4, 0, false}, {&canon.LSTM{}, 4, 0.7, true}, {&canon.LSTM{InputForget: true}, 4, 0, true},
			{&canon.GRU{}, 3, 0, false}, {&canon.GRU{LinearBeforeReset: true}, 3, 0, false}} {
			const seq, batch, in = 5, 2, 11
			r := c.op.Rec()
			r.HiddenSize, r.Direction, r.Clip = hidden, canon.Bidirectional, c.clip
			r.Activations = canon.DefaultActivations(c.op, 2)
			nb := newNetBuilder("x", seq, batch, in)
			w := nb.weight(3, 2, c.gates*hidden, in)
			rw := nb.weight(3, 2, c.gates*hidden, hidden)
			bias := nb.weight(3, 2, 2*c.gates*hidden)
			ins := []string{"x", w, rw, bias}
			if c.peep {
				ins = append(ins, "", "", "", nb.weight(1, 2, 3*hidden))
			}
			g := nb.finish(t, nb.node(c.op, ins...))
			x := randTensor(rand.New(rand.NewSource(6)), "x", seq, batch, in)
			run := func(vector bool) []float32 {
				defer setVectorLevel(vector, hasFMA)()
				res, err := Run(g, map[string]*canon.Tensor{"x": x})
				if err != nil {
					t.Fatal(err)
				}
				return floats(t, res[g.Outputs[0].Name])
			}
			got, want := run(true), run(false)
			sameFloat32s(t, c.op.Kind(), make([]float32, len(want)), got, want)
		}
	}
}
