package interp

import "testing"

// BenchmarkLSTMModelCPU runs BenchmarkVsORT's LSTM file (2 layers of 512
// units over 64 steps) alone, reporting the median wall and CPU time of a
// run (on a busy machine the CPU time is the steadier measure of the work
// done; with -cpu 2 it counts the helper's waiting too).
func BenchmarkLSTMModelCPU(b *testing.B) {
	benchCPU(b, recurrentSegmentationModels[0])
}
