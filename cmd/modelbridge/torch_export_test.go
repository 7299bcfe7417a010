package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	torchexport "github.com/modelbridge/modelbridge/exporters/torch"
	"github.com/modelbridge/modelbridge/formats"
	_ "github.com/modelbridge/modelbridge/importers/torch" // the round trip reads state dicts back
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

const torchPython = testfix.Python

// torchDriver runs every exported model in one Python process: it loads
// weights.pt with torch.load, checks strict load_state_dict into model.Model,
// reports a digest of every tensor's bytes, runs the model on the .npy
// inputs and saves the outputs as .npy.
const torchDriver = `
import hashlib, importlib.util, json, sys
import numpy as np
import torch

jobs = json.load(open(sys.argv[1]))
report = []
for i, job in enumerate(jobs):
    entry = {"dir": job["dir"], "error": "", "tensors": []}
    try:
        spec = importlib.util.spec_from_file_location("exported_model_%d" % i, job["dir"] + "/model.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        sd = torch.load(job["dir"] + "/weights.pt")
        for k, v in sd.items():
            b = v.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() if v.numel() else b""
            entry["tensors"].append({"key": k, "dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape),
                                     "sha256": hashlib.sha256(b).hexdigest()})
        model = mod.Model()
        model.load_state_dict(sd, strict=True)
        ins = [torch.from_numpy(np.load(p)) for p in job["inputs"]]
        with torch.no_grad():
            outs = model(*ins)
        if not isinstance(outs, tuple):
            outs = (outs,)
        for o, p in zip(outs, job["outputs"]):
            np.save(p, o.numpy())
    except Exception as e:
        import traceback
        entry["error"] = traceback.format_exc()
    report.append(entry)
json.dump(report, open(sys.argv[2], "w"))
`

type torchJob struct {
	Dir     string   `json:"dir"`
	Inputs  []string `json:"inputs"`
	Outputs []string `json:"outputs"`
}

type torchCase struct {
	name    string
	job     torchJob
	entries []torchexport.Entry
	want    []*canon.Tensor // expected outputs, in graph output order
	ref     string          // what want is
}

type torchReport struct {
	Dir     string
	Error   string
	Tensors []struct {
		Key, Dtype, Sha256 string
		Shape              []int64
	}
}

// mxnetWithParams are the MXNet fixtures with weights and the input shapes
// their symbols need.
var mxnetWithParams = []struct {
	symbol string
	shapes map[string][]int64
}{
	{"go_test/go_test-symbol.json", map[string][]int64{"data": {1, 1, 2, 5}}},
	{"mtcnn/det1-symbol.json", map[string][]int64{"data": {1, 3, 12, 12}}},
	{"mtcnn/det2-symbol.json", map[string][]int64{"data": {1, 3, 24, 24}}},
	{"tutorial_autoencoder/Autoencoder-symbol.json", map[string][]int64{"input": {2, 784}}},
	{"tutorial_cnn/Neural_Net-symbol.json", map[string][]int64{"data": {2, 1, 28, 28}}},
	{"tutorial_fc/Neural_Net-symbol.json", map[string][]int64{"data": {2, 784}}},
}

// TestTorchExportRunsInTorch exports every PyTorch-made ONNX fixture and
// every MXNet checkpoint as model.py + weights.pt, runs them with real
// PyTorch, and compares with PyTorch's stored outputs (ONNX fixtures) or the
// interpreter (MXNet). It also checks that torch.load returns exactly the
// exported tensors.
func TestTorchExportRunsInTorch(t *testing.T) {
	fix := testfix.Fixtures(t)
	testfix.Torch(t, "numpy")
	root := t.TempDir()
	var cases []*torchCase

	onnxModels, _ := filepath.Glob(filepath.Join(fix, "torch", "*", "model.onnx"))
	if len(onnxModels) == 0 {
		t.Fatalf("no torch/*/model.onnx fixtures under %s", fix)
	}
	for _, m := range onnxModels {
		name := filepath.Base(filepath.Dir(m))
		g, _, err := formats.Read(m, "onnx", formats.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		defer g.Close()
		data := filepath.Join(filepath.Dir(m), "test_data_set_0")
		in, err := tensorfile.Load(filepath.Join(data, "input_0.pb"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := tensorfile.Load(filepath.Join(data, "output_0.pb"))
		if err != nil {
			t.Fatal(err)
		}
		c := exportCase(t, root, "onnx_"+name, g, []*canon.Tensor{in})
		c.want, c.ref = []*canon.Tensor{want}, "PyTorch's stored output"
		cases = append(cases, c)
	}
	for _, mx := range mxnetWithParams {
		path := filepath.Join(fix, "mxnet", mx.symbol)
		g, _, err := formats.Read(path, "", formats.ReadOptions{InputShapes: mx.shapes})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		defer g.Close()
		inputs, err := tensorfile.Random(g.Inputs, mx.shapes, 5)
		if err != nil {
			t.Fatal(err)
		}
		var ins []*canon.Tensor
		for _, v := range g.Inputs {
			ins = append(ins, inputs[v.Name])
		}
		outs, err := interp.Run(g, inputs)
		if err != nil {
			t.Fatalf("%s: interpreter: %v", path, err)
		}
		name := "mxnet_" + strings.TrimSuffix(strings.ReplaceAll(mx.symbol, "/", "_"), "-symbol.json")
		c := exportCase(t, root, name, g, ins)
		for _, o := range g.Outputs {
			c.want = append(c.want, outs[o.Name])
		}
		c.ref = "the interpreter"
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatalf("no export cases built from the fixtures under %s", fix)
	}

	var jobs []torchJob
	for _, c := range cases {
		jobs = append(jobs, c.job)
	}
	jobsPath := filepath.Join(root, "jobs.json")
	b, _ := json.Marshal(jobs)
	if err := os.WriteFile(jobsPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(root, "driver.py")
	if err := os.WriteFile(driver, []byte(torchDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	reportPath := filepath.Join(root, "report.json")
	if out, err := exec.Command(torchPython, driver, jobsPath, reportPath).CombinedOutput(); err != nil {
		t.Fatalf("driver failed: %v\n%s", err, out)
	}
	var reports []torchReport
	rb, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rb, &reports); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := reports[i]
			if r.Error != "" {
				t.Fatalf("PyTorch failed on the exported model:\n%s", r.Error)
			}
			checkTensors(t, c.entries, r)
			for k, want := range c.want {
				got, err := npy.ReadFile(c.job.Outputs[k])
				if err != nil {
					t.Fatal(err)
				}
				rel, err := compare.RelativeToMax(got, want)
				if err != nil {
					t.Fatalf("output %d: %v", k, err)
				}
				if rel > 1e-4 {
					t.Errorf("output %d: PyTorch running model.py differs from %s: relative error %.3g", k, c.ref, rel)
				}
				t.Logf("output %d: relative error %.2g vs %s (%d weights)", k, rel, c.ref, len(c.entries))
			}
		})
	}
}

// exportCase writes g for PyTorch into root/name and its inputs as .npy.
func exportCase(t *testing.T, root, name string, g *canon.Graph, ins []*canon.Tensor) *torchCase {
	t.Helper()
	dir := filepath.Join(root, name)
	mod, err := torchexport.Generate(g)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if _, err := torchexport.Export(g, dir); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := &torchCase{name: name, entries: mod.Entries, job: torchJob{Dir: dir}}
	for i, in := range ins {
		p := filepath.Join(dir, "input_"+strconv.Itoa(i)+".npy")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := npy.Write(f, in); err != nil {
			t.Fatal(err)
		}
		f.Close()
		c.job.Inputs = append(c.job.Inputs, p)
	}
	for i := range g.Outputs {
		c.job.Outputs = append(c.job.Outputs, filepath.Join(dir, "output_"+strconv.Itoa(i)+".npy"))
	}
	return c
}

// checkTensors compares what torch.load returned with the exported tensors:
// same keys in order, dtypes, shapes and bytes.
func checkTensors(t *testing.T, entries []torchexport.Entry, r torchReport) {
	t.Helper()
	if len(r.Tensors) != len(entries) {
		t.Fatalf("torch.load returned %d tensors, exported %d", len(r.Tensors), len(entries))
	}
	names := map[canon.DType]string{canon.Float32: "float32", canon.Float64: "float64", canon.Float16: "float16",
		canon.BFloat16: "bfloat16", canon.Int8: "int8", canon.Int16: "int16", canon.Int32: "int32",
		canon.Int64: "int64", canon.Uint8: "uint8", canon.Bool: "bool"}
	for i, e := range entries {
		got := r.Tensors[i]
		sum := sha256.Sum256(e.Tensor.Data)
		if got.Key != e.Key || got.Dtype != names[e.Tensor.DType] || !sameInts(got.Shape, e.Tensor.Shape) || got.Sha256 != hex.EncodeToString(sum[:]) {
			t.Errorf("tensor %d: torch.load gave %s %s %v, exported %s %s %v (bytes equal: %v)", i, got.Key, got.Dtype, got.Shape,
				e.Key, names[e.Tensor.DType], e.Tensor.Shape, got.Sha256 == hex.EncodeToString(sum[:]))
		}
	}
}

func sameInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestConvertToTorchCLI runs `convert --to torch` into a folder and to a .pt
// file, and refuses an inexpressible model without writing anything.
func TestConvertToTorchCLI(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "tiny")
	if code, _, stderr := cli(t, "convert", tinyModel, out, "--to", "torch"); code != 0 {
		t.Fatalf("convert --to torch: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"model.py", "weights.pt", "README"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "only"), 0o755)
	pt := filepath.Join(dir, "only", "weights.pt") // same archive name as the folder's
	if code, _, stderr := cli(t, "convert", tinyModel, pt); code != 0 {
		t.Fatalf("convert to .pt: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(out, "weights.pt"))
	b, _ := os.ReadFile(pt)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("weights-only export (%d bytes) differs from the folder's weights.pt (%d bytes)", len(b), len(a))
	}
}

// TestTorchStateDictRoundTrip reads real torch.save files with the PyTorch
// importer and writes them back: keys, order, dtypes, shapes and bytes are
// kept.
func TestTorchStateDictRoundTrip(t *testing.T) {
	fix := testfix.Fixtures(t)
	files, _ := filepath.Glob(filepath.Join(fix, "torch", "*", "state_dict.pt"))
	if len(files) == 0 {
		t.Fatalf("no torch/*/state_dict.pt fixtures under %s", fix)
	}
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f))
		t.Run(name, func(t *testing.T) {
			g, _, err := formats.Read(f, "torch", formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			out := filepath.Join(t.TempDir(), name+".pt")
			if err := torchexport.Write(g, out, formats.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			back, _, err := formats.Read(out, "torch", formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer back.Close()
			if len(back.Initializers) != len(g.Initializers) {
				t.Fatalf("%d tensors back, %d written", len(back.Initializers), len(g.Initializers))
			}
			for i, a := range g.Initializers {
				b := back.Initializers[i]
				if a.Name != b.Name || a.DType != b.DType || !sameInts(a.Shape, b.Shape) || string(a.Data) != string(b.Data) {
					t.Errorf("tensor %d: %s %s %v came back as %s %s %v (bytes equal %v)", i, a.Name, a.DType, a.Shape, b.Name, b.DType, b.Shape, string(a.Data) == string(b.Data))
				}
			}
		})
	}
}
