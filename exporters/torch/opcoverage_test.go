package torchexport

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/interp"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestCoverageNamesEveryKind: the exporter's coverage gives every
// registered kind a support or a reason, and its tables name only
// registered kinds, each once.
func TestCoverageNamesEveryKind(t *testing.T) {
	for _, gap := range canon.Gaps(map[string]canon.Coverage{"torch exporter": Coverage()}) {
		t.Error(gap)
	}
	for kind := range opWriters {
		if canon.Lookup(kind) == nil {
			t.Errorf("opWriters has an entry for %s, which canon does not register (stale entry)", kind)
		}
		if _, both := opLacks[kind]; both {
			t.Errorf("%s is both written and declared unsupported", kind)
		}
	}
	for kind, reason := range opLacks {
		if canon.Lookup(kind) == nil {
			t.Errorf("opLacks names %s, which canon does not register (stale entry)", kind)
		}
		if reason == "" {
			t.Errorf("opLacks gives %s no reason", kind)
		}
	}
}

// TestEveryOpExample walks every registered kind's example graph through
// the exporter: it exports, or is refused with an error naming the op (a
// kind declared unsupported must be refused).
// With PyTorch at /usr/bin/python3, every exported model.py runs (all in
// one Python process) and matches the interpreter.
func TestEveryOpExample(t *testing.T) {
	root := t.TempDir()
	cov := Coverage()
	var jobs []*sweepJob
	for _, d := range canon.Ops() {
		g, err := d.ExampleGraph()
		if err != nil {
			t.Errorf("%s: %v", d.Kind, err)
			continue
		}
		dir := filepath.Join(root, d.Kind)
		_, err = Export(g, dir)
		if !cov[d.Kind].Handled {
			var unsup *unsupportedError
			if err == nil || !errors.As(err, &unsup) || !strings.Contains(err.Error(), d.Kind) {
				t.Errorf("%s is declared unsupported (%s) but export gave %v; want a refusal naming the op", d.Kind, cov[d.Kind].Reason, err)
			}
			continue
		}
		if err != nil {
			// A handled kind may still refuse an instance its detail
			// excludes; the refusal must name the op.
			var unsup *unsupportedError
			if !errors.As(err, &unsup) || !strings.Contains(err.Error(), d.Kind) {
				t.Errorf("%s: the example was refused without naming the op: %v", d.Kind, err)
			}
			t.Logf("%s: this instance is refused (%s): %v", d.Kind, cov[d.Kind].Detail, err)
			continue
		}
		if nonTensorIO(g) {
			// The driver feeds and saves tensors; sequences and optionals
			// run inside sequenceGraph (TestSequencesInTorch).
			continue
		}
		job, interpErr, err := exampleJob(g, dir)
		if err != nil {
			t.Errorf("%s: %v", d.Kind, err)
			continue
		}
		if interpErr != nil {
			// The interpreter is another backend with its own table; the
			// export and the PyTorch run are still checked.
			t.Logf("%s: the interpreter cannot run the example, so model.py's outputs are not compared: %v", d.Kind, interpErr)
		}
		job.name = d.Kind
		jobs = append(jobs, job)
	}
	if err := testfix.PythonImports("numpy"); err != nil {
		t.Logf("model.py not run: %v", err)
		return
	}
	py := testfix.Python
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
	matched := 0
	for i, job := range jobs {
		if report[i] != "" {
			t.Errorf("%s: PyTorch failed on the exported model:\n%s", job.name, report[i])
			continue
		}
		if job.want == nil {
			continue // the interpreter could not run it (logged)
		}
		ok := true
		for k, want := range job.want {
			got, err := npy.ReadFile(job.Outputs[k])
			if err != nil {
				t.Fatal(err)
			}
			if got.DType != want.DType {
				t.Errorf("%s: output %d has dtype %s, the interpreter's is %s", job.name, k, got.DType, want.DType)
				ok = false
				continue
			}
			res, err := compare.Tensors(got, want, 1e-5, 1e-6)
			if k < len(job.drawn) && job.drawn[k] {
				res, err = compare.Drawn(got, want)
			}
			if err != nil || !res.OK {
				t.Errorf("%s: output %d differs from the interpreter: %v %+v", job.name, k, err, res)
				ok = false
			}
		}
		if ok {
			matched++
		}
	}
	t.Logf("%d kinds exported; %d ran in PyTorch and match the interpreter", len(jobs), matched)
}

// exampleJob writes deterministic inputs for an example graph beside its
// export and runs the interpreter on them for the expected outputs
// (interpErr says why there are none).
func exampleJob(g *canon.Graph, dir string) (job *sweepJob, interpErr, err error) {
	job = &sweepJob{Dir: dir, Inputs: []string{}, Outputs: []string{}}
	inputs := map[string]*canon.Tensor{}
	for i, v := range g.Inputs {
		shape, ok := v.StaticShape()
		if !ok {
			return nil, nil, errors.New("example input " + v.Name + " has no static shape")
		}
		x := exampleInput(v.Name, v.DType, shape, i)
		inputs[v.Name] = x
		p := filepath.Join(dir, "input_"+strconv.Itoa(i)+".npy")
		if err := writeNpy(p, x); err != nil {
			return nil, nil, err
		}
		job.Inputs = append(job.Inputs, p)
	}
	for i := range g.Outputs {
		job.Outputs = append(job.Outputs, filepath.Join(dir, "output_"+strconv.Itoa(i)+".npy"))
	}
	outs, err := interp.Run(g, inputs)
	if err != nil {
		return job, err, nil
	}
	for _, o := range g.Outputs {
		job.want = append(job.want, outs[o.Name])
	}
	job.drawn = canon.DrawnOutputs(g)
	return job, nil, nil
}

// exampleInput is a tensor of values in [-2, 2] (integers for integer
// dtypes), different for each input k.
func exampleInput(name string, dt canon.DType, shape []int64, k int) *canon.Tensor {
	n := canon.NumElements(shape)
	if dt == canon.Float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(2 * math.Sin(float64(i)*0.9+float64(k)*0.7+0.1))
		}
		return canon.NewFloat32Tensor(name, shape, v)
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i+k)%5 - 2
	}
	t := canon.NewInt64Tensor(name, shape, v)
	if dt != canon.Int64 {
		t.DType, t.Data = dt, make([]byte, n*int64(dt.Size()))
	}
	return t
}
