package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestTransformersAgainstORT runs BenchmarkVsORT's transformer models (made
// by testdata/make_bench_transformers.py; skipped when absent) with the
// attention and weight-MatMul fusions, checks that the fusions took every
// layer's attention and projections, that the unfused plan gives the same
// numbers bit for bit, and that ONNX Runtime (all optimizations off) agrees
// within float32 rounding over 12 layers.
func TestTransformersAgainstORT(t *testing.T) {
	rt := testfix.ORT(t)
	for _, m := range transformerVsORT {
		t.Run(m.name, func(t *testing.T) {
			g, path := benchModel(t, m.env, m.def)
			in := randTensor(rand.New(rand.NewSource(11)), g.Inputs[0].Name, ints(m.shape)...)
			fused, err := New(g)
			if err != nil {
				t.Fatal(err)
			}
			attn, weights := 0, 0
			for _, s := range fused.steps {
				switch {
				case len(s.in) == 4 && len(s.node.Inputs) == 2 && p0Const(fused, s, 1):
					weights++
				case len(s.in) == 4:
					attn++
				}
			}
			if attn != 12 || weights < 12*3 {
				t.Errorf("fused plan has %d attention steps and %d weight MatMuls, want 12 and at least 36", attn, weights)
			}
			got, err := fused.Run(map[string]*canon.Tensor{in.Name: in})
			if err != nil {
				t.Fatal(err)
			}
			fuseEpilogues = false
			plain, err := New(g)
			fuseEpilogues = true
			if err != nil {
				t.Fatal(err)
			}
			want, err := plain.Run(map[string]*canon.Tensor{in.Name: in})
			if err != nil {
				t.Fatal(err)
			}
			name := g.Outputs[0].Name
			gf, _ := got[name].Float64s()
			wf, _ := want[name].Float64s()
			for i := range wf {
				if math.Float64bits(gf[i]) != math.Float64bits(wf[i]) {
					t.Fatalf("%s[%d] = %g fused, %g unfused", name, i, gf[i], wf[i])
				}
			}
			outs, err := rt.Run(path, []*canon.Tensor{in}, ort.Options{Level: "disabled"})
			if err != nil {
				t.Fatal(err)
			}
			of, err := outs[0].Float64s()
			if err != nil || len(of) != len(gf) {
				t.Fatalf("ONNX Runtime gave %d values (%v), want %d", len(of), err, len(gf))
			}
			var worst, scale float64
			for i := range of {
				worst = max(worst, math.Abs(gf[i]-of[i]))
				scale = max(scale, math.Abs(of[i]))
			}
			t.Logf("largest difference from ONNX Runtime %.3g on outputs up to %.3g", worst, scale)
			if worst > 1e-4*max(scale, 1) {
				t.Errorf("largest difference from ONNX Runtime %.3g on outputs up to %.3g", worst, scale)
			}
		})
	}
}

// p0Const reports that step s's input k is a constant.
func p0Const(p *Program, s *step, k int) bool { return s.in[k] >= 0 && p.consts[s.in[k]] != nil }
