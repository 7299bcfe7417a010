package vec

import (
	"fmt"
	"math"
	"math/rand"
	"syscall"
	"testing"
	"time"
)

// The float32-lane sigmoid equals its scalar reference bit for bit at
// every width, on every length (tails included) and at the edges.
func TestSigmoid32MatchesReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(9))
		for _, n := range lengths {
			for _, scale := range []float64{1, 8, 60} {
				s := randF32(r, n, scale)
				for i := range s {
					if r.Intn(16) == 0 {
						s[i] = math.Float32frombits(r.Uint32()) // any pattern: subnormals, NaN payloads
					}
				}
				got, want := guard32(n), make([]float32, n)
				Sigmoid32(got, s)
				sigmoid32Ref(want, s)
				sameBits32(t, fmt.Sprintf("Sigmoid32 n=%d", n), got, want)
				checkGuard32(t, "Sigmoid32", got)
				got, want = guard32(n), make([]float32, n)
				SiLU32(got, s)
				silu32Ref(want, s)
				sameBits32(t, fmt.Sprintf("SiLU32 n=%d", n), got, want)
				checkGuard32(t, "SiLU32", got)
			}
		}
		// Every 4099th bit pattern, through the vector routines.
		const chunk = 1 << 14
		in, got, want := make([]float32, chunk), make([]float32, chunk), make([]float32, chunk)
		for b := uint64(0); b < 1<<32; b += 4099 * chunk {
			for i := range in {
				in[i] = math.Float32frombits(uint32(b + 4099*uint64(i)))
			}
			Sigmoid32(got, in)
			sigmoid32Ref(want, in)
			sameBits32(t, "Sigmoid32 sweep", got, want)
		}
	})
}

// ulpError is |got - exact| in units of float32's last place at exact.
func ulpError(got float32, exact float64) float64 {
	if got != got || exact != exact {
		if got != got && exact != exact {
			return 0
		}
		return math.Inf(1)
	}
	if math.IsInf(exact, 0) || math.IsInf(float64(got), 0) {
		if float64(got) == exact {
			return 0
		}
		return math.Inf(1)
	}
	_, e := math.Frexp(exact)
	ulp := math.Ldexp(1, max(e-24, -149))
	return math.Abs(float64(got)-exact) / ulp
}

// sigmoid64 is the sigmoid in float64, its error far below float32's ulp.
func sigmoid64(x float64) float64 {
	if x < 0 {
		e := math.Exp(x)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(-x))
}

// TestSigmoid32Accuracy bounds sigmoid32's error against the float64
// sigmoid over a dense sweep of float32 bit patterns (normal, subnormal,
// ±0, ±Inf and NaN inputs) and at the edges. MODELBRIDGE_EXHAUSTIVE=1 adds
// every pattern with 2^-26 ≤ |x| < 128, where the result is neither 0.5,
// 0 nor 1 (outside it, 0.5, 0 and 1 are the correctly rounded results,
// which the sweep checks). Every pattern: 2.40 ulp at most (x =
// -4.157294).
func TestSigmoid32Accuracy(t *testing.T) {
	worst := ulpSweep{kernel: Sigmoid32, exact: sigmoid64, loExp: -26, hiExp: 7, edges: []float32{0,
		float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), math.SmallestNonzeroFloat32,
		-math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32, -103.9, -87.5, 16.7, -16.7}}.run(t)
	if worst.ulps > 2.41 {
		t.Errorf("sigmoid32 is %.3f ulp off at x = %v", worst.ulps, worst.x)
	}
}

// BenchmarkSigmoid32 times the float32-lane sigmoid beside the float64-lane
// one it replaces in the interpreter, alternately; ns/op is per element.
func BenchmarkSigmoid32(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	const n = 4096
	in, out := make([]float32, n), make([]float32, n)
	for i := range in {
		in[i] = float32(r.NormFloat64() * 3)
	}
	for _, k := range []struct {
		name string
		fn   func(d, s []float32)
	}{{"float64lanes", Sigmoid}, {"float32lanes", Sigmoid32}, {"silu", SiLU32}, {"gelu", Gelu}, {"gelu32lanes", Gelu32}} {
		b.Run(k.name, func(b *testing.B) {
			c0 := processCPU()
			for i := 0; i < b.N; i += n {
				k.fn(out, in)
			}
			b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// The hard-sigmoid gate equals its reference bit for bit (NaN's payload
// aside) at every width and length, NaN, ±Inf and ±0 among the inputs.
func TestHardSigmoidGate32MatchesReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(11))
		for _, n := range lengths {
			for _, ab := range [][2]float32{{1.0 / 6, 0.5}, {0.2, 0.5}, {-0.3, 0}, {2, float32(math.Copysign(0, -1))}, {0, 0.5}} {
				s := randF32(r, n, 4)
				for i := range s {
					if r.Intn(10) == 0 {
						s[i] = -s[i] * ab[1] / max(ab[0], 1e-3) // a·x+b near 0
					}
				}
				got, want := guard32(n), make([]float32, n)
				HardSigmoidGate32(got, s, ab[0], ab[1])
				hardSigmoidGate32Ref(want, s, ab[0], ab[1])
				sameBits32(t, fmt.Sprintf("HardSigmoidGate32 n=%d a=%v b=%v", n, ab[0], ab[1]), got, want)
				checkGuard32(t, "HardSigmoidGate32", got)
			}
		}
	})
}

// The LayerNorm row routines equal their references bit for bit.
func TestLayerNormRowsMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(12))
		for _, n := range append(lengths, 96, 768) {
			src, scale, bias := randF32(r, n, 5), randF32(r, n, 2), randF32(r, n, 1)
			m := float32(r.NormFloat64())
			got, gotSq, want, wantSq := guard32(n), guard32(n), make([]float32, n), make([]float32, n)
			LNCenter(got, gotSq, src, m)
			lnCenterRef(want, wantSq, src, m)
			sameBits32(t, fmt.Sprintf("LNCenter n=%d", n), got, want)
			sameBits32(t, fmt.Sprintf("LNCenter squares n=%d", n), gotSq, wantSq)
			checkGuard32(t, "LNCenter", got)
			checkGuard32(t, "LNCenter squares", gotSq)
			for _, den := range []float32{0.37, 1e-3, 0, float32(math.Inf(1)), 3e-39} {
				g, w := guard32(n), make([]float32, n)
				copy(g, src)
				copy(w, src)
				LNScale(g, scale, bias, den)
				lnScaleRef(w, scale, bias, den)
				sameBits32(t, fmt.Sprintf("LNScale n=%d den=%v", n, den), g, w)
				checkGuard32(t, "LNScale", g)
			}
			for _, inv := range []float64{0.37, 1e3, 0, math.Inf(1), 3e-39} {
				mean := float64(m) + 1e-9
				g, w := guard32(n), make([]float32, n)
				LNAffine64(g, src, scale, bias, mean, inv)
				lnAffine64Ref(w, src, scale, bias, mean, inv)
				sameBits32(t, fmt.Sprintf("LNAffine64 n=%d inv=%v", n, inv), g, w)
				checkGuard32(t, "LNAffine64", g)
			}
		}
	})
}

// processCPU is the CPU time the process has used (user and system): what
// a benchmark's work costs on a machine other processes load.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestGelu1Accuracy measures Gelu1 (erfcc's fit in float64, rounded to
// float32) against float64 gelu with math.Erfc over a sweep of float32
// bit patterns, and bounds it.
func TestGelu1Accuracy(t *testing.T) {
	stride := uint32(997)
	if testing.Short() {
		stride = 40009
	}
	worst, worstX := 0.0, float32(0)
	for b := uint64(0); b < 1<<32; b += uint64(stride) {
		x := math.Float32frombits(uint32(b))
		want := 0.5 * float64(x) * math.Erfc(-float64(x)/math.Sqrt2)
		if e := ulpError(Gelu1(x), want); e > worst {
			worst, worstX = e, x
		}
	}
	t.Logf("largest error %.3f ulp, at x = %v (%#x)", worst, worstX, math.Float32bits(worstX))
	if worst > 4 {
		t.Errorf("Gelu1 is %.3f ulp off at x = %v", worst, worstX)
	}
}

// TestLanes32TailDoesNotAllocate guards the softmax's per-row calls: a
// row's tail goes through vectors on the stack, not the heap.
func TestLanes32TailDoesNotAllocate(t *testing.T) {
	row := make([]float32, 197)
	for i := range row {
		row[i] = float32(i%7) - 3
	}
	for name, f := range map[string]func(){
		"ExpShift32": func() { ExpShift32(row, row, 4) },
		"Gelu32":     func() { Gelu32(row, row) },
		"Sigmoid32":  func() { Sigmoid32(row, row) },
	} {
		if n := testing.AllocsPerRun(50, f); n != 0 {
			t.Errorf("%s on a row of 197 floats: %v allocations a call, want 0", name, n)
		}
	}
}
