package mxnetimport

import (
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/interp"
)

// activationsSym applies every smooth MXNet activation to data, one head
// each. selu carries a slope that MXNet ignores for SELU.
const activationsSym = `{
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "Activation", "name": "softrelu", "attrs": {"act_type": "softrelu"}, "inputs": [[0, 0, 0]]},
    {"op": "Activation", "name": "softsign", "attrs": {"act_type": "softsign"}, "inputs": [[0, 0, 0]]},
    {"op": "LeakyReLU", "name": "elu_default", "attrs": {"act_type": "elu"}, "inputs": [[0, 0, 0]]},
    {"op": "LeakyReLU", "name": "elu_slope", "attrs": {"act_type": "elu", "slope": "1.5"}, "inputs": [[0, 0, 0]]},
    {"op": "LeakyReLU", "name": "selu", "attrs": {"act_type": "selu", "slope": "0.9"}, "inputs": [[0, 0, 0]]}
  ],
  "arg_nodes": [0],
  "node_row_ptr": [0, 1, 2, 3, 4, 5, 6],
  "heads": [[1, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0]],
  "attrs": {"mxnet_version": ["int", 10300]}
}`

// TestSmoothActivations runs the activations on
// x = [-3, -1, -0.5, 0, 0.5, 1, 2, 40, -40] and checks values computed
// independently in float64 with numpy (rounded to float32):
//
//	softrelu = np.log1p(np.exp(x)); softsign = x / (1 + np.abs(x))
//	elu(s)   = np.where(x > 0, x, s * (np.exp(x) - 1))   # MXNet's default slope is 0.25
//	selu     = 1.0507009873554804934193349852946 * elu(1.6732632423543772848170429916717)
func TestSmoothActivations(t *testing.T) {
	sym := checkpoint(t, activationsSym, nil)
	g, err := Read(sym, formats.ReadOptions{InputShapes: map[string][]int64{"data": {9}}})
	if err != nil {
		t.Fatal(err)
	}
	wantOps := []canon.Op{
		&canon.Unary{Fn: canon.Softplus}, &canon.Unary{Fn: canon.Softsign},
		&canon.Elu{Alpha: 0.25}, &canon.Elu{Alpha: 1.5}, &canon.Selu{Alpha: canon.SeluAlpha, Gamma: canon.SeluGamma},
	}
	for i, n := range g.Nodes {
		if n.Op.Kind() != wantOps[i].Kind() {
			t.Fatalf("node %d is %s, want %s", i, n.Op.Kind(), wantOps[i].Kind())
		}
	}
	x := f32s([]int64{9}, -3, -1, -0.5, 0, 0.5, 1, 2, 40, -40)
	out, err := interp.Run(g, map[string]*canon.Tensor{"data": x})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{0.048587352, 0.3132617, 0.474077, 0.6931472, 0.974077, 1.3132616, 2.126928, 40, 4.248354e-18},
		{-0.75, -0.5, -0.33333334, 0, 0.33333334, 0.5, 0.6666667, 0.9756098, -0.9756098},
		{-0.23755324, -0.15803014, -0.09836733, 0, 0.5, 1, 2, 40, -0.25},
		{-1.4253194, -0.94818085, -0.590204, 0, 0.5, 1, 2, 40, -1.5},
		{-1.6705687, -1.1113307, -0.6917582, 0, 0.5253505, 1.050701, 2.101402, 42.028038, -1.7580993},
	}
	for i, w := range want {
		name := g.Outputs[i].Name
		v, err := out[name].Float64s()
		if err != nil {
			t.Fatal(err)
		}
		for k := range w {
			if math.Abs(v[k]-w[k]) > 1e-6*(1+math.Abs(w[k])) {
				t.Errorf("%s: element %d = %v, want %v", name, k, v[k], w[k])
			}
		}
	}
}
