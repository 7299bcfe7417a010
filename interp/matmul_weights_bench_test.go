package interp

import (
	"fmt"
	"math/rand"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGemmWeights compares, on a transformer's projection shapes,
// gemm (B copied into packed panels on every call) with gemmByWeights (B
// read in place), in alternation; it reports each one's median wall time
// and CPU time per call (CPU time is steadier on a busy machine).
func BenchmarkGemmWeights(b *testing.B) {
	for _, s := range []struct{ m, k, n int }{{197, 768, 2304}, {197, 768, 3072}, {197, 3072, 768}, {128, 768, 768}} {
		r := rand.New(rand.NewSource(1))
		a, w, c := make([]float32, s.m*s.k), make([]float32, s.k*s.n), make([]float32, s.m*s.n)
		for i := range a {
			a[i] = r.Float32()
		}
		for i := range w {
			w[i] = r.Float32()
		}
		b.Run(fmt.Sprintf("%dx%dx%d", s.m, s.k, s.n), func(b *testing.B) {
			ways := []func(){
				func() { gemm(false, false, s.m, s.n, s.k, 1, a, s.k, w, s.n, c, s.n, 0) },
				func() { gemmByWeights(s.m, s.n, s.k, a, w, nil, c, &matMulEp{}) },
			}
			var wall, cpu [2][]float64
			for range b.N {
				for i, f := range ways {
					t0, c0 := time.Now(), cpuTime()
					f()
					wall[i] = append(wall[i], float64(time.Since(t0).Microseconds())/1000)
					cpu[i] = append(cpu[i], float64((cpuTime()-c0).Microseconds())/1000)
				}
			}
			b.ReportMetric(median(wall[0]), "packed-ms")
			b.ReportMetric(median(wall[1]), "inplace-ms")
			b.ReportMetric(median(cpu[0]), "packed-cpu-ms")
			b.ReportMetric(median(cpu[1]), "inplace-cpu-ms")
		})
	}
}
