package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	torchexport "github.com/modelbridge/modelbridge/exporters/torch"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/importers/pt2"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// pt2Complete are the torch2 fixtures whose every op the .pt2 importer
// maps; the others are checked as far as the ops mapped so far allow (a
// test log names the op each stops at) and in full once their handlers
// exist.
var pt2Complete = map[string]bool{"tiny_convnet": true, "deconv_net": true}

// pt2Tol is the relative error (to the largest reference magnitude)
// allowed between PyTorch 2.6's stored output and a conversion.
const pt2Tol = 1e-4

// storedOutputWrong names torch2 fixtures whose stored output disagrees
// with every runtime that runs the model (ONNX Runtime on the fixture's
// model.onnx, PyTorch 1.13 on traced.pt and on the state dict): their
// reference is the fixture's own model.onnx run by the interpreter, which
// TestTinyLSTM checks against ONNX Runtime.
var storedOutputWrong = map[string]bool{"tiny_lstm": true}

// referenceFromONNX runs the fixture's model.onnx (PyTorch's own ONNX
// export of the same module) on in.
func referenceFromONNX(t *testing.T, dir string, in *canon.Tensor) *canon.Tensor {
	t.Helper()
	g, _, err := formats.Read(filepath.Join(dir, "model.onnx"), "", formats.ReadOptions{})
	if err != nil {
		t.Fatalf("reference model.onnx: %v", err)
	}
	defer g.Close()
	outs, err := interp.Run(g, map[string]*canon.Tensor{g.Inputs[0].Name: in})
	if err != nil {
		t.Fatalf("reference model.onnx: %v", err)
	}
	return outs[g.Outputs[0].Name]
}

// pt2Case is one exported program read for the cross-format checks.
type pt2Case struct {
	name, file, fix string
	g               *canon.Graph
	in              *canon.Tensor
	want            *canon.Tensor
	dynamic         bool
}

// loadPT2 reads a torch2 fixture's program, or skips (logging the op it
// stops at) when it needs an op not mapped yet and is not in pt2Complete.
func loadPT2(t *testing.T, fix, model, file string) *pt2Case {
	t.Helper()
	dir := filepath.Join(fix, model)
	g, _, err := formats.Read(filepath.Join(dir, file), "", formats.ReadOptions{})
	if err != nil {
		var uo *pt2.UnsupportedOpError
		if errors.As(err, &uo) && !pt2Complete[model] {
			t.Skipf("stops at %s (its aten handler is not in the shared table yet): %v", uo.Op, err)
		}
		t.Fatalf("read: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	in, err := tensorfile.Load(filepath.Join(dir, "test_data_set_0", "input_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := tensorfile.Load(filepath.Join(dir, "test_data_set_0", "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	if storedOutputWrong[model] {
		want = referenceFromONNX(t, dir, in)
	}
	return &pt2Case{name: model, file: file, fix: dir, g: g, in: in, want: want, dynamic: file == "exported_dynamic.pt2"}
}

func checkClose(t *testing.T, what string, got, want *canon.Tensor) {
	t.Helper()
	rel, err := compare.RelativeToMax(got, want)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	t.Logf("%s: relative error %.2g", what, rel)
	if rel > pt2Tol {
		t.Errorf("%s differs from PyTorch 2.6: relative error %.3g", what, rel)
	}
}

// forEachPT2 runs check on every torch2 fixture's exported.pt2 and
// exported_dynamic.pt2.
func forEachPT2(t *testing.T, check func(t *testing.T, c *pt2Case)) {
	fix := filepath.Join(testfix.Fixtures(t), "torch2")
	models, _ := filepath.Glob(filepath.Join(fix, "*", "exported.pt2"))
	if len(models) == 0 {
		t.Skipf("skipping: no torch2 fixtures under %s", fix)
	}
	for _, m := range models {
		model := filepath.Base(filepath.Dir(m))
		for _, file := range []string{"exported.pt2", "exported_dynamic.pt2"} {
			t.Run(model+"/"+file, func(t *testing.T) {
				check(t, loadPT2(t, fix, model, file))
			})
		}
	}
}

// TestPT2Interpreter runs each program in the interpreter against PyTorch
// 2.6's stored output.
func TestPT2Interpreter(t *testing.T) {
	forEachPT2(t, func(t *testing.T, c *pt2Case) {
		outs, err := interp.Run(c.g, map[string]*canon.Tensor{c.g.Inputs[0].Name: c.in})
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, "interpreter", outs[c.g.Outputs[0].Name], c.want)
	})
}

// TestPT2ToONNXInORT converts each program to ONNX and runs it in ONNX
// Runtime on test_data_set_0; a dynamic program also runs at batch 3,
// against PyTorch's own ONNX export run one sample at a time.
func TestPT2ToONNXInORT(t *testing.T) {
	rt := testfix.ORT(t)
	forEachPT2(t, func(t *testing.T, c *pt2Case) {
		x := c.g.Inputs[0]
		got := runORT(t, rt, c.g, map[string]*canon.Tensor{x.Name: c.in})
		checkClose(t, "ONNX Runtime, batch 1", got[0], c.want)
		if x.Shape[0].Known() {
			if c.dynamic {
				t.Fatalf("input %s of a dynamic program has a static batch: %v", x.Name, x.Shape)
			}
			return
		}
		if x.Shape[0].Param != "s0" {
			t.Errorf("batch dimension is named %q, want the program's symbol s0", x.Shape[0].Param)
		}
		shape := append([]int64{3}, c.in.Shape[1:]...)
		batch, err := tensorfile.Random(c.g.Inputs, map[string][]int64{x.Name: shape}, 5)
		if err != nil {
			t.Fatal(err)
		}
		got3 := runORT(t, rt, c.g, batch)
		want3 := perSampleORT(t, rt, filepath.Join(c.fix, "model.onnx"), batch[x.Name])
		checkClose(t, "ONNX Runtime, batch 3 (vs PyTorch's ONNX per sample)", got3[0], want3)
	})
}

// perSampleORT runs an ONNX file with a batch-1 input in ONNX Runtime on
// each sample of x and stacks the outputs.
func perSampleORT(t *testing.T, rt *ort.Runtime, model string, x *canon.Tensor) *canon.Tensor {
	t.Helper()
	n := x.Shape[0]
	step := int64(len(x.Data)) / n
	var out *canon.Tensor
	for i := int64(0); i < n; i++ {
		dir := t.TempDir()
		one := &canon.Tensor{Name: x.Name, DType: x.DType, Shape: append([]int64{1}, x.Shape[1:]...), Data: x.Data[i*step : (i+1)*step]}
		if err := tensorfile.Save(one, filepath.Join(dir, "input_0.pb")); err != nil {
			t.Fatal(err)
		}
		if err := rt.RunDir(model, dir, filepath.Join(dir, "out"), ort.Options{}); err != nil {
			t.Fatalf("ONNX Runtime on %s: %v", model, err)
		}
		y, err := tensorfile.Load(filepath.Join(dir, "out", tensorfile.OutputFileName(0)))
		if err != nil {
			t.Fatal(err)
		}
		if out == nil {
			out = &canon.Tensor{DType: y.DType, Shape: append([]int64{n}, y.Shape[1:]...)}
		}
		out.Data = append(out.Data, y.Data...)
	}
	return out
}

// TestPT2ToMXNet writes each program as an MXNet checkpoint, reads it
// back and runs it (as `modelbridge run` does) against PyTorch's output.
// MXNet symbols bind to one input shape, so a dynamic program is read at
// the test input's shape (convert --input-shape), as a user would.
func TestPT2ToMXNet(t *testing.T) {
	forEachPT2(t, func(t *testing.T, c *pt2Case) {
		x := c.g.Inputs[0]
		shapes := map[string][]int64{x.Name: c.in.Shape}
		g := c.g
		if c.dynamic {
			g = load(t, filepath.Join(c.fix, c.file), "", formats.ReadOptions{InputShapes: shapes})
		}
		out := filepath.Join(t.TempDir(), c.name+"-symbol.json")
		write(t, g, out, "mxnet")
		mx := load(t, out, "mxnet", formats.ReadOptions{InputShapes: shapes})
		outs, err := interp.Run(mx, map[string]*canon.Tensor{mx.Inputs[0].Name: c.in})
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, "MXNet checkpoint", outs[mx.Outputs[0].Name], c.want)
	})
}

// pt2TorchDriver runs an exported model.py on .npy inputs in PyTorch.
const pt2TorchDriver = `
import importlib.util, sys
import numpy as np
import torch
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("pt2_model", d + "/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
model = mod.Model()
model.load_state_dict(torch.load(d + "/weights.pt"), strict=True)
model.eval()
with torch.no_grad():
    for k in range(2, len(sys.argv), 2):
        y = model(torch.from_numpy(np.load(sys.argv[k])))
        if isinstance(y, tuple):
            y = y[0]
        np.save(sys.argv[k + 1], y.numpy())
`

// TestPT2ToTorch writes each program as model.py + weights and runs it in
// PyTorch 1.13 on test_data_set_0 (and, for a dynamic program, at batch 3
// against the interpreter on the program).
func TestPT2ToTorch(t *testing.T) {
	python := testfix.Torch(t, "numpy")
	forEachPT2(t, func(t *testing.T, c *pt2Case) {
		dir := filepath.Join(t.TempDir(), "model")
		dynamic := c.dynamic
		if _, err := torchexport.Export(c.g, dir); err != nil {
			if !c.dynamic {
				t.Fatalf("torch export: %v", err)
			}
			// model.py cannot yet compute every shape at run time: check
			// the program specialized to the test input's shape, as
			// convert --input-shape writes it.
			t.Logf("the dynamic program cannot be written as model.py (%v); checking it at a fixed input shape", err)
			g := load(t, filepath.Join(c.fix, c.file), "", formats.ReadOptions{InputShapes: map[string][]int64{c.g.Inputs[0].Name: c.in.Shape}})
			if _, err := torchexport.Export(g, dir); err != nil {
				t.Fatalf("torch export at a fixed input shape: %v", err)
			}
			dynamic = false
		}
		inputs := []*canon.Tensor{c.in}
		var want3 *canon.Tensor
		if dynamic {
			x := c.g.Inputs[0]
			batch, err := tensorfile.Random(c.g.Inputs, map[string][]int64{x.Name: append([]int64{3}, c.in.Shape[1:]...)}, 9)
			if err != nil {
				t.Fatal(err)
			}
			outs, err := interp.Run(c.g, batch)
			if err != nil {
				t.Fatal(err)
			}
			inputs, want3 = append(inputs, batch[x.Name]), outs[c.g.Outputs[0].Name]
		}
		args := []string{filepath.Join(dir, "..", "driver.py"), dir}
		os.WriteFile(args[0], []byte(pt2TorchDriver), 0o644)
		for i, in := range inputs {
			p := filepath.Join(dir, "in_"+strconv.Itoa(i)+".npy")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := npy.Write(f, in); err != nil {
				t.Fatal(err)
			}
			f.Close()
			args = append(args, p, filepath.Join(dir, "out_"+strconv.Itoa(i)+".npy"))
		}
		if out, err := exec.Command(python, args...).CombinedOutput(); err != nil {
			t.Fatalf("PyTorch failed on the exported model.py: %v\n%s", err, out)
		}
		for i := range inputs {
			got, err := npy.ReadFile(filepath.Join(dir, "out_"+strconv.Itoa(i)+".npy"))
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				checkClose(t, "PyTorch 1.13 on model.py", got, c.want)
			} else {
				checkClose(t, "PyTorch 1.13 on model.py, batch 3 (vs the interpreter)", got, want3)
			}
		}
	})
}
