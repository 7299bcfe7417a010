package interp

import "testing"

// recurrentSegmentationModels are BenchmarkVsORT's recurrent, segmentation
// and large-kernel rows (testdata/make_bench_models.py makes them): a
// 2-layer LSTM of 512 units over 64 steps (torch2's tiny_lstm scaled up),
// deeplabv3 on mobilenet_v3_large at 256² (bilinear Resize, SE blocks,
// HardSwish), efficientnet_b0 (5×5 and strided depthwise, SE, SiLU) and
// convnext_tiny (7×7 depthwise, LayerNorm over channels after permutes).
var recurrentSegmentationModels = []vsORTModel{
	{"LSTMh512s64", "MODELBRIDGE_LSTM_ONNX", "/tmp/lstm_h512_s64.onnx", []int64{1, 64, 256}},
	{"DeepLabV3MobileNetV3", "MODELBRIDGE_DEEPLABV3_ONNX", "/tmp/deeplabv3_mobilenet_v3_large.onnx", []int64{1, 3, 256, 256}},
	{"EfficientNetB0", "MODELBRIDGE_EFFICIENTNETB0_ONNX", "/tmp/efficientnet_b0.onnx", []int64{1, 3, 224, 224}},
	{"ConvNeXtTiny", "MODELBRIDGE_CONVNEXT_TINY_ONNX", "/tmp/convnext_tiny.onnx", []int64{1, 3, 224, 224}},
}

// BenchmarkRecurrentSegmentationONNX runs the same files in the interpreter
// alone (for -cpuprofile).
func BenchmarkRecurrentSegmentationONNX(b *testing.B) {
	for _, m := range recurrentSegmentationModels {
		b.Run(m.name, func(b *testing.B) { benchONNX(b, m.env, m.def, m.shape...) })
	}
}
