package interp

import (
	"math/rand"
	"syscall"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
)

// processCPU is the CPU time the process has used: on a machine other
// processes load, a benchmark's CPU time per op (reported beside the wall
// time) still says what the work costs.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU runs f b.N times and reports its CPU time per op.
func reportCPU(b *testing.B, f func()) {
	b.Helper()
	c0 := processCPU()
	for range b.N {
		f()
	}
	b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
}

// profiledModel is the Program of the ONNX file at
// $MODELBRIDGE_PROFILE_ONNX and random values for its first input at its
// static shape, run twice already (Winograd weights are made on the second
// run).
func profiledModel(b *testing.B) (*Program, map[string]*canon.Tensor) {
	b.Helper()
	g, _ := benchModel(b, "MODELBRIDGE_PROFILE_ONNX", "")
	p, err := New(g)
	if err != nil {
		b.Fatal(err)
	}
	in := g.Inputs[0]
	dims, ok := in.StaticShape()
	if !ok {
		b.Skipf("skipping: input %q has no static shape", in.Name)
	}
	inputs := map[string]*canon.Tensor{in.Name: randTensor(rand.New(rand.NewSource(7)), "x", ints(dims)...)}
	for range 2 { // Winograd weights are made on the second run
		if _, err := p.Run(inputs); err != nil {
			b.Fatal(err)
		}
	}
	return p, inputs
}

// BenchmarkModelCPU runs the ONNX file at $MODELBRIDGE_PROFILE_ONNX (its
// first input at its static shape, random values) and reports the CPU time
// a run takes beside the wall time: on a loaded machine the CPU time of
// two builds, run alternately, compares them where the wall time cannot.
func BenchmarkModelCPU(b *testing.B) {
	p, inputs := profiledModel(b)
	b.ResetTimer()
	reportCPU(b, func() {
		if _, err := p.Run(inputs); err != nil {
			b.Fatal(err)
		}
	})
}
