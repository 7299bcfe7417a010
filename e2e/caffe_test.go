package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"

	torchexport "github.com/modelbridge/modelbridge/exporters/torch"
	_ "github.com/modelbridge/modelbridge/importers/caffe"
)

// caffeMTCNN are the Caffe MTCNN nets with the input shapes they are
// checked at (det1 is fully convolutional: a second, odd-sized input makes
// its ceil-mode pooling keep a partial window) and the MXNet checkpoint
// holding the same weights, when ../shared has it.
var caffeMTCNN = []struct {
	name, mxnet string
	shape       []int64
}{
	{"det1", "det1-symbol.json", []int64{1, 3, 12, 12}},
	{"det1", "det1-symbol.json", []int64{1, 3, 31, 25}},
	{"det2", "det2-symbol.json", []int64{1, 3, 24, 24}},
	{"det3", "", []int64{1, 3, 48, 48}},
}

// runORT exports g as ONNX, runs it in ONNX Runtime on inputs and returns
// the outputs in g's output order.
func runORT(t *testing.T, rt *ort.Runtime, g *canon.Graph, inputs map[string]*canon.Tensor) []*canon.Tensor {
	t.Helper()
	dir := t.TempDir()
	onnxPath := filepath.Join(dir, "model.onnx")
	write(t, g, onnxPath, "onnx")
	inDir := filepath.Join(dir, "in")
	os.MkdirAll(inDir, 0o755)
	for i, in := range g.Inputs {
		if err := tensorfile.Save(inputs[in.Name], filepath.Join(inDir, "input_"+strconv.Itoa(i)+".pb")); err != nil {
			t.Fatal(err)
		}
	}
	outDir := filepath.Join(dir, "out")
	if err := rt.RunDir(onnxPath, inDir, outDir, ort.Options{}); err != nil {
		t.Fatalf("ONNX Runtime failed: %v", err)
	}
	var outs []*canon.Tensor
	for i := range g.Outputs {
		got, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(i)))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, got)
	}
	return outs
}

// maxAbsDiff is the largest absolute difference of two float tensors of
// one shape.
func maxAbsDiff(t *testing.T, a, b *canon.Tensor) float64 {
	t.Helper()
	if len(a.Shape) != len(b.Shape) || a.NumElements() != b.NumElements() {
		t.Fatalf("shapes %v and %v differ", a.Shape, b.Shape)
	}
	x, err := a.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	y, err := b.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	m := 0.0
	for i := range x {
		d := x[i] - y[i]
		if d < 0 {
			d = -d
		}
		m = max(m, d)
	}
	return m
}

// TestCaffeMTCNN converts the Caffe MTCNN nets to ONNX and runs them in
// ONNX Runtime: against the interpreter on the Caffe files, and (det1,
// det2) against the ONNX converted from the MXNet checkpoints with the
// same weights, on the same random inputs. It also writes them as MXNet
// checkpoints and reads them back.
func TestCaffeMTCNN(t *testing.T) {
	fix := testfix.Fixtures(t)
	rt := testfix.ORT(t)
	for _, c := range caffeMTCNN {
		t.Run(c.name+"_"+strconv.FormatInt(c.shape[2], 10)+"x"+strconv.FormatInt(c.shape[3], 10), func(t *testing.T) {
			shapes := map[string][]int64{"data": c.shape}
			g := load(t, filepath.Join(fix, "caffe", "mtcnn", c.name+".prototxt"), "", formats.ReadOptions{InputShapes: shapes})
			if g.Meta.SourceFormat != "caffe" || g.Meta.WeightsMissing {
				t.Fatalf("read as %s, weights missing %v", g.Meta.SourceFormat, g.Meta.WeightsMissing)
			}
			inputs, err := tensorfile.Random(g.Inputs, shapes, 7)
			if err != nil {
				t.Fatal(err)
			}
			want, err := interp.Run(g, inputs)
			if err != nil {
				t.Fatalf("interpreter on the Caffe net: %v", err)
			}
			got := runORT(t, rt, g, inputs)
			for i, o := range g.Outputs {
				d := maxAbsDiff(t, got[i], want[o.Name])
				t.Logf("%s: ONNX Runtime vs interpreter on the Caffe files: max abs diff %.2g", o.Name, d)
				if d > 1e-5 {
					t.Errorf("%s: ONNX Runtime differs from the interpreter by %.3g", o.Name, d)
				}
			}
			if c.mxnet != "" {
				checkAgainstMXNet(t, rt, fix, c.name, c.mxnet, c.shape)
			}
			// MXNet round trip.
			sym := filepath.Join(t.TempDir(), c.name+"-symbol.json")
			write(t, g, sym, "mxnet")
			back := load(t, sym, "mxnet", formats.ReadOptions{InputShapes: shapes})
			bin := map[string]*canon.Tensor{back.Inputs[0].Name: inputs[g.Inputs[0].Name]}
			bout, err := interp.Run(back, bin)
			if err != nil {
				t.Fatalf("interpreter on the MXNet copy: %v", err)
			}
			for i, o := range g.Outputs {
				rel, err := compare.RelativeToMax(bout[back.Outputs[i].Name], want[o.Name])
				if err != nil {
					t.Fatal(err)
				}
				if rel > 1e-5 {
					t.Errorf("%s: the MXNet copy differs: relative error %.3g", o.Name, rel)
				}
			}
		})
	}
}

// mtcnnLayout turns an input of the MXNet MTCNN nets into the input of the
// Caffe ones, or a Caffe output map back into MXNet's: the Caffe models
// were trained in MATLAB on column-major images, so their kernels are the
// MXNet ones with H and W swapped, and conv1 reads the channels in reverse
// (BGR) order. flipC reverses axis 1; H and W are always swapped.
func mtcnnLayout(t *testing.T, x *canon.Tensor, flipC bool) *canon.Tensor {
	t.Helper()
	if len(x.Shape) != 4 {
		return x
	}
	v, err := x.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	n, c, h, w := int(x.Shape[0]), int(x.Shape[1]), int(x.Shape[2]), int(x.Shape[3])
	out := make([]float32, len(v))
	for a := 0; a < n; a++ {
		for b := 0; b < c; b++ {
			sb := b
			if flipC {
				sb = c - 1 - b
			}
			for i := 0; i < h; i++ {
				for j := 0; j < w; j++ {
					out[((a*c+b)*w+j)*h+i] = float32(v[((a*c+sb)*h+i)*w+j])
				}
			}
		}
	}
	return canon.NewFloat32Tensor(x.Name, []int64{int64(n), int64(c), int64(w), int64(h)}, out)
}

// checkAgainstMXNet runs the Caffe net and the MXNet checkpoint with the
// same weights, both converted to ONNX, in ONNX Runtime on the same random
// input (in each model's own layout), and compares the outputs.
func checkAgainstMXNet(t *testing.T, rt *ort.Runtime, fix, name, symbol string, shape []int64) {
	t.Helper()
	mx := load(t, filepath.Join(fix, "mxnet", "mtcnn", symbol), "", formats.ReadOptions{InputShapes: map[string][]int64{"data": shape}})
	cshape := []int64{shape[0], shape[1], shape[3], shape[2]}
	cg := load(t, filepath.Join(fix, "caffe", "mtcnn", name+".prototxt"), "", formats.ReadOptions{InputShapes: map[string][]int64{"data": cshape}})
	inputs, err := tensorfile.Random(mx.Inputs, map[string][]int64{"data": shape}, 21)
	if err != nil {
		t.Fatal(err)
	}
	x := inputs[mx.Inputs[0].Name]
	mxOut := runORT(t, rt, mx, inputs)
	cOut := runORT(t, rt, cg, map[string]*canon.Tensor{cg.Inputs[0].Name: mtcnnLayout(t, x, true)})
	if len(mxOut) != len(cOut) {
		t.Fatalf("MXNet net has %d outputs, Caffe net %d", len(mxOut), len(cOut))
	}
	for i, o := range cg.Outputs {
		d := maxAbsDiff(t, mtcnnLayout(t, cOut[i], false), mxOut[i])
		t.Logf("%s vs MXNet's %s, both in ONNX Runtime: max abs diff %.2g", o.Name, mx.Outputs[i].Name, d)
		if d > 1e-5 {
			t.Errorf("%s: the Caffe and MXNet conversions differ by %.3g", o.Name, d)
		}
	}
}

// caffeTorchDriver runs each exported model.py on .npy inputs.
const caffeTorchDriver = `
import importlib.util, json, sys
import numpy as np
import torch
jobs = json.load(open(sys.argv[1]))
errs = []
for i, job in enumerate(jobs):
    try:
        spec = importlib.util.spec_from_file_location("caffe_model_%d" % i, job["dir"] + "/model.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        model = mod.Model()
        model.load_state_dict(torch.load(job["dir"] + "/weights.pt"), strict=True)
        with torch.no_grad():
            outs = model(*[torch.from_numpy(np.load(p)) for p in job["inputs"]])
        if not isinstance(outs, tuple):
            outs = (outs,)
        for o, p in zip(outs, job["outputs"]):
            np.save(p, o.numpy())
        errs.append("")
    except Exception:
        import traceback
        errs.append(traceback.format_exc())
json.dump(errs, open(sys.argv[2], "w"))
`

// TestCaffeMTCNNToTorch writes the MTCNN nets as model.py + weights.pt and
// runs them in PyTorch 1.13 against the interpreter on the Caffe files.
func TestCaffeMTCNNToTorch(t *testing.T) {
	python := testfix.Torch(t, "numpy")
	fix := testfix.Fixtures(t)
	root := t.TempDir()
	type job struct {
		Dir     string   `json:"dir"`
		Inputs  []string `json:"inputs"`
		Outputs []string `json:"outputs"`
	}
	var jobs []job
	var wants [][]*canon.Tensor
	for k, c := range caffeMTCNN {
		shapes := map[string][]int64{"data": c.shape}
		g := load(t, filepath.Join(fix, "caffe", "mtcnn", c.name+".prototxt"), "", formats.ReadOptions{InputShapes: shapes})
		inputs, err := tensorfile.Random(g.Inputs, shapes, 3)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := interp.Run(g, inputs)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, c.name+"_"+strconv.Itoa(k))
		if _, err := torchexport.Export(g, dir); err != nil {
			t.Fatalf("%s: torch export: %v", c.name, err)
		}
		j := job{Dir: dir}
		for i, in := range g.Inputs {
			p := filepath.Join(dir, "input_"+strconv.Itoa(i)+".npy")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := npy.Write(f, inputs[in.Name]); err != nil {
				t.Fatal(err)
			}
			f.Close()
			j.Inputs = append(j.Inputs, p)
		}
		var w []*canon.Tensor
		for i, o := range g.Outputs {
			j.Outputs = append(j.Outputs, filepath.Join(dir, "output_"+strconv.Itoa(i)+".npy"))
			w = append(w, outs[o.Name])
		}
		jobs = append(jobs, j)
		wants = append(wants, w)
	}
	jb, _ := json.Marshal(jobs)
	jobsPath, report, driver := filepath.Join(root, "jobs.json"), filepath.Join(root, "report.json"), filepath.Join(root, "driver.py")
	os.WriteFile(jobsPath, jb, 0o644)
	os.WriteFile(driver, []byte(caffeTorchDriver), 0o644)
	if out, err := exec.Command(python, driver, jobsPath, report).CombinedOutput(); err != nil {
		t.Fatalf("driver failed: %v\n%s", err, out)
	}
	var errs []string
	rb, _ := os.ReadFile(report)
	if err := json.Unmarshal(rb, &errs); err != nil {
		t.Fatal(err)
	}
	for k, c := range caffeMTCNN {
		if errs[k] != "" {
			t.Errorf("%s: PyTorch failed:\n%s", c.name, errs[k])
			continue
		}
		for i, want := range wants[k] {
			got, err := npy.ReadFile(jobs[k].Outputs[i])
			if err != nil {
				t.Fatal(err)
			}
			d := maxAbsDiff(t, got, want)
			t.Logf("%s %v output %d: PyTorch vs interpreter max abs diff %.2g", c.name, c.shape, i, d)
			if d > 1e-5 {
				t.Errorf("%s output %d: PyTorch differs from the interpreter by %.3g", c.name, i, d)
			}
		}
	}
}
