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
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// nodeRoundTrip writes ONNX 1.22 node cases with the exporter at each of
// opsets, runs every data set in ONNX Runtime and compares with the suite's
// expected outputs.
type nodeRoundTrip struct {
	cases  []string // case folder names
	opsets []int
	// skipUnreadable skips a case the importer refuses instead of failing.
	skipUnreadable bool
	// refusal reports whether an export error is an accepted refusal.
	refusal func(c string, opset int, err error) bool
}

// run returns how many cases were read, how many runs there were and how
// many case×opset pairs the exporter refused.
func (r nodeRoundTrip) run(t *testing.T) (read, runs, refused int) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	rt := testfix.ORT(t)
	tmp := t.TempDir()
	var jobs []*ortJob
	for _, c := range r.cases {
		g, err := onnximport.Read(filepath.Join(suite, c, "model.onnx"), formats.ReadOptions{})
		if err != nil {
			if !r.skipUnreadable {
				t.Errorf("%s: does not import: %v", c, err)
			}
			continue
		}
		read++
		if bfloat16IO(g) {
			// ONNX Runtime's Node binding cannot pass bfloat16 tensors in or
			// out, whatever wrote the model.
			g.Close()
			continue
		}
		sets, _ := filepath.Glob(filepath.Join(suite, c, "test_data_set_*"))
		for _, opset := range r.opsets {
			dir := filepath.Join(tmp, fmt.Sprintf("%s@%d", c, opset))
			p := filepath.Join(dir, "model.onnx")
			os.MkdirAll(dir, 0o755)
			if err := Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
				if r.refusal(c, opset, err) {
					refused++
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
	results := runORT(t, rt, jobs)
	for _, j := range jobs {
		if res := results[j.ID]; !res.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, res.Err)
		} else if err := sameAsExpected(j.Out, j.want); err != nil {
			t.Errorf("%s: %v", j.label, err)
		}
	}
	return read, len(jobs), refused
}

// bfloat16IO reports whether a graph input or output is bfloat16.
func bfloat16IO(g *canon.Graph) bool {
	for _, v := range append(append([]canon.ValueInfo{}, g.Inputs...), g.Outputs...) {
		if v.DType == canon.BFloat16 {
			return true
		}
	}
	return false
}

// allOpsets is the opsets the ONNX Runtime sweeps write: both ends, and
// the opsets at which writers change (12: Clip/ArgMax/Dropout forms, 13:
// inputs instead of attributes, 14: HardSwish and 8/16-bit arithmetic, 18:
// Reduce axes, Bitwise, Mish, 20: Gelu); TestEveryKind adds each op's
// native opset. MODELBRIDGE_ALL_OPSETS=1 sweeps every opset, which takes
// about twice as long.
func allOpsets() []int {
	if os.Getenv("MODELBRIDGE_ALL_OPSETS") != "" {
		var out []int
		for o := MinOpset; o <= MaxOpset; o++ {
			out = append(out, o)
		}
		return out
	}
	return []int{MinOpset, 12, 13, 14, 18, 20, MaxOpset}
}

// refusedByOpset accepts an export error that names the opset the op needs.
func refusedByOpset(_ string, _ int, err error) bool {
	return isRefusal(err) && strings.Contains(err.Error(), "opset")
}

// nodeCasesMatching lists the suite's case folders matching any pattern.
func nodeCasesMatching(t *testing.T, patterns []string) []string {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	var out []string
	for _, pat := range patterns {
		m, _ := filepath.Glob(filepath.Join(suite, pat))
		for _, dir := range m {
			out = append(out, filepath.Base(dir))
		}
	}
	return out
}

// ortPassingCases lists the cases ONNX Runtime 1.30 passes as shipped.
func ortPassingCases(t *testing.T) []string {
	return readLines(t, filepath.Join(testfix.RepoRoot(), "testdata", "onnx-node-1.22-ort-pass.txt"))
}

// ortUnoptimizedFails lists the cases ONNX Runtime 1.30 passes with its
// default graph optimizations but refuses, as shipped, with them disabled
// (as these tests run it), with why.
var ortUnoptimizedFails = map[string]string{
	"test_attention_4d_fp16_expanded":                           "float16 Cast: the precision-free cast ORT inserts has the wrong type",
	"test_attention_4d_gqa_with_past_and_present_fp16_expanded": "float16 Cast: the precision-free cast ORT inserts has the wrong type",
}

// TestORTNodeSuite122 converts every ONNX 1.22 node case that modelbridge
// runs (testdata/onnx-node-1.22-pass.txt) and ONNX Runtime runs too at
// opsets 11, 13, 17 and the newest, runs the result in ONNX Runtime and compares with
// the suite's expected outputs (rtol 1e-3, atol 1e-5; integers and booleans
// exact). An op the target opset cannot express is a refusal, counted, not a
// failure.
func TestORTNodeSuite122(t *testing.T) {
	// Only cases ONNX Runtime itself runs: it lacks kernels for some
	// dtypes (int16 Max, uint32 exponents) whatever writes the model.
	ortRuns := map[string]bool{}
	for _, c := range ortPassingCases(t) {
		ortRuns[c] = true
	}
	var cases []string
	for _, c := range readLines(t, filepath.Join(testfix.RepoRoot(), "testdata", "onnx-node-1.22-pass.txt")) {
		if ortRuns[c] && ortUnoptimizedFails[c] == "" {
			cases = append(cases, c)
		}
	}
	rt := nodeRoundTrip{cases: cases, opsets: []int{11, 13, 17, MaxOpset}, refusal: func(_ string, _ int, err error) bool {
		return isRefusal(err) || strings.Contains(err.Error(), "ONNX cannot express this op")
	}}
	_, runs, refused := rt.run(t)
	t.Logf("ONNX 1.22 node cases written by modelbridge and run in ONNX Runtime: %d cases, %d runs (%d case×opset pairs refused by opset)", len(cases), runs, refused)
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
		if err := compare.ONNXBackend(got, want); err != nil {
			return fmt.Errorf("%s: %v", name, err)
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
