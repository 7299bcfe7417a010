package interp

import (
	"math/rand"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
)

// transformerVsORT are BenchmarkVsORT's transformer rows, made by
// testdata/make_bench_transformers.py.
var transformerVsORT = []vsORTModel{
	{"ViT_B16", "MODELBRIDGE_VIT_B16_ONNX", "/tmp/vit_b_16.onnx", []int64{1, 3, 224, 224}},
	{"BERTEncoder", "MODELBRIDGE_BERT_ENCODER_ONNX", "/tmp/bert_encoder.onnx", []int64{1, 128, 768}},
}

// BenchmarkTransformersONNX runs the transformer models in the interpreter
// alone (for profiles: -cpuprofile, -cpu 1), reporting the median wall
// and CPU time of a run (the process's user+system time: on a busy machine
// the steadier measure of the work done) and the peak RSS.
func BenchmarkTransformersONNX(b *testing.B) {
	for _, m := range transformerVsORT {
		b.Run(m.name, func(b *testing.B) { benchCPU(b, m) })
	}
}

// BenchmarkCNNsCPU is BenchmarkTransformersONNX for BenchmarkVsORT's CNNs.
func BenchmarkCNNsCPU(b *testing.B) {
	for _, m := range []vsORTModel{
		{"ResNet18", "MODELBRIDGE_RESNET18_ONNX", "/tmp/resnet18.onnx", []int64{1, 3, 224, 224}},
		{"MobileNetV2", "MODELBRIDGE_MOBILENETV2_ONNX", "/tmp/mobilenet_v2.onnx", []int64{1, 3, 224, 224}},
		{"ResNeXtBlock", "MODELBRIDGE_RESNEXT_BLOCK_ONNX", "/tmp/resnext50_block.onnx", []int64{1, 256, 56, 56}},
	} {
		b.Run(m.name, func(b *testing.B) { benchCPU(b, m) })
	}
}

// benchCPU runs m b.N times after two warm-up runs (Winograd weights are
// made on the second) and reports the median wall and CPU time of a run.
func benchCPU(b *testing.B, m vsORTModel) {
	g, _ := benchModel(b, m.env, m.def)
	p, err := New(g)
	if err != nil {
		b.Fatal(err)
	}
	inputs := map[string]*canon.Tensor{g.Inputs[0].Name: randTensor(rand.New(rand.NewSource(7)), "x", ints(m.shape)...)}
	var wall, cpu []float64
	for i := range b.N + 2 {
		t0, c0 := time.Now(), cpuTime()
		if _, err := p.Run(inputs); err != nil {
			b.Fatal(err)
		}
		if i >= 2 {
			wall = append(wall, float64(time.Since(t0).Microseconds())/1000)
			cpu = append(cpu, float64((cpuTime()-c0).Microseconds())/1000)
		}
	}
	b.ReportMetric(median(wall), "ms/op")
	b.ReportMetric(median(cpu), "cpu-ms/op")
	b.ReportMetric(peakMB(), "peak-MB")
}
