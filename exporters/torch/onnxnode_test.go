package torchexport

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// sweepDriver loads every exported folder in one Python process, strictly
// loads weights.pt, runs the model on the .npy inputs and saves the outputs
// (cast to a NumPy-representable dtype) as .npy.
const sweepDriver = `
import importlib.util, json, sys, traceback
import numpy as np
import torch

jobs = json.load(open(sys.argv[1]))
errors = []
for i, job in enumerate(jobs):
    try:
        spec = importlib.util.spec_from_file_location("sweep_model_%d" % i, job["dir"] + "/model.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        model = mod.Model()
        model.load_state_dict(torch.load(job["dir"] + "/weights.pt"), strict=True)
        ins = [torch.from_numpy(np.load(p)) for p in job["inputs"]]
        with torch.no_grad():
            outs = model(*ins)
        if not isinstance(outs, tuple):
            outs = (outs,)
        if len(outs) != len(job["outputs"]):
            raise RuntimeError("model returned %d outputs, want %d" % (len(outs), len(job["outputs"])))
        for o, p in zip(outs, job["outputs"]):
            # ascontiguousarray makes 0-d arrays 1-d: keep the shape
            np.save(p, np.ascontiguousarray(o.numpy()).reshape(tuple(o.shape)))
        errors.append("")
    except Exception:
        errors.append(traceback.format_exc())
json.dump(errors, open(sys.argv[2], "w"))
`

// runSweepJobs runs jobs in one PyTorch process (sweepDriver) and returns
// each job's error text ("" when it ran).
func runSweepJobs(t *testing.T, py, root string, jobs []*sweepJob) []string {
	t.Helper()
	jobsPath := filepath.Join(root, "jobs.json")
	b, _ := json.Marshal(jobs)
	if err := os.WriteFile(jobsPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(root, "driver.py")
	if err := os.WriteFile(driver, []byte(sweepDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	reportPath := filepath.Join(root, "report.json")
	if out, err := exec.Command(py, driver, jobsPath, reportPath).CombinedOutput(); err != nil {
		t.Fatalf("driver failed: %v\n%s", err, out)
	}
	var report []string
	rb, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rb, &report); err != nil || len(report) != len(jobs) {
		t.Fatalf("bad report (%v): %s", err, rb)
	}
	return report
}

// runModelPy exports g as a model.py folder, runs it in PyTorch on inputs
// and returns its outputs in g.Outputs order.
func runModelPy(t *testing.T, py string, g *canon.Graph, inputs map[string]*canon.Tensor) []*canon.Tensor {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "model")
	if _, err := Export(g, dir); err != nil {
		t.Fatal(err)
	}
	job := &sweepJob{Dir: dir, Inputs: []string{}, Outputs: []string{}}
	for i, v := range g.Inputs {
		p := filepath.Join(dir, fmt.Sprintf("input_%d.npy", i))
		if err := writeNpy(p, inputs[v.Name]); err != nil {
			t.Fatal(err)
		}
		job.Inputs = append(job.Inputs, p)
	}
	for i := range g.Outputs {
		job.Outputs = append(job.Outputs, filepath.Join(dir, fmt.Sprintf("output_%d.npy", i)))
	}
	if report := runSweepJobs(t, py, root, []*sweepJob{job}); report[0] != "" {
		t.Fatalf("PyTorch failed on the exported model:\n%s", report[0])
	}
	outs := make([]*canon.Tensor, len(job.Outputs))
	for i, p := range job.Outputs {
		o, err := npy.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = o
	}
	return outs
}

type sweepJob struct {
	Dir     string   `json:"dir"`
	Inputs  []string `json:"inputs"`
	Outputs []string `json:"outputs"`
	name    string
	want    []*canon.Tensor
	// drawn marks outputs computed from random draws (compared by shape,
	// dtype and range).
	drawn []bool
}

// torchSweep exports ONNX node-test models as model.py folders, runs them
// all in one PyTorch process and compares with the stored outputs (rtol
// 1e-3, atol 1e-5, dtypes equal).
type torchSweep struct {
	models []string // model.onnx paths; the case name is the folder's
	// strictImport fails a model the ONNX reader refuses instead of
	// logging it.
	strictImport bool
	// refusalOK reports whether an exporter refusal is acceptable.
	refusalOK func(err error) bool
}

// torchCannotHold reports an input dtype PyTorch 1.13 has no tensor type
// for (its unsigned types stop at uint8), so a case cannot be fed to it.
func torchCannotHold(g *canon.Graph) (canon.DType, bool) {
	for _, in := range g.Inputs {
		switch in.DType {
		case canon.Uint16, canon.Uint32, canon.Uint64:
			return in.DType, true
		}
	}
	return canon.Undefined, false
}

// torchSweepCounts says what became of the models.
type torchSweepCounts struct {
	notImported, refused, exported, matched int
}

func (s torchSweep) run(t *testing.T, py string) torchSweepCounts {
	root := t.TempDir()
	var jobs []*sweepJob
	var n torchSweepCounts
	for _, m := range s.models {
		name := filepath.Base(filepath.Dir(m))
		g, err := onnximport.Read(m, formats.ReadOptions{})
		if err != nil {
			if s.strictImport {
				t.Errorf("%s: %v", name, err)
			} else {
				t.Logf("not imported %s: %v", name, err)
			}
			n.notImported++
			continue
		}
		if nonTensorIO(g) {
			g.Close()
			t.Logf("not run %s: its inputs or outputs are sequences or optionals, which the driver does not feed or save", name)
			n.refused++
			continue
		}
		if dt, ok := torchCannotHold(g); ok {
			g.Close()
			t.Logf("refused %s: PyTorch 1.13 has no %s tensors to feed it", name, dt)
			n.refused++
			continue
		}
		job, err := sweepExport(g, m, filepath.Join(root, name))
		g.Close()
		if err != nil {
			if !s.refusalOK(err) {
				t.Errorf("%s: unexpected export error: %v", name, err)
			}
			t.Logf("refused %s: %v", name, err)
			n.refused++
			continue
		}
		job.name = name
		jobs = append(jobs, job)
	}
	n.exported = len(jobs)
	report := runSweepJobs(t, py, root, jobs)
	for i, job := range jobs {
		if report[i] != "" {
			t.Errorf("%s: PyTorch failed on the exported model:\n%s", job.name, report[i])
			continue
		}
		ok := true
		for k, want := range job.want {
			got, err := npy.ReadFile(job.Outputs[k])
			if err != nil {
				t.Fatal(err)
			}
			if got.DType != want.DType {
				t.Errorf("%s: output %d has dtype %s, want %s", job.name, k, got.DType, want.DType)
				ok = false
				continue
			}
			res, err := compare.Tensors(got, want, 1e-3, 1e-5)
			if err != nil || !res.OK {
				t.Errorf("%s: output %d differs from the stored reference: %v %+v", job.name, k, err, res)
				ok = false
			}
		}
		if ok {
			n.matched++
		}
	}
	return n
}

// isUnsupported reports the exporter's refusal of an op or parameter it
// cannot write.
func isUnsupported(err error) bool {
	var unsup *unsupportedError
	return errors.As(err, &unsup)
}

// nodeCaseModels lists model.onnx of the ONNX 1.22 cases matching patterns.
func nodeCaseModels(t *testing.T, patterns ...string) []string {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	var out []string
	for _, pat := range patterns {
		m, _ := filepath.Glob(filepath.Join(suite, pat, "model.onnx"))
		out = append(out, m...)
	}
	return out
}

// TestONNXNodeModelsRunInTorch exports every ONNX backend node test the
// exporter accepts, runs the generated model.py in real PyTorch and compares
// with the stored reference outputs. A model the exporter refuses must be
// refused with an error naming a node or value; anything that exports must
// run and match.
func TestONNXNodeModelsRunInTorch(t *testing.T) {
	fix := testfix.Fixtures(t)
	py := torchPython(t)
	models, _ := filepath.Glob(filepath.Join(fix, "onnx-node", "*", "model.onnx"))
	if len(models) == 0 {
		t.Fatalf("no onnx-node/*/model.onnx fixtures under %s; the fixture folder is incomplete", fix)
	}
	n := torchSweep{models: models, refusalOK: func(err error) bool {
		return isUnsupported(err) || strings.Contains(err.Error(), `"`) // names a node or value
	}}.run(t, py)
	t.Logf("%d onnx-node models: %d not imported, %d refused by the exporter, %d export, %d run in PyTorch and match",
		len(models), n.notImported, n.refused, n.exported, n.matched)
}

// sweepExport exports one imported node test to dir and writes its
// inputs as .npy files.
func sweepExport(g *canon.Graph, model, dir string) (*sweepJob, error) {
	data := filepath.Join(filepath.Dir(model), "test_data_set_0")
	inputs, err := tensorfile.LoadDir(data, g.Inputs)
	if err != nil {
		return nil, err
	}
	if _, err := Export(g, dir); err != nil {
		return nil, err
	}
	job := &sweepJob{Dir: dir, Inputs: []string{}, Outputs: []string{}}
	for i, v := range g.Inputs {
		p := filepath.Join(dir, "input_"+strconv.Itoa(i)+".npy")
		if err := writeNpy(p, inputs[v.Name]); err != nil {
			return nil, err
		}
		job.Inputs = append(job.Inputs, p)
	}
	for i := range g.Outputs {
		want, err := tensorfile.Load(filepath.Join(data, tensorfile.OutputFileName(i)))
		if err != nil {
			return nil, err
		}
		job.want = append(job.want, want)
		job.Outputs = append(job.Outputs, filepath.Join(dir, "output_"+strconv.Itoa(i)+".npy"))
	}
	return job, nil
}

func writeNpy(path string, t *canon.Tensor) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := npy.Write(f, t); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
