package torchexport

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestReduceNodeCasesRunInTorch writes the ONNX 1.22 node cases of the
// reduce family (every Reduce*, ArgMax/ArgMin with select_last_index,
// CumSum, TopK) as model.py, runs them in PyTorch 1.13 and compares with
// the suite's outputs. Cases whose axes or k arrive at run time are refused
// by name, as model.py takes them only as constants.
func TestReduceNodeCasesRunInTorch(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	py := torchPython(t)
	var cases []string
	for _, pat := range []string{"test_reduce_*", "test_argmax_*", "test_argmin_*", "test_cumsum_*", "test_top_k*"} {
		m, _ := filepath.Glob(filepath.Join(suite, pat))
		cases = append(cases, m...)
	}
	root := t.TempDir()
	var jobs []*sweepJob
	refused := 0
	for _, dir := range cases {
		name := filepath.Base(dir)
		model := filepath.Join(dir, "model.onnx")
		g, err := onnximport.Read(model, formats.ReadOptions{})
		if err != nil {
			t.Logf("not imported %s: %v", name, err) // IR versions beyond the reader's, ops of other families
			continue
		}
		job, err := sweepExport(g, model, filepath.Join(root, name))
		g.Close()
		if err != nil {
			var unsup *unsupportedError
			if !errors.As(err, &unsup) {
				t.Errorf("%s: %v", name, err)
			}
			t.Logf("refused %s: %v", name, err)
			refused++
			continue
		}
		job.name = name
		jobs = append(jobs, job)
	}
	if len(jobs) < 35 {
		t.Errorf("only %d of %d reduce cases export", len(jobs), len(cases))
	}
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
	for i, job := range jobs {
		if report[i] != "" {
			t.Errorf("%s: PyTorch failed on the exported model:\n%s", job.name, report[i])
			continue
		}
		for k, want := range job.want {
			got, err := npy.ReadFile(job.Outputs[k])
			if err != nil {
				t.Fatal(err)
			}
			if got.DType != want.DType {
				t.Errorf("%s: output %d has dtype %s, want %s", job.name, k, got.DType, want.DType)
				continue
			}
			if res, err := compare.Tensors(got, want, 1e-3, 1e-5); err != nil || !res.OK {
				t.Errorf("%s: output %d differs from the suite: %v %+v", job.name, k, err, res)
			}
		}
	}
	t.Logf("%d reduce cases: %d run in PyTorch, %d refused (run-time parameters)", len(cases), len(jobs), refused)
}
