package e2e

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

var updateNodeSuite = flag.Bool("update-node-suite", false, "rewrite testdata/onnx-node-1.22-pass.txt with the cases that pass now")

// TestONNXNodeSuite122 runs every case of ONNX 1.22's node conformance
// suite through the ONNX reader and the interpreter (rtol 1e-3, atol 1e-5;
// integers and booleans exact). The cases listed in
// testdata/onnx-node-1.22-pass.txt must pass: one that stops passing fails
// the test. testdata/onnx-node-1.22-ort-pass.txt lists the cases ONNX
// Runtime 1.30 passes, so the summary can say which of those still fail.
// The whole sweep takes about a second: most cases are tiny.
func TestONNXNodeSuite122(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	cases, _ := filepath.Glob(filepath.Join(suite, "*", "model.onnx"))
	if len(cases) == 0 {
		t.Fatalf("no cases under %s", suite)
	}
	root := testfix.RepoRoot()
	mustPass := readCaseList(t, filepath.Join(root, "testdata", "onnx-node-1.22-pass.txt"))
	ortPass := readCaseList(t, filepath.Join(root, "testdata", "onnx-node-1.22-ort-pass.txt"))

	var passing []string
	reasons := map[string]int{}
	var ortOnly []string
	for _, model := range cases {
		name := filepath.Base(filepath.Dir(model))
		err := runNodeCase(model)
		if err == nil {
			passing = append(passing, name)
			continue
		}
		reasons[reasonOf(err)]++
		if mustPass[name] {
			t.Errorf("%s passed before and fails now: %v", name, err)
		}
		if ortPass[name] {
			ortOnly = append(ortOnly, name+": "+firstLine(err.Error()))
		}
	}
	t.Logf("ONNX 1.22 node suite: %d of %d cases pass (ONNX Runtime 1.30 passes %d)", len(passing), len(cases), len(ortPass))
	type count struct {
		reason string
		n      int
	}
	var top []count
	for r, n := range reasons {
		top = append(top, count{r, n})
	}
	sort.Slice(top, func(i, j int) bool {
		return top[i].n > top[j].n || (top[i].n == top[j].n && top[i].reason < top[j].reason)
	})
	for i, c := range top {
		if i == 40 {
			break
		}
		t.Logf("  %4d  %s", c.n, c.reason)
	}
	if testing.Verbose() {
		for _, s := range ortOnly {
			t.Logf("ORT passes, modelbridge does not: %s", s)
		}
	}
	if *updateNodeSuite {
		path := filepath.Join(root, "testdata", "onnx-node-1.22-pass.txt")
		if err := os.WriteFile(path, []byte(strings.Join(passing, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runNodeCase reads one case and runs each of its data sets; any error,
// wrong value or panic fails it.
func runNodeCase(model string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	g, _, err := formats.Read(model, "onnx", formats.ReadOptions{})
	if err != nil {
		return err
	}
	defer g.Close()
	p, err := interp.New(g)
	if err != nil {
		return err
	}
	sets, _ := filepath.Glob(filepath.Join(filepath.Dir(model), "test_data_set_*"))
	if len(sets) == 0 {
		return fmt.Errorf("no test_data_set_* folder")
	}
	for _, set := range sets {
		inputs := map[string]canon.Value{}
		for i, in := range g.Inputs {
			v, err := onnxtensor.ReadValueFile(filepath.Join(set, "input_"+strconv.Itoa(i)+".pb"), in)
			if err != nil {
				return err
			}
			inputs[in.Name] = v
		}
		outs, err := p.RunValues(inputs)
		if err != nil {
			return err
		}
		drawn := canon.DrawnOutputs(g)
		for i, o := range g.Outputs {
			want, err := onnxtensor.ReadValueFile(filepath.Join(set, "output_"+strconv.Itoa(i)+".pb"), o)
			if err != nil {
				return err
			}
			if drawn[i] {
				// Random draws (Bernoulli): the suite's values are one
				// generator's; shape, dtype and range are what can match.
				gt, _ := outs[o.Name].(*canon.Tensor)
				wt, _ := want.(*canon.Tensor)
				if gt == nil || wt == nil {
					return fmt.Errorf("wrong result: drawn output %q is not a tensor", o.Name)
				}
				if r, err := compare.Drawn(gt, wt); err != nil || !r.OK {
					return fmt.Errorf("wrong result: drawn output %q: %v %+v", o.Name, err, r)
				}
				if err := drawnWithin(gt, wt); err != nil {
					return fmt.Errorf("wrong result: drawn output %q: %v", o.Name, err)
				}
				continue
			}
			if err := compare.ONNXBackendValue(outs[o.Name], want); err != nil {
				return fmt.Errorf("wrong result: output %q: %v", o.Name, err)
			}
		}
	}
	return nil
}

var (
	unsupportedOp = regexp.MustCompile(`\(([A-Za-z0-9_]+)\): op not supported`)
	quoted        = regexp.MustCompile(`"[^"]*"|[0-9]+`)
)

// reasonOf groups failures: the unsupported op, or the message with names
// and numbers blanked.
func reasonOf(err error) string {
	msg := firstLine(err.Error())
	if m := unsupportedOp.FindStringSubmatch(msg); m != nil {
		return "unsupported op " + m[1]
	}
	if i := strings.Index(msg, "model.onnx: "); i >= 0 {
		msg = msg[i+len("model.onnx: "):]
	}
	msg = quoted.ReplaceAllString(msg, "…")
	if len(msg) > 110 {
		msg = msg[:110]
	}
	return msg
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// readCaseList reads one case name per line; a missing file is an empty
// list.
func readCaseList(t *testing.T, path string) map[string]bool {
	out := map[string]bool{}
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return out
		}
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out[line] = true
		}
	}
	return out
}

// drawnWithin checks that draws stay within the values the suite's own
// draws take when those are 0 and 1 (Bernoulli), the one range a sample
// of a few elements shows reliably.
func drawnWithin(got, want *canon.Tensor) error {
	w, err := want.Float64s()
	if err != nil {
		return err
	}
	for _, v := range w {
		if v != 0 && v != 1 {
			return nil
		}
	}
	g, err := got.Float64s()
	if err != nil {
		return err
	}
	for i, v := range g {
		if v != 0 && v != 1 {
			return fmt.Errorf("element %d is %v; the draws are 0 or 1", i, v)
		}
	}
	return nil
}
