package torchexport

import (
	endian "encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/interp"
)

// TestMathDTypesRunInTorch runs model.py on the dtypes the float32
// examples miss: Abs, Neg and Sign on int8 (wrapping: Abs of -128 is
// -128), and float16 Exp, Round and Erf, which PyTorch 1.13 has no CPU
// kernel for and model.py computes in float32.
func TestMathDTypesRunInTorch(t *testing.T) {
	py := torchPython(t)
	i8 := &canon.Tensor{Name: "xi", DType: canon.Int8, Shape: []int64{6}, Data: []byte{0x80, 0x81, 0, 5, 0xfd, 0x7f}}
	hv := []float32{0.5, 1.5, 2.5, -0.5, -1.25, 3.75}
	h := &canon.Tensor{Name: "xh", DType: canon.Float16, Shape: []int64{6}, Data: make([]byte, 12)}
	for i, v := range hv {
		endian.LittleEndian.PutUint16(h.Data[2*i:], canon.Float32ToHalf(v))
	}
	g := &canon.Graph{Name: "math_dtypes", Inputs: []canon.ValueInfo{
		{Name: "xi", DType: canon.Int8, Shape: canon.DimsOf(6), RankKnown: true},
		{Name: "xh", DType: canon.Float16, Shape: canon.DimsOf(6), RankKnown: true},
	}}
	add := func(op canon.Op, in string) {
		out := fmt.Sprintf("y%d", len(g.Nodes))
		g.Nodes = append(g.Nodes, &canon.Node{Name: out, Op: op, Inputs: []string{in}, Outputs: []string{out}})
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: out})
	}
	for _, fn := range []canon.MathFn{canon.MathAbs, canon.MathNeg, canon.MathSign} {
		add(&canon.Math{Fn: fn}, "xi")
	}
	for _, fn := range []canon.MathFn{canon.MathExp, canon.MathRound, canon.MathErf, canon.MathAbs} {
		add(&canon.Math{Fn: fn}, "xh")
	}
	add(&canon.IsInf{DetectNegative: true}, "xh")
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	for i := range g.Outputs {
		v := g.Values.Get(g.Outputs[i].Name)
		v.Name = g.Outputs[i].Name
		g.Outputs[i] = v
	}
	inputs := map[string]*canon.Tensor{"xi": i8, "xh": h}
	want, err := interp.Run(g, inputs)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "math")
	if _, err := Export(g, dir); err != nil {
		t.Fatal(err)
	}
	for name, x := range inputs {
		if err := writeNpy(filepath.Join(dir, name+".npy"), x); err != nil {
			t.Fatal(err)
		}
	}
	script := `
import importlib.util, sys
import numpy as np, torch
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("math_model", d + "/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
m = mod.Model()
m.load_state_dict(torch.load(d + "/weights.pt"), strict=True)
with torch.no_grad():
    outs = m(torch.from_numpy(np.load(d + "/xi.npy")), torch.from_numpy(np.load(d + "/xh.npy")))
for i, o in enumerate(outs):
    np.save(d + "/out%d.npy" % i, np.ascontiguousarray(o.numpy()))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("PyTorch failed on the exported model: %v\n%s", err, out)
	}
	for i, o := range g.Outputs {
		got, err := npy.ReadFile(filepath.Join(dir, fmt.Sprintf("out%d.npy", i)))
		if err != nil {
			t.Fatal(err)
		}
		w := want[o.Name]
		if got.DType != w.DType {
			t.Errorf("output %s: dtype %s, want %s", o.Name, got.DType, w.DType)
			continue
		}
		res, err := compare.Tensors(got, w, 0, 0)
		if err != nil || !res.OK {
			t.Errorf("output %s (%s) differs from the interpreter: %v %+v", o.Name, g.Nodes[i].Op.Kind(), err, res)
		}
	}
}
