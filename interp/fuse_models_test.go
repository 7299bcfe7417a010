package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// The benchmark models whose exports the elementwise fusions were made
// for (convnext_tiny: LayerNorm chains behind permutes; efficientnet_b0:
// SiLU; deeplabv3_mobilenet_v3_large: HardSwish) give the same outputs bit
// for bit with the fusions as without them. Skipped without the files
// (testdata/make_bench_models.py) or with -short.
func TestBenchModelsFusedExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: runs three models twice")
	}
	defer func() { fuseEpilogues = true }()
	for _, m := range vsORTRowsFused {
		t.Run(m.name, func(t *testing.T) {
			g, _ := benchModel(t, m.env, m.def)
			in := map[string]*canon.Tensor{g.Inputs[0].Name: randTensor(rand.New(rand.NewSource(4)), "x", ints(m.shape)...)}
			var outs [2][]float64
			var steps [2]int
			for k, fuse := range []bool{false, true} {
				fuseEpilogues = fuse
				p, err := New(g)
				if err != nil {
					t.Fatal(err)
				}
				steps[k] = len(p.steps)
				o, err := p.Run(in)
				if err != nil {
					t.Fatal(err)
				}
				outs[k], _ = o[g.Outputs[0].Name].Float64s()
			}
			t.Logf("%d steps unfused, %d fused", steps[0], steps[1])
			for i := range outs[0] {
				a, b := outs[0][i], outs[1][i]
				if math.Float64bits(a) != math.Float64bits(b) && !(a != a && b != b) {
					t.Fatalf("output[%d] = %v fused, %v unfused", i, b, a)
				}
			}
		})
	}
}

var vsORTRowsFused = []vsORTModel{
	{"ConvNeXtTiny", "MODELBRIDGE_CONVNEXT_TINY_ONNX", "/tmp/convnext_tiny.onnx", []int64{1, 3, 224, 224}},
	{"EfficientNetB0", "MODELBRIDGE_EFFICIENTNETB0_ONNX", "/tmp/efficientnet_b0.onnx", []int64{1, 3, 224, 224}},
	{"DeepLabV3MobileNetV3", "MODELBRIDGE_DEEPLABV3_ONNX", "/tmp/deeplabv3_mobilenet_v3_large.onnx", []int64{1, 3, 256, 256}},
}
