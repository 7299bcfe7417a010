package onnxexport

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestORTNodeSuite122 converts every ONNX 1.22 node case that modelbridge
// runs (testdata/onnx-node-1.22-pass.txt) at opsets 11, 13 and 17, runs the
// result in ONNX Runtime and compares with the suite's expected outputs
// (rtol 1e-3, atol 1e-5; integers and booleans exact). An op the target
// opset cannot express is a refusal, counted, not a failure.
func TestORTNodeSuite122(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	runner := testfix.ORTRunner(t)
	// Only cases ONNX Runtime itself runs: it lacks kernels for some
	// dtypes (int16 Max, uint32 exponents) whatever writes the model.
	ortRuns := map[string]bool{}
	for _, c := range readLines(t, filepath.Join(testfix.RepoRoot(), "testdata", "onnx-node-1.22-ort-pass.txt")) {
		ortRuns[c] = true
	}
	var cases []string
	for _, c := range readLines(t, filepath.Join(testfix.RepoRoot(), "testdata", "onnx-node-1.22-pass.txt")) {
		if ortRuns[c] {
			cases = append(cases, c)
		}
	}
	tmp := t.TempDir()
	var jobs []*ortJob
	refused := 0
	for _, c := range cases {
		model := filepath.Join(suite, c, "model.onnx")
		g, err := onnximport.Read(model, formats.ReadOptions{})
		if err != nil {
			t.Errorf("%s: listed as passing but does not import: %v", c, err)
			continue
		}
		sets, _ := filepath.Glob(filepath.Join(suite, c, "test_data_set_*"))
		for _, opset := range []int{11, 13, 17} {
			dir := filepath.Join(tmp, fmt.Sprintf("%s@%d", c, opset))
			p := filepath.Join(dir, "model.onnx")
			os.MkdirAll(dir, 0o755)
			if err := Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
				if isRefusal(err) || strings.Contains(err.Error(), "ONNX cannot express this op") {
					refused++
					continue
				}
				t.Errorf("%s at opset %d: %v", c, opset, err)
				continue
			}
			for _, set := range sets {
				id := len(jobs)
				jobs = append(jobs, &ortJob{ID: id, Model: p, Inputs: set, Out: filepath.Join(dir, "out_"+filepath.Base(set)),
					label: fmt.Sprintf("%s@%d/%s", c, opset, filepath.Base(set)), want: set})
			}
		}
		g.Close()
	}
	results := runORT(t, runner, jobs)
	passed := 0
	for _, j := range jobs {
		r := results[j.ID]
		if !r.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
			continue
		}
		if err := sameAsExpected(j.Out, j.want); err != nil {
			t.Errorf("%s: %v", j.label, err)
			continue
		}
		passed++
	}
	t.Logf("ONNX 1.22 node cases written by modelbridge and run in ONNX Runtime: %d runs passed of %d (%d case×opset pairs refused by opset)", passed, len(jobs), refused)
}

// sameAsExpected compares every output_N.pb of got with want's.
func sameAsExpected(gotDir, wantDir string) error {
	wants, _ := filepath.Glob(filepath.Join(wantDir, "output_*.pb"))
	for i := range wants {
		name := fmt.Sprintf("output_%d.pb", i)
		want, err := onnxtensor.ReadFile(filepath.Join(wantDir, name))
		if err != nil {
			return err
		}
		got, err := onnxtensor.ReadFile(filepath.Join(gotDir, name))
		if err != nil {
			return err
		}
		if err := sameTensor(got, want); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
	}
	return nil
}

func sameTensor(got, want *canon.Tensor) error {
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	if got.DType != want.DType {
		return fmt.Errorf("dtype %s, want %s", got.DType, want.DType)
	}
	if !want.DType.IsFloat() {
		if string(got.Data) != string(want.Data) {
			return fmt.Errorf("values differ")
		}
		return nil
	}
	g, err := got.Float64s()
	if err != nil {
		return err
	}
	w, err := want.Float64s()
	if err != nil {
		return err
	}
	for i := range w {
		if g[i] == w[i] || (math.IsNaN(g[i]) && math.IsNaN(w[i])) {
			continue
		}
		if !(math.Abs(g[i]-w[i]) <= 1e-5+1e-3*math.Abs(w[i])) {
			return fmt.Errorf("element %d = %v, want %v", i, g[i], w[i])
		}
	}
	return nil
}

func readLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if c := strings.TrimSpace(sc.Text()); c != "" {
			out = append(out, c)
		}
	}
	return out
}
