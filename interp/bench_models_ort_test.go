package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// The recurrent, segmentation and large-kernel benchmark models (made by
// testdata/make_bench_models.py) give ONNX Runtime's outputs: the paths
// they take (block depthwise, packed constant operands, fused gates,
// cropped dilated windows, Resize by rows) compute the exported models'
// numbers. Each runs twice, since some paths start on the second run.
func TestBenchModelsMatchORT(t *testing.T) {
	rt := testfix.ORT(t)
	for _, m := range recurrentSegmentationModels {
		t.Run(m.name, func(t *testing.T) {
			g, path := benchModel(t, m.env, m.def)
			in := randTensor(rand.New(rand.NewSource(7)), g.Inputs[0].Name, ints(m.shape)...)
			want, err := rt.Run(path, []*canon.Tensor{in}, ort.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(g)
			if err != nil {
				t.Fatal(err)
			}
			for run := range 2 {
				got, err := p.Run(map[string]*canon.Tensor{g.Inputs[0].Name: in})
				if err != nil {
					t.Fatal(err)
				}
				for i, o := range g.Outputs {
					a, _ := got[o.Name].Float64s()
					b, _ := want[i].Float64s()
					if len(a) != len(b) {
						t.Fatalf("%s: %d values, ONNX Runtime gives %d", o.Name, len(a), len(b))
					}
					scale, worst := 0.0, 0.0
					for j := range b {
						scale = max(scale, math.Abs(b[j]))
						worst = max(worst, math.Abs(a[j]-b[j]))
					}
					t.Logf("run %d, %s: largest difference from ONNX Runtime %.3g, outputs up to %.3g", run, o.Name, worst, scale)
					if !(worst <= 1e-5*scale) {
						t.Errorf("run %d, %s: differs from ONNX Runtime by up to %g (outputs up to %g)", run, o.Name, worst, scale)
					}
				}
			}
		})
	}
}
