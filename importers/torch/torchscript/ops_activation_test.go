package torchscript

import (
	"archive/zip"
	"math"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/interp"
)

// TestActivationFamily imports forward bodies as torch.jit.trace writes
// them for nn.CELU, nn.Mish, nn.Threshold, nn.Hardshrink, nn.Softshrink,
// nn.LogSoftmax and torch.einsum, and checks the values PyTorch 1.13
// computes in float64 on x = [-3, -1, -0.5, 0, 2, 40, -40].
func TestActivationFamily(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{7}, []float32{-3, -1, -0.5, 0, 2, 40, -40})
	cases := []struct {
		body string
		kind string
		want []float64
	}{
		{"torch.celu(x, 0.69999999999999996)", "Celu", []float64{-0.690365349, -0.532244274, -0.357320838, 0, 2, 40, -0.7}},
		{"torch.mish(x)", "Mish", []float64{-0.145647461, -0.303401461, -0.220743775, 0, 1.94395896, 40, -1.6993417e-16}},
		{"torch.threshold(x, 0.29999999999999999, 0.)", "Where", []float64{0, 0, 0, 0, 2, 40, 0}},
		{"torch.hardshrink(x, 0.40000000000000002)", "Shrink", []float64{-3, -1, -0.5, 0, 2, 40, -40}},
		{"torch.softshrink(x, 0.20000000000000001)", "Shrink", []float64{-2.8, -0.8, -0.3, 0, 1.8, 39.8, -39.8}},
		{"torch.log_softmax(x, 0)", "LogSoftmax", []float64{-43, -41, -40.5, -40, -38, 0, -80}},
		{"torch.log_softmax(x, -1, None)", "LogSoftmax", []float64{-43, -41, -40.5, -40, -38, 0, -80}},
		{"torch.einsum(\"i,i->\", [x, x])", "Einsum", []float64{3214.25}},
		{"torch.einsum(\"i\", [x])", "Einsum", []float64{-3, -1, -0.5, 0, 2, 40, -40}},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource("    return " + c.body + "\n")}, zip.Store)
			g, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {7}}})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			var kinds []string
			for _, n := range g.Nodes {
				kinds = append(kinds, n.Op.Kind())
			}
			if !strings.Contains(strings.Join(kinds, " "), c.kind) {
				t.Errorf("nodes %v, want a %s", kinds, c.kind)
			}
			outs, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := outs[g.Outputs[0].Name].Float64s()
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i, w := range c.want {
				if math.Abs(got[i]-w) > 1e-5*(1+math.Abs(w)) {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

// TestThresholdWithValue: threshold(x, t, v) with v != 0 is v where
// x <= t and x elsewhere (PyTorch 1.13's values).
func TestThresholdWithValue(t *testing.T) {
	p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource("    return torch.threshold(x, 0.5, 2.)\n")}, zip.Store)
	g, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {7}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	x := canon.NewFloat32Tensor("x", []int64{7}, []float32{-3, -1, -0.5, 0, 2, 40, -40})
	outs, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := outs[g.Outputs[0].Name].Float64s()
	want := []float64{2, 2, 2, 2, 2, 40, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// torch.threshold keeps NaN (NaN <= t is false), also with value 0, where
// ONNX's ThresholdedRelu would give 0.
func TestThresholdKeepsNaN(t *testing.T) {
	p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource("    return torch.threshold(x, 0.29999999999999999, 0.)\n")}, zip.Store)
	g, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {3}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	x := canon.NewFloat32Tensor("x", []int64{3}, []float32{float32(math.NaN()), 0.2, 1})
	outs, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := outs[g.Outputs[0].Name].Float64s()
	if !math.IsNaN(got[0]) || got[1] != 0 || got[2] != 1 {
		t.Errorf("threshold([NaN 0.2 1], 0.3, 0) = %v, want [NaN 0 1]", got)
	}
}
