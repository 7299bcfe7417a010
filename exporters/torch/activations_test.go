package torchexport

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/npy"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// activationCases are the smooth activations, how model.py spells them,
// and their values on activationX, computed in float64 with numpy and
// rounded to float32:
//
//	softplus = np.log1p(np.exp(x)); softsign = x / (1 + np.abs(x))
//	elu(a) = np.where(x > 0, x, a * (np.exp(x) - 1))
//	selu = 1.0507009873554804934193349852946 * elu(1.6732632423543772848170429916717)
//	selu(alpha 1.5, gamma 2) = 2 * elu(1.5)
var activationCases = []struct {
	op   canon.Op
	code string
	want []float64
}{
	{&canon.Unary{Fn: canon.Softplus}, "F.softplus(", []float64{0.048587352, 0.3132617, 0.474077, 0.6931472, 0.974077, 1.3132616, 2.126928, 40, 4.248354e-18}},
	{&canon.Unary{Fn: canon.Softsign}, "F.softsign(", []float64{-0.75, -0.5, -0.33333334, 0, 0.33333334, 0.5, 0.6666667, 0.9756098, -0.9756098}},
	{&canon.Elu{Alpha: 0.25}, "F.elu(", []float64{-0.23755324, -0.15803014, -0.09836733, 0, 0.5, 1, 2, 40, -0.25}},
	{&canon.Selu{Alpha: canon.SeluAlpha, Gamma: canon.SeluGamma}, "F.selu(", []float64{-1.6705687, -1.1113307, -0.6917582, 0, 0.5253505, 1.050701, 2.101402, 42.028038, -1.7580993}},
	{&canon.Selu{Alpha: 1.5, Gamma: 2}, "2.0 * F.elu(", []float64{-2.8506389, -1.8963617, -1.180408, 0, 1, 2, 4, 80, -3}},
	{&canon.Gelu{Approximate: canon.GeluExact}, "nn.GELU()", geluWant(canon.GeluExact)},
	{&canon.Gelu{Approximate: canon.GeluTanh}, `nn.GELU(approximate="tanh")`, geluWant(canon.GeluTanh)},
}

// geluWant is Gelu on activationX in float64, from its definition.
func geluWant(a canon.GeluApprox) []float64 {
	var out []float64
	for _, x32 := range activationX {
		x := float64(x32)
		if a == canon.GeluTanh {
			out = append(out, 0.5*x*(1+math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x))))
		} else {
			out = append(out, 0.5*x*(1+math.Erf(x/math.Sqrt2)))
		}
	}
	return out
}

var activationX = []float32{-3, -1, -0.5, 0, 0.5, 1, 2, 40, -40}

func activationGraph() *canon.Graph {
	g := &canon.Graph{Name: "acts", Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(9), RankKnown: true}}}
	for i, c := range activationCases {
		name := "y" + strconv.Itoa(i)
		g.Nodes = append(g.Nodes, &canon.Node{Name: "act" + strconv.Itoa(i), Op: c.op, Inputs: []string{"x"}, Outputs: []string{name}})
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: name, DType: canon.Float32})
	}
	return g
}

func TestActivationsCode(t *testing.T) {
	mod, err := Generate(activationGraph())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range activationCases {
		if !strings.Contains(mod.Source, c.code) {
			t.Errorf("%s: model.py does not call %s...:\n%s", c.op.Kind(), c.code, mod.Source)
		}
	}
}

// TestActivationsRunInTorch runs the exported model.py with real PyTorch
// and checks the hand-computed values.
func TestActivationsRunInTorch(t *testing.T) {
	python := testfix.Torch(t, "numpy")
	dir := filepath.Join(t.TempDir(), "acts")
	if _, err := Export(activationGraph(), dir); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "x.npy")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(f, canon.NewFloat32Tensor("x", []int64{9}, activationX)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	script := `
import importlib.util, sys
import numpy as np, torch
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("acts_model", d + "/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
m = mod.Model()
m.load_state_dict(torch.load(d + "/weights.pt"), strict=True)
with torch.no_grad():
    outs = m(torch.from_numpy(np.load(d + "/x.npy")))
for i, o in enumerate(outs):
    np.save(d + "/y%d.npy" % i, o.numpy())
`
	if out, err := exec.Command(python, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("PyTorch failed on the exported model: %v\n%s", err, out)
	}
	for i, c := range activationCases {
		got, err := npy.ReadFile(filepath.Join(dir, "y"+strconv.Itoa(i)+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := got.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range c.want {
			if math.Abs(v[k]-w) > 1e-6*(1+math.Abs(w)) {
				t.Errorf("%s (%s...): element %d = %v, want %v", c.op.Kind(), c.code, k, v[k], w)
			}
		}
	}
}
