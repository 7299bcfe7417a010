package interp

import "testing"

// BenchmarkConvModelsCPU is BenchmarkCNNsCPU for BenchmarkVsORT's
// depthwise-heavy rows: deeplabv3_mobilenet_v3_large, efficientnet_b0 and
// convnext_tiny (CPU time a run: the steadier measure on a busy machine).
func BenchmarkConvModelsCPU(b *testing.B) {
	for _, m := range recurrentSegmentationModels[1:] {
		b.Run(m.name, func(b *testing.B) { benchCPU(b, m) })
	}
}
