package interp

import (
	"testing"
	"time"
)

// transformerVsORT are BenchmarkVsORT's transformer rows, made by
// testdata/make_bench_transformers.py.
var transformerVsORT = []vsORTModel{
	{"ViT_B16", "MODELBRIDGE_VIT_B16_ONNX", "/tmp/vit_b_16.onnx", []int64{1, 3, 224, 224}},
	{"BERTEncoder", "MODELBRIDGE_BERT_ENCODER_ONNX", "/tmp/bert_encoder.onnx", []int64{1, 128, 768}},
}

// vsORTRuns is how many runs each side of a BenchmarkVsORT round takes for
// a model that ran once in one: 20, or as many as fill about 2 s, at least 3,
// so that the large models' rounds stay short.
func vsORTRuns(one time.Duration) int {
	return max(3, min(20, int(2*time.Second/max(one, time.Millisecond))))
}

// BenchmarkTransformersONNX runs the transformer models in the interpreter
// alone (for profiles: -cpuprofile, -cpu 1).
func BenchmarkTransformersONNX(b *testing.B) {
	for _, m := range transformerVsORT {
		b.Run(m.name, func(b *testing.B) { benchONNX(b, m.env, m.def, m.shape...) })
	}
}
