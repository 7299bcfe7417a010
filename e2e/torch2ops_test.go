package e2e

import (
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
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

var updateTorch2Ops = flag.Bool("update-torch2-ops", false, "rewrite testdata/torch2-ops-pass.txt with the cases that pass now")

// torch2OpsFiles are the files of a torch2-ops case that are read.
var torch2OpsFiles = []string{"traced.pt", "exported.pt2"}

// torch2Outcome is how one file of one case fared.
type torch2Outcome int

const (
	torch2Pass torch2Outcome = iota
	// torch2Refused: modelbridge or ONNX Runtime refused it by name.
	torch2Refused
	// torch2Wrong: it read and ran, and an output differs from PyTorch's
	// (or the run panicked).
	torch2Wrong
)

// torch2Run is one file of one case: where it is, its test inputs, and
// what happened.
type torch2Run struct {
	name, file, dir string
	inputs          []string // test_data_set_0/input_N.pb
	outcome         torch2Outcome
	why             string
	// For the ONNX Runtime half: the exported model, the reference output
	// each of its outputs is compared with, and the graph's accumulation
	// length (for the tolerance).
	onnx     string
	refIndex []int
	accum    int64
	// ortChecked is set when ONNX Runtime's outputs matched too.
	ortChecked bool
}

func (r *torch2Run) key() string { return r.name + " " + r.file }

func (r *torch2Run) refuse(format string, args ...any) {
	r.outcome, r.why = torch2Refused, fmt.Sprintf(format, args...)
}

func (r *torch2Run) wrong(format string, args ...any) {
	r.outcome, r.why = torch2Wrong, fmt.Sprintf(format, args...)
}

// TestTorch2Ops reads every case of ../shared/fixtures/torch2-ops (PyTorch
// 2.6: one small model per torch.nn module and common op) from traced.pt
// and exported.pt2, with the shapes and element types of its test inputs,
// runs it in the interpreter and compares with PyTorch's outputs
// (test_data_set_0) under `check`'s tolerance (integers and booleans
// exact, dtypes equal). When ONNX Runtime is installed, each case that
// passes is also exported to ONNX and run there (all cases in one node
// process), and compared the same way.
//
// A wrong number fails the test, always. The cases listed in
// testdata/torch2-ops-pass.txt ("case file" per line) must pass; a case that
// passes and is not listed is logged so that the list can grow
// (-update-torch2-ops rewrites it), and every refusal is logged with its
// reason. The whole run takes under a minute on two cores, ONNX Runtime
// included (it runs whenever package ort finds an install, as in CI).
func TestTorch2Ops(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "torch2-ops")
	dirs, _ := filepath.Glob(filepath.Join(suite, "*", "test_data_set_0"))
	if len(dirs) == 0 {
		t.Fatalf("no cases under %s", suite)
	}
	sort.Strings(dirs)
	root := testfix.RepoRoot()
	listPath := filepath.Join(root, "testdata", "torch2-ops-pass.txt")
	mustPass := readCaseList(t, listPath)
	tmp := t.TempDir()

	rt, ortErr := ort.Find("")
	var runs []*torch2Run
	for _, data := range dirs {
		dir := filepath.Dir(data)
		inputs, _ := filepath.Glob(filepath.Join(data, "input_*.pb"))
		sort.Slice(inputs, func(i, j int) bool { return fileIndex(inputs[i]) < fileIndex(inputs[j]) })
		for _, file := range torch2OpsFiles {
			if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
				continue
			}
			r := &torch2Run{name: filepath.Base(dir), file: file, dir: dir, inputs: inputs}
			r.runInterp(ortErr == nil, tmp)
			runs = append(runs, r)
		}
	}
	if ortErr == nil {
		runTorch2ORT(t, rt, runs)
	} else {
		t.Logf("ONNX Runtime half skipped: %v", ortErr)
	}

	passed := map[string]int{}
	ortChecked := map[string]int{}
	refused := map[string]int{}
	reasons := map[string]int{}
	var passing []string
	for _, r := range runs {
		switch r.outcome {
		case torch2Pass:
			passed[r.file]++
			if r.ortChecked {
				ortChecked[r.file]++
			}
			passing = append(passing, r.key())
			if !mustPass[r.key()] {
				t.Logf("passes and is not in %s: %s", filepath.Base(listPath), r.key())
			}
		case torch2Wrong:
			t.Errorf("%s: wrong result: %s", r.key(), r.why)
		case torch2Refused:
			refused[r.file]++
			reasons[torch2Reason(r.why)]++
			if mustPass[r.key()] {
				t.Errorf("%s is listed as passing and is refused now: %s", r.key(), r.why)
			} else if testing.Verbose() {
				t.Logf("refused: %s: %s", r.key(), r.why)
			}
		}
	}
	for _, file := range torch2OpsFiles {
		t.Logf("%s: %d pass (%d of them also in ONNX Runtime), %d refused", file, passed[file], ortChecked[file], refused[file])
	}
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
		if i == 30 {
			break
		}
		t.Logf("  %4d  %s", c.n, c.reason)
	}
	if *updateTorch2Ops {
		if err := os.WriteFile(listPath, []byte(strings.Join(passing, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runInterp reads the file with the inputs' shapes and element types, runs
// it and compares; with export set, a passing case is written to ONNX for
// the ONNX Runtime half.
func (r *torch2Run) runInterp(export bool, tmp string) {
	defer func() {
		if p := recover(); p != nil {
			r.wrong("panic: %v", p)
		}
	}()
	opts := formats.ReadOptions{InputShapes: map[string][]int64{}, InputDTypes: map[string]canon.DType{}}
	feeds := make([]*canon.Tensor, len(r.inputs))
	for i, f := range r.inputs {
		x, err := onnxtensor.ReadFile(f)
		if err != nil {
			r.refuse("test input: %v", err)
			return
		}
		key := "#" + strconv.Itoa(i)
		opts.InputShapes[key], opts.InputDTypes[key], feeds[i] = x.Shape, x.DType, x
	}
	g, _, err := formats.Read(filepath.Join(r.dir, r.file), "", opts)
	if err != nil {
		r.refuse("%v", err)
		return
	}
	defer g.Close()
	if len(g.Inputs) != len(feeds) {
		r.refuse("the graph has %d inputs, the test data %d", len(g.Inputs), len(feeds))
		return
	}
	r.refIndex, err = referenceIndices(g, filepath.Join(r.dir, "test_data_set_0"))
	if err != nil {
		r.refuse("%v", err)
		return
	}
	feed := map[string]*canon.Tensor{}
	for i, in := range g.Inputs {
		feed[in.Name] = feeds[i]
	}
	outs, err := interp.Run(g, feed)
	if err != nil {
		r.refuse("interpreter: %v", err)
		return
	}
	if err := g.Infer(); err == nil {
		r.accum = compare.AccumulationLength(g)
	}
	for i, o := range g.Outputs {
		if why := r.compareOutput(outs[o.Name], r.refIndex[i]); why != "" {
			r.wrong("interpreter: %s", why)
			return
		}
	}
	if !export {
		return
	}
	exp, err := formats.FindExporter("", "onnx")
	if err != nil {
		r.refuse("%v", err)
		return
	}
	r.onnx = filepath.Join(tmp, r.name+"."+r.file+".onnx")
	if err := exp.Write(g, r.onnx, formats.WriteOptions{Opset: formats.OpsetAuto}); err != nil {
		r.onnx = ""
		r.refuse("ONNX export: %v", err)
	}
}

// compareOutput compares one output with reference output_<ref>.pb; it
// returns what differs, or "".
func (r *torch2Run) compareOutput(got *canon.Tensor, ref int) string {
	want, err := onnxtensor.ReadFile(filepath.Join(r.dir, "test_data_set_0", fmt.Sprintf("output_%d.pb", ref)))
	if err != nil {
		return err.Error()
	}
	if got == nil {
		return fmt.Sprintf("output %d was not produced", ref)
	}
	if got.DType != want.DType {
		return fmt.Sprintf("output %d is %s, PyTorch's is %s", ref, got.DType, want.DType)
	}
	tol := compare.Tolerance{RTol: compare.DefaultRTol, ATol: compare.DefaultATol, AccumLen: r.accum}
	res, err := tol.Check(got, want)
	if err != nil {
		return fmt.Sprintf("output %d: %v", ref, err)
	}
	if !res.OK {
		return fmt.Sprintf("output %d: max abs error %.3g, max rel error %.3g (%d of %d elements outside the tolerance; at %v got %g, want %g)",
			ref, res.MaxAbs, res.MaxRel, res.Mismatched, res.Elements, res.Worst, res.WorstGot, res.WorstWant)
	}
	return ""
}

// referenceIndices maps each graph output onto its reference file: the
// TorchScript importer names outputs after their position in forward's
// result ("output", "output_K"), so a result it left out (with a note)
// leaves a gap; other graphs' outputs are in the reference's order. Every
// reference output must be produced.
func referenceIndices(g *canon.Graph, data string) ([]int, error) {
	refs, _ := filepath.Glob(filepath.Join(data, "output_*.pb"))
	idx := make([]int, len(g.Outputs))
	byName := true
	for i, o := range g.Outputs {
		switch {
		case o.Name == "output" && len(g.Outputs) == 1:
			idx[i] = 0
		case strings.HasPrefix(o.Name, "output_"):
			k, err := strconv.Atoi(strings.TrimPrefix(o.Name, "output_"))
			if err != nil {
				byName = false
			}
			idx[i] = k
		default:
			byName = false
		}
	}
	if !byName {
		for i := range idx {
			idx[i] = i
		}
	}
	seen := map[int]bool{}
	for _, k := range idx {
		if k < 0 || k >= len(refs) || seen[k] {
			return nil, fmt.Errorf("the graph's outputs %v do not match the %d reference outputs", outputNames(g), len(refs))
		}
		seen[k] = true
	}
	if len(idx) < len(refs) {
		return nil, fmt.Errorf("%d of the %d reference outputs are produced (%s)", len(idx), len(refs), strings.Join(g.Meta.Notes, "; "))
	}
	return idx, nil
}

func outputNames(g *canon.Graph) []string {
	var out []string
	for _, o := range g.Outputs {
		out = append(out, o.Name)
	}
	return out
}

// fileIndex is N of input_N.pb.
func fileIndex(path string) int {
	base := strings.TrimSuffix(filepath.Base(path), ".pb")
	n, _ := strconv.Atoi(base[strings.LastIndexByte(base, '_')+1:])
	return n
}

// runTorch2ORT runs every exported case in ONNX Runtime (all graph
// optimizations), in one node process (restarted after a case that aborts
// it), and compares.
func runTorch2ORT(t *testing.T, rt *ort.Runtime, runs []*torch2Run) {
	var cases []ort.Case
	var exported []*torch2Run
	for _, r := range runs {
		if r.outcome == torch2Pass && r.onnx != "" {
			cases = append(cases, ort.Case{Model: r.onnx, Inputs: r.inputs, Out: r.onnx + ".out"})
			exported = append(exported, r)
		}
	}
	if len(cases) == 0 {
		return
	}
	outcomes, err := rt.RunBatch(cases, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range exported {
		c := cases[i]
		if err := outcomes[i].Err; err != nil {
			r.refuse("ONNX Runtime: %s", firstLine(strings.TrimPrefix(err.Error(), "ONNX Runtime failed on "+c.Model+": ")))
			continue
		}
		for k, ref := range r.refIndex {
			got, err := onnxtensor.ReadFile(filepath.Join(c.Out, fmt.Sprintf("output_%d.pb", k)))
			if err != nil {
				r.refuse("ONNX Runtime: %v", err)
				break
			}
			if why := r.compareOutput(got, ref); why != "" {
				r.wrong("ONNX Runtime: %s", why)
				break
			}
		}
		r.ortChecked = r.outcome == torch2Pass
	}
}

// codeLine is the code/ file and line a TorchScript refusal starts with.
var codeLine = regexp.MustCompile(`^code/[^ ]*\.py:[0-9]+: `)

// torch2Reason groups refusals: the message after the file name, with
// names and numbers blanked.
func torch2Reason(why string) string {
	msg := firstLine(why)
	for _, f := range torch2OpsFiles {
		if i := strings.Index(msg, f+": "); i >= 0 {
			msg = msg[i+len(f)+2:]
		}
	}
	if i := strings.Index(msg, "operator "); i >= 0 && strings.Contains(msg, "is not supported") {
		msg = msg[i:]
		if j := strings.Index(msg, " is not supported"); j >= 0 {
			return "unsupported " + msg[len("operator "):j]
		}
	}
	msg = codeLine.ReplaceAllString(msg, "")
	msg = quoted.ReplaceAllString(msg, "…")
	if len(msg) > 110 {
		msg = msg[:110]
	}
	return msg
}
