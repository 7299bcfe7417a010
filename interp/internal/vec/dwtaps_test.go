package vec

import (
	"math"
	"math/rand"
	"testing"
)

// DWTaps equals its reference bit for bit at every vector level, on runs
// of every length around the vector groups and with non-finite inputs.
func TestDWTapsMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(11))
		for trial := range 200 {
			taps := 1 + rng.Intn(49)
			n := rng.Intn(300)
			offs := make([]int32, taps)
			hi := 0
			for i := range offs {
				offs[i] = int32(rng.Intn(200))
				hi = max(hi, int(offs[i]))
			}
			src := make([]float32, hi+n+rng.Intn(3))
			for i := range src {
				src[i] = float32(rng.NormFloat64())
				if rng.Intn(500) == 0 {
					src[i] = float32(math.Inf(1 - 2*rng.Intn(2)))
				}
			}
			w := make([]float32, taps)
			for i := range w {
				w[i] = float32(rng.NormFloat64())
			}
			bias := float32(rng.NormFloat64())
			got, want := make([]float32, n), make([]float32, n)
			DWTaps(src, offs, w, bias, got)
			dwTapsRef(src, offs, w, bias, want)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("trial %d (taps %d, n %d): dst[%d] = %v, want %v", trial, taps, n, i, got[i], want[i])
				}
			}
		}
	})
}

// CopyRowsClamp equals its reference bit for bit, NaNs, signed zeros and
// row lengths around the vector included, and writes nothing else.
func TestCopyRowsClampMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(12))
		inf := float32(math.Inf(1))
		bounds := [][2]float32{{-inf, inf}, {0, 6}, {-1, 1}, {0, inf}}
		for trial := range 300 {
			rows, cols := 1+rng.Intn(6), 1+rng.Intn(50)
			lds, ldd := cols+rng.Intn(5), cols+rng.Intn(5)
			src := make([]float32, (rows-1)*lds+cols)
			for i := range src {
				src[i] = float32(rng.NormFloat64() * 3)
				switch rng.Intn(40) {
				case 0:
					src[i] = float32(math.NaN())
				case 1:
					src[i] = float32(math.Copysign(0, -1))
				}
			}
			b := bounds[trial%len(bounds)]
			got, want := make([]float32, (rows-1)*ldd+cols+1), make([]float32, (rows-1)*ldd+cols+1)
			for i := range got {
				got[i], want[i] = 7, 7
			}
			CopyRowsClamp(got, ldd, src, lds, rows, cols, b[0], b[1])
			copyRowsClampRef(want, ldd, src, lds, rows, cols, b[0], b[1])
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("trial %d (%d×%d, lds %d, ldd %d, %v): dst[%d] = %v, want %v", trial, rows, cols, lds, ldd, b, i, got[i], want[i])
				}
			}
		}
	})
}

// DeinterleaveRows equals its reference and writes nothing else.
func TestDeinterleaveRowsMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(13))
		for trial := range 300 {
			rows, w := 1+rng.Intn(5), 1+rng.Intn(100)
			lds, ldd := w+rng.Intn(5), (w+1)/2+rng.Intn(5)
			src := make([]float32, (rows-1)*lds+w)
			for i := range src {
				src[i] = float32(rng.NormFloat64())
			}
			n := (rows-1)*ldd + (w+1)/2 + 1
			ge, go_, we, wo := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			DeinterleaveRows(ge, go_, ldd, src, lds, rows, w)
			deinterleaveRowsRef(we, wo, ldd, src, lds, rows, w)
			for i := range n {
				if ge[i] != we[i] || go_[i] != wo[i] {
					t.Fatalf("trial %d (%d×%d, lds %d, ldd %d): place %d: %v %v, want %v %v", trial, rows, w, lds, ldd, i, ge[i], go_[i], we[i], wo[i])
				}
			}
		}
	})
}

// Windows whose taps come in rows of 5 or 7 consecutive offsets (the
// row-run kernels with AVX-512) equal the reference bit for bit too, on
// runs around every vector group, with and without the 16 spare values
// the kernels need (without, the taps kernel runs).
func TestDWTapsRowRunsMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(12))
		for trial := range 300 {
			l := []int{5, 7}[trial%2]
			rows := 1 + rng.Intn(l)
			ws := l - 1 + rng.Intn(30)
			offs := make([]int32, 0, rows*l)
			base := rng.Intn(3)
			for r := range rows {
				for kx := range l {
					offs = append(offs, int32(base+r*ws+kx))
				}
			}
			hi := int(offs[len(offs)-1])
			n := []int{16, 32, 48, 64, 80, 128, 144, 256, 272, 15, 100, rng.Intn(400)}[trial%12]
			spare := 16
			if trial%5 == 0 {
				spare = rng.Intn(16)
			}
			src := make([]float32, hi+n+spare)
			for i := range src {
				src[i] = float32(rng.NormFloat64())
				if rng.Intn(300) == 0 {
					src[i] = float32(math.Inf(1 - 2*rng.Intn(2)))
				}
			}
			w := make([]float32, len(offs))
			for i := range w {
				w[i] = float32(rng.NormFloat64())
			}
			bias := float32(rng.NormFloat64())
			got, want := make([]float32, n), make([]float32, n)
			DWTaps(src, offs, w, bias, got)
			dwTapsRef(src, offs, w, bias, want)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("trial %d (%d rows of %d, ws %d, n %d, spare %d): dst[%d] = %v, want %v", trial, rows, l, ws, n, spare, i, got[i], want[i])
				}
			}
		}
	})
}
