package interp

import (
	"github.com/modelbridge/modelbridge/interp/internal/vec"
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// erfEdges are math.Erf's branch edges and its special inputs: 2^-28,
// 0.84375, 1.25, 1/0.35, 6 (and, for float64 only, 2^-1015), zeros,
// infinities and NaNs with payloads of either sign.
func erfEdges() []float64 {
	return []float64{0, math.Copysign(0, -1), 0x1p-28, 0.84375, 1.25, 1 / 0.35, 6, 0x1p-1015,
		1, 2, 5.9, 5.99, 28, 1e30, math.MaxFloat64, math.SmallestNonzeroFloat64, 0x1p-149, 0x1p-126,
		math.MaxFloat32, math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0xfff8000000000123),
		math.Float64frombits(0x7ff4000000000001)}
}

// erfInputs32 returns float32 inputs for the Erf kernels: every edge and
// the few float32s either side of it, ±every power of two, and n values
// spread over every exponent with random mantissas and signs.
func erfInputs32(rng *rand.Rand, n int) []float32 {
	var s []float32
	for _, e := range erfEdges() {
		x := float32(e)
		for _, v := range []float32{x, -x} {
			lo, hi := v, v
			for k := 0; k < 8; k++ {
				s = append(s, lo, hi)
				lo, hi = math.Nextafter32(lo, float32(math.Inf(-1))), math.Nextafter32(hi, float32(math.Inf(1)))
			}
		}
	}
	for e := uint32(0); e < 256; e++ {
		s = append(s, math.Float32frombits(e<<23), math.Float32frombits(1<<31|e<<23))
	}
	for len(s) < n {
		s = append(s, math.Float32frombits(uint32(len(s))%256<<23|rng.Uint32()&(1<<31|1<<23-1)))
	}
	return s
}

// erfInputs64 returns the float64 edges, the float64s either side of
// each, and n values spread over every float64 exponent.
func erfInputs64(rng *rand.Rand, n int) []float64 {
	var s []float64
	for _, e := range erfEdges() {
		for _, v := range []float64{e, -e} {
			lo, hi := v, v
			for k := 0; k < 8; k++ {
				s = append(s, lo, hi)
				lo, hi = math.Nextafter(lo, math.Inf(-1)), math.Nextafter(hi, math.Inf(1))
			}
		}
	}
	for len(s) < n {
		s = append(s, math.Float64frombits(uint64(len(s))%2048<<52|rng.Uint64()&(1<<63|1<<52-1)))
	}
	return s
}

// The erf kernels give math.Erf bit for bit at its branch edges, either
// side of each, and over every float64 exponent (where the standard
// library's erf does not fuse multiply-adds; see vec.Erf).
func TestErfKernelsMatchMath(t *testing.T) {
	vectorLevels(t, func(t *testing.T) {
		xs := erfInputs64(rand.New(rand.NewSource(3)), 1<<14)
		checkLanes64(t, "erf64", vec.Erf64, math.Erf, xs)
		in := make([]float32, len(xs))
		for i, x := range xs {
			in[i] = float32(x)
		}
		got, want := make([]float32, len(in)), make([]float32, len(in))
		vec.Erf(got, in)
		for i, x := range in {
			want[i] = float32(math.Erf(float64(x)))
		}
		sameFloat32s(t, "erf", in, got, want)
	})
}

// TestErfOpAVX512MatchesScalar runs Erf through the interpreter with the
// AVX-512 kernel, the AVX2 one and the scalar loop: the outputs agree bit
// for bit, and the scalar loop's with math.Erf, on shapes that leave
// tails and split between cores.
func TestErfOpAVX512MatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, shape := range [][]int64{{5, 333}, {3, 7}, {2, 64, 771}} {
		size := 1
		for _, d := range shape {
			size *= int(d)
		}
		v := make([]float32, size)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * 2.5)
		}
		copy(v, erfInputs32(rng, 0))
		x := canon.NewFloat32Tensor("x", shape, v)
		run := func(level string) []float32 {
			defer vectorLevel(level)()
			return floats(t, runActivation(t, &canon.Math{Fn: canon.MathErf}, canon.Float32, x))
		}
		scalar := run("scalar")
		for i, x := range v {
			if want := float32(math.Erf(float64(x))); math.Float32bits(scalar[i]) != math.Float32bits(want) && (want == want || scalar[i] == scalar[i]) {
				t.Fatalf("Erf(%v) = %v, math.Erf gives %v", x, scalar[i], want)
			}
		}
		sameFloat32s(t, "Erf avx512", v, run("avx512"), scalar)
		sameFloat32s(t, "Erf avx2", v, run("avx2"), scalar)
	}
}

// BenchmarkErfKernel times Erf on float32 data, the kernel against the
// scalar loop, on values uniform over [-1, 1) (as BenchmarkOpFamilies
// feeds them) and normal with σ = 3 (every branch); ns/op is per element.
func BenchmarkErfKernel(b *testing.B) {
	rng := rand.New(rand.NewSource(12))
	const n = 4096
	uniform, normal, out := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range uniform {
		uniform[i] = rng.Float32()*2 - 1
		normal[i] = float32(rng.NormFloat64() * 3)
	}
	for _, level := range []string{"scalar", "avx2", "avx512"} {
		if (level == "avx512" && !useAVX512) || (level == "avx2" && !hasFMA) {
			continue
		}
		for _, data := range []struct {
			name string
			in   []float32
		}{{"uniform", uniform}, {"normal3", normal}} {
			b.Run(data.name+"/"+level, func(b *testing.B) {
				defer vectorLevel(level)()
				for i := 0; i < b.N; i += n {
					vec.Erf(out, data.in)
				}
			})
		}
	}
}
