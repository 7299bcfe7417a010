package vec

import (
	"fmt"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// threadCPU is the calling thread's CPU time in seconds: on a machine
// shared with other load, FLOPs per CPU second measure a kernel where
// wall time measures the neighbours.
func threadCPU() float64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return float64(ts.Sec) + float64(ts.Nsec)/1e9
}

// BenchmarkKernel16 times the 16×16 micro-kernel alone with A and B in L1
// (packed B, k = 256), and with B read in place at a transformer's row
// strides, reporting GFLOP per CPU second: the ceiling the GEMMs are
// measured against.
func BenchmarkKernel16(b *testing.B) {
	const k = 256
	for _, ldb := range []int{16, 768, 2304, 3072} {
		a := make([]float32, 16*k)
		w := make([]float32, k*ldb)
		c := make([]float32, 16*16)
		for i := range a {
			a[i] = 1
		}
		b.Run(fmt.Sprintf("ldb%d", ldb), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t0 := threadCPU()
			for range b.N {
				Kernel16(16, k, a, w, ldb, c, 16, true, ldb > 16)
			}
			b.ReportMetric(2*16*16*k*float64(b.N)/(threadCPU()-t0)/1e9, "GFLOP/cpu-s")
		})
	}
}

// BenchmarkKernel16Stream is BenchmarkKernel16 with packed B in L1 and A
// streamed from L2 (13 panels of 16 rows, as vit_b_16's 197 rows), C far
// apart or in L1.
func BenchmarkKernel16Stream(b *testing.B) {
	const k, panels = 256, 13
	for _, ldc := range []int{16, 768, 2304, 3072, 3088} {
		a := make([]float32, panels*16*k)
		w := make([]float32, k*16)
		c := make([]float32, panels*16*ldc)
		b.Run(fmt.Sprintf("ldc%d", ldc), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t0 := threadCPU()
			for i := range b.N {
				p := i % panels
				cp := c[:16*16]
				if ldc > 16 {
					cp = c[p*16*ldc:]
				}
				Kernel16(16, k, a[p*16*k:], w, 16, cp, ldc, true, ldc > 16)
			}
			b.ReportMetric(2*16*16*k*float64(b.N)/(threadCPU()-t0)/1e9, "GFLOP/cpu-s")
		})
	}
}

// BenchmarkKernel16Both is BenchmarkKernel16Stream (C rows 3088 floats
// apart) with B read in place, ldb floats a row, as the weight GEMMs do.
func BenchmarkKernel16Both(b *testing.B) {
	const k, panels, ldc = 256, 13, 3088
	for _, ldb := range []int{16, 768, 2304, 3072} {
		a := make([]float32, panels*16*k)
		w := make([]float32, k*ldb)
		c := make([]float32, panels*16*ldc)
		b.Run(fmt.Sprintf("ldb%d", ldb), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t0 := threadCPU()
			for i := range b.N {
				p := i % panels
				Kernel16(16, k, a[p*16*k:], w, ldb, c[p*16*ldc:], ldc, true, true)
			}
			b.ReportMetric(2*16*16*k*float64(b.N)/(threadCPU()-t0)/1e9, "GFLOP/cpu-s")
		})
	}
}
