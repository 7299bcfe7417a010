package interp

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// threadCPU is the calling thread's CPU time in seconds.
func threadCPU() float64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return float64(ts.Sec) + float64(ts.Nsec)/1e9
}

// BenchmarkGemmWeightsCold runs gemmByWeights on one thread over a
// transformer's projection shapes as a run meets them: each call with
// another weight matrix, the set of them larger than the L3 cache, so the
// weights come from memory (WARM=1: one matrix, from the caches). It
// reports GFLOP per second of the thread's CPU time (the steadier measure
// on a shared machine; the 16×16 kernel's ceiling with everything in L1
// is vec's BenchmarkKernel16), with weights whose rows are a multiple of
// 512 floats long packed in blocks (packed) and, in alternation, read in
// place (inplace; the other shapes take the same path both ways).
func BenchmarkGemmWeightsCold(b *testing.B) {
	for _, s := range []struct{ m, k, n int }{{197, 768, 2304}, {197, 768, 768}, {197, 768, 3072}, {197, 3072, 768}, {128, 768, 768}} {
		r := rand.New(rand.NewSource(1))
		a, c := make([]float32, s.m*s.k), make([]float32, s.m*s.n)
		for i := range a {
			a[i] = r.Float32()
		}
		copies := max(2, (64<<20)/(4*s.k*s.n)+1)
		if os.Getenv("WARM") != "" {
			copies = 1
		}
		ws := make([][]float32, copies)
		pres := make([]*packedB, copies)
		for i := range ws {
			ws[i] = make([]float32, s.k*s.n)
			for j := range ws[i] {
				ws[i][j] = r.Float32()
			}
			pres[i] = newPackedB(false, ws[i], s.k, s.n)
		}
		b.Run(fmt.Sprintf("%dx%dx%d", s.m, s.k, s.n), func(b *testing.B) {
			old := runtime.GOMAXPROCS(1)
			defer runtime.GOMAXPROCS(old)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var t [3]float64
			for i := range b.N {
				for v := range 3 {
					packAliasedWeights = v == 1
					var pre *packedB
					if v == 2 {
						pre = pres[(3*i+v)%copies]
					}
					t0 := threadCPU()
					gemmByWeights(s.m, s.n, s.k, a, ws[(3*i+v)%copies], pre, c, &matMulEp{})
					t[v] += threadCPU() - t0
				}
			}
			packAliasedWeights = true
			fl := 2 * float64(s.m*s.n*s.k) * float64(b.N) / 1e9
			b.ReportMetric(fl/t[0], "inplace-GFLOP/cpu-s")
			b.ReportMetric(fl/t[1], "packed-GFLOP/cpu-s")
			b.ReportMetric(fl/t[2], "prepacked-GFLOP/cpu-s")
		})
	}
}
