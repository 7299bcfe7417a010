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

// TestSmoothActivations imports forward bodies as torch.jit.trace and
// torch.jit.script write them for nn.Softplus, nn.ELU, nn.SELU and the
// in-place forms, and checks values computed in float64 with numpy on
// x = [-3, -1, -0.5, 0, 2, 40, -40] (rounded to float32), softplus with
// beta and threshold by PyTorch 1.13 in float64:
//
//	softplus = np.log1p(np.exp(x)); elu(a) = np.where(x > 0, x, a * (np.exp(x) - 1))
//	selu = 1.0507009873554804934193349852946 * elu(1.6732632423543772848170429916717)
//	torch.elu(x, 0.5, 2.) = 2 * elu(0.5)
func TestSmoothActivations(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{7}, []float32{-3, -1, -0.5, 0, 2, 40, -40})
	cases := []struct {
		body string
		kind string
		want []float64
	}{
		{"torch.softplus(x)", "Softplus", []float64{0.048587352, 0.3132617, 0.474077, 0.6931472, 2.126928, 40, 4.248354e-18}},
		{"torch.softplus(x, 1, 20)", "Softplus", []float64{0.048587352, 0.3132617, 0.474077, 0.6931472, 2.126928, 40, 4.248354e-18}},
		{"torch.softplus(x, 2, 10)", "Where", []float64{0.00123784257, 0.0634640055, 0.156630844, 0.34657359, 2.00907496, 40, 9.02425694e-36}},
		{"torch.softplus(x, 1, 5)", "Where", []float64{0.0485873516, 0.313261688, 0.474076984, 0.693147181, 2.12692801, 40, 4.24835426e-18}},
		{"torch.elu(x)", "Elu", []float64{-0.95021296, -0.63212055, -0.39346933, 0, 2, 40, -1}},
		{"torch.elu(x, 0.5)", "Elu", []float64{-0.47510648, -0.31606027, -0.19673467, 0, 2, 40, -0.5}},
		{"torch.elu_(torch.mul(x, 1), 0.5)", "Elu", []float64{-0.47510648, -0.31606027, -0.19673467, 0, 2, 40, -0.5}},
		{"torch.elu(x, 0.5, 2.)", "Selu", []float64{-0.95021296, -0.63212055, -0.39346933, 0, 4, 80, -1}},
		{"torch.selu(x)", "Selu", []float64{-1.6705687, -1.1113307, -0.6917582, 0, 2.101402, 42.028038, -1.7580993}},
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
			for i, w := range c.want {
				if math.Abs(got[i]-w) > 1e-6*(1+math.Abs(w)) {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

// TestSmoothActivationRefusals: forms whose result differs from the
// canonical ops are refused by name, not approximated.
func TestSmoothActivationRefusals(t *testing.T) {
	for body, want := range map[string]string{
		"torch.elu(x, 1., 1., 0.5)": "elu with input_scale=0.5 is not supported",
	} {
		p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource("    return " + body + "\n")}, zip.Store)
		g, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {7}}})
		if err == nil {
			g.Close()
			t.Errorf("%s: imported, want an error containing %q", body, want)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not contain %q", body, err, want)
		}
	}
}
