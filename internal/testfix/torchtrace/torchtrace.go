// Package torchtrace checks an importer against PyTorch itself: a test
// gives a short PyTorch 1.13 script, PyTorch traces it and runs it, and the
// import of the traced file must compute PyTorch's outputs, in modelbridge's
// interpreter and (exported to ONNX) in ONNX Runtime.
//
//	m := torchtrace.Trace(t, `
//	class M(torch.nn.Module):
//	    def forward(self, x):
//	        return torch.relu(x), x * 2
//	xs = [torch.randn(2, 3)]
//	`)
//	g := m.Compare(t, torchscript.ReadFile, 1e-5, 1e-6)    // interpreter vs PyTorch
//	m.CompareORT(t, g, formats.WriteOptions{}, 1e-5, 1e-6) // ONNX Runtime vs PyTorch
//
// Tests skip, saying what is missing, without PyTorch (testfix.Torch) or,
// for CompareORT, without ONNX Runtime (testfix.ORT). The importer is passed
// in, so that its own package's tests can use this one.
package torchtrace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// Header is what Trace puts before a script.
const Header = "import sys, numpy as np, torch, torch.nn.functional as F\n"

// Footer is what Trace puts after a script: it traces the module M on the
// inputs xs (check_trace off: random ops may be traced), saves and reloads
// it, and writes the inputs and every output of the reloaded module (nested
// tuples and lists flattened, in order) as .npy files.
const Footer = `
m = torch.jit.trace(M(), tuple(xs), check_trace=False)
m.save(sys.argv[1] + "/m.pt")
m = torch.jit.load(sys.argv[1] + "/m.pt")
for k, x in enumerate(xs):
    np.save(sys.argv[1] + "/x%d.npy" % k, x.numpy())
def flat(o):
    return [t for i in o for t in flat(i)] if isinstance(o, (tuple, list)) else [o]
with torch.no_grad():
    outs = flat(m(*xs))
for k, o in enumerate(outs):
    np.save(sys.argv[1] + "/y%d.npy" % k, np.require(o.numpy(), requirements="C"))
`

// Reader imports a TorchScript file (torchscript.ReadFile).
type Reader func(path string, opts formats.ReadOptions) (*canon.Graph, error)

// Module is a module PyTorch traced and ran: Dir holds m.pt, the inputs
// x0.npy, x1.npy ... and PyTorch's outputs y0.npy, y1.npy ...
type Module struct {
	Dir string
	// Inputs are the traced inputs, in order; Outputs PyTorch's outputs.
	Inputs, Outputs []*canon.Tensor
}

// Trace runs Header + script + Footer in PyTorch: the script defines M (a
// torch.nn.Module) and xs (the list of its input tensors). Without PyTorch
// the test is skipped; a failing script fails it.
func Trace(t testing.TB, script string) *Module {
	t.Helper()
	return Run(t, Header+script+Footer)
}

// Run runs a whole script in PyTorch with the module's folder as its
// argument (sys.argv[1]); the script writes m.pt, x%d.npy and y%d.npy
// there itself (for inputs Footer cannot pass, such as lists).
func Run(t testing.TB, script string) *Module {
	t.Helper()
	py := testfix.Torch(t, "numpy")
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, path, dir).CombinedOutput(); err != nil {
		t.Fatalf("tracing: %v\n%s", err, out)
	}
	return Load(t, dir)
}

// Load reads a module's folder that Trace or Run made.
func Load(t testing.TB, dir string) *Module {
	t.Helper()
	return &Module{Dir: dir, Inputs: loadAll(t, dir, "x"), Outputs: loadAll(t, dir, "y")}
}

// loadAll loads dir/prefix0.npy, prefix1.npy ... up to the first missing.
func loadAll(t testing.TB, dir, prefix string) []*canon.Tensor {
	t.Helper()
	var ts []*canon.Tensor
	for k := 0; ; k++ {
		p := filepath.Join(dir, fmt.Sprintf("%s%d.npy", prefix, k))
		if _, err := os.Stat(p); err != nil {
			return ts
		}
		v, err := tensorfile.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, v)
	}
}

// Path is the traced file, m.pt.
func (m *Module) Path() string { return filepath.Join(m.Dir, "m.pt") }

// Import reads m.pt with the traced inputs' shapes (input k as "#k").
func (m *Module) Import(read Reader) (*canon.Graph, error) {
	shapes := map[string][]int64{}
	for k, v := range m.Inputs {
		shapes[fmt.Sprintf("#%d", k)] = v.Shape
	}
	return read(m.Path(), formats.ReadOptions{InputShapes: shapes})
}

// Feed returns the traced inputs named as g's inputs.
func (m *Module) Feed(g *canon.Graph) map[string]*canon.Tensor {
	feed := map[string]*canon.Tensor{}
	for k, v := range m.Inputs {
		v.Name = g.Inputs[k].Name
		feed[v.Name] = v
	}
	return feed
}

// Compare imports the module, runs it in the interpreter and checks every
// output against PyTorch's: same dtype and shape, values within
// rtol/atol (compare.Tensors; integers exactly). It returns the graph,
// closed when the test ends.
func (m *Module) Compare(t testing.TB, read Reader, rtol, atol float64) *canon.Graph {
	t.Helper()
	g, err := m.Import(read)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	m.CompareGraph(t, g, rtol, atol)
	return g
}

// CompareGraph runs g, an import of the module made some other way (without
// input sizes, say), in the interpreter on the traced inputs and checks
// every output against PyTorch's as Compare does.
func (m *Module) CompareGraph(t testing.TB, g *canon.Graph, rtol, atol float64) {
	t.Helper()
	res, err := interp.Run(g, m.Feed(g))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]*canon.Tensor, len(g.Outputs))
	for k, o := range g.Outputs {
		got[k] = res[o.Name]
	}
	m.check(t, "", got, rtol, atol)
}

// CompareORT writes g (the module's import) as ONNX with opts, runs it in
// ONNX Runtime on the traced inputs and checks every output against
// PyTorch's as Compare does. It skips the test without ONNX Runtime.
func (m *Module) CompareORT(t testing.TB, g *canon.Graph, opts formats.WriteOptions, rtol, atol float64) {
	t.Helper()
	rt := testfix.ORT(t)
	model := filepath.Join(t.TempDir(), "model.onnx")
	if err := onnxexport.Write(g, model, opts); err != nil {
		t.Fatal(err)
	}
	feed := m.Feed(g)
	ins := make([]*canon.Tensor, len(g.Inputs))
	for k, in := range g.Inputs {
		ins[k] = feed[in.Name]
	}
	got, err := rt.Run(model, ins, ort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.check(t, "ONNX Runtime ", got, rtol, atol)
}

// check compares outputs computed by who with PyTorch's.
func (m *Module) check(t testing.TB, who string, got []*canon.Tensor, rtol, atol float64) {
	t.Helper()
	if len(got) != len(m.Outputs) {
		t.Fatalf("%s%d outputs, PyTorch gives %d", who, len(got), len(m.Outputs))
	}
	for k, want := range m.Outputs {
		g := got[k]
		if g.DType != want.DType || fmt.Sprint(g.Shape) != fmt.Sprint(want.Shape) {
			t.Errorf("%soutput %d is %s%v, PyTorch's %s%v", who, k, g.DType, g.Shape, want.DType, want.Shape)
			continue
		}
		if r, err := compare.Tensors(g, want, rtol, atol); err != nil || !r.OK {
			t.Errorf("%soutput %d differs from PyTorch: %+v %v", who, k, r, err)
		}
	}
}
