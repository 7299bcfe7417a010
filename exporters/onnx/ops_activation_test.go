package onnxexport

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// activationCasePrefixes select the ONNX 1.22 node cases of the activation
// family.
var activationCasePrefixes = []string{"test_logsoftmax", "test_hardmax", "test_celu", "test_mish",
	"test_thresholdedrelu", "test_shrink", "test_einsum"}

// TestActivationNodeCasesRoundTrip writes every activation-family node case
// ONNX Runtime passes at opsets 11, 13 and 17 and runs the result in ONNX
// Runtime against the suite's expected outputs. Einsum at opset 11 must be
// refused naming the op and the opset.
func TestActivationNodeCasesRoundTrip(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	runner := testfix.ORTRunner(t)
	f, err := os.Open(filepath.Join(testfix.RepoRoot(), "testdata", "onnx-node-1.22-ort-pass.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.TrimSpace(sc.Text())
		for _, p := range activationCasePrefixes {
			if strings.HasPrefix(c, p) {
				cases = append(cases, c)
				break
			}
		}
	}
	f.Close()
	tmp := t.TempDir()
	var jobs []*ortJob
	for _, c := range cases {
		g, err := onnximport.Read(filepath.Join(suite, c, "model.onnx"), formats.ReadOptions{})
		if err != nil {
			t.Errorf("%s: does not import: %v", c, err)
			continue
		}
		sets, _ := filepath.Glob(filepath.Join(suite, c, "test_data_set_*"))
		for _, opset := range []int{11, 13, 17} {
			dir := filepath.Join(tmp, fmt.Sprintf("%s@%d", c, opset))
			p := filepath.Join(dir, "model.onnx")
			os.MkdirAll(dir, 0o755)
			if err := Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
				if strings.HasPrefix(c, "test_einsum") && opset == 11 && strings.Contains(err.Error(), "(Einsum)") && strings.Contains(err.Error(), "opset 12") {
					continue
				}
				t.Errorf("%s at opset %d: %v", c, opset, err)
				continue
			}
			for _, set := range sets {
				jobs = append(jobs, &ortJob{ID: len(jobs), Model: p, Inputs: set, Out: filepath.Join(dir, "out_"+filepath.Base(set)),
					label: fmt.Sprintf("%s@%d/%s", c, opset, filepath.Base(set)), want: set})
			}
		}
		g.Close()
	}
	results := runORT(t, runner, jobs)
	passed := 0
	for _, j := range jobs {
		if r := results[j.ID]; !r.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
			continue
		}
		if err := sameAsExpected(j.Out, j.want); err != nil {
			t.Errorf("%s: %v", j.label, err)
			continue
		}
		passed++
	}
	t.Logf("%d activation-family cases; %d runs in ONNX Runtime passed of %d", len(cases), passed, len(jobs))
}

// TestEinsumRefusedBelowOpset12: ONNX has no Einsum before opset 12.
func TestEinsumRefusedBelowOpset12(t *testing.T) {
	g, err := canon.Lookup("Einsum").ExampleGraph()
	if err != nil {
		t.Fatal(err)
	}
	err = Write(g, filepath.Join(t.TempDir(), "e.onnx"), formats.WriteOptions{Opset: 11})
	if err == nil || !strings.Contains(err.Error(), "Einsum") || !strings.Contains(err.Error(), "opset 12") {
		t.Fatalf("got %v, want a refusal naming Einsum and opset 12", err)
	}
}
