package onnxexport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestSequenceNodeCasesRoundTrip writes every sequence and optional case
// of the ONNX 1.22 node suite at the lowest opset that expresses it and at
// the newest, reads each file back and runs it in the interpreter against
// the suite's expected values (sequences and optionals in the SequenceProto
// and OptionalProto test data). ONNX Runtime's Node binding cannot feed or
// return sequences, so the files are checked with onnx's own checker
// (full_check: structure and type inference) instead.
func TestSequenceNodeCasesRoundTrip(t *testing.T) {
	tmp := t.TempDir()
	var checked []string
	cases := testfix.SequenceNodeCases(t, 30)
	for _, dir := range cases {
		name := filepath.Base(dir)
		g, err := onnximport.Read(filepath.Join(dir, "model.onnx"), formats.ReadOptions{})
		if err != nil {
			t.Errorf("%s: does not import: %v", name, err)
			continue
		}
		low := lowestOpset(g)
		if low == 0 {
			t.Errorf("%s: written at no opset", name)
			continue
		}
		for _, opset := range uniqueInts(low, max(low, checkerOpset), MaxOpset) {
			p := filepath.Join(tmp, fmt.Sprintf("%s@%d.onnx", name, opset))
			if err := Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
				t.Errorf("%s at opset %d: %v", name, opset, err)
				continue
			}
			if opset <= checkerOpset {
				checked = append(checked, p)
			}
			if err := runSuiteData(p, dir); err != nil {
				t.Errorf("%s at opset %d, read back: %v", name, opset, err)
			}
			if back, err := onnximport.Read(p, formats.ReadOptions{}); err == nil {
				if a, b := ioTypes(g), ioTypes(back); a != b {
					t.Errorf("%s at opset %d reads back with other input and output types: %s, wrote %s", name, opset, b, a)
				}
				back.Close()
			}
		}
		g.Close()
	}
	checkWithONNX(t, checked)
	t.Logf("%d cases written at their lowest opset, %d and %d, read back and run; %d files checked by onnx's checker", len(cases), checkerOpset, MaxOpset, len(checked))
}

// checkerOpset is the newest opset onnx 1.12 (the checker at hand) knows.
const checkerOpset = 17

// lowestOpset is the lowest opset g is written at (0 for none).
func lowestOpset(g *canon.Graph) int {
	dir, err := os.MkdirTemp("", "lowest")
	if err != nil {
		return 0
	}
	defer os.RemoveAll(dir)
	for o := MinOpset; o <= MaxOpset; o++ {
		if Write(g, filepath.Join(dir, "m.onnx"), formats.WriteOptions{Opset: o}) == nil {
			return o
		}
	}
	return 0
}

func uniqueInts(v ...int) []int {
	var out []int
	for _, x := range v {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// runSuiteData reads model and runs it on every data set of a suite case.
func runSuiteData(model, caseDir string) error {
	g, err := onnximport.Read(model, formats.ReadOptions{})
	if err != nil {
		return err
	}
	defer g.Close()
	p, err := interp.New(g)
	if err != nil {
		return err
	}
	sets, _ := filepath.Glob(filepath.Join(caseDir, "test_data_set_*"))
	for _, set := range sets {
		in := map[string]canon.Value{}
		for i, v := range g.Inputs {
			x, err := onnxtensor.ReadValueFile(filepath.Join(set, "input_"+strconv.Itoa(i)+".pb"), v)
			if err != nil {
				return err
			}
			in[v.Name] = x
		}
		outs, err := p.RunValues(in)
		if err != nil {
			return err
		}
		for i, o := range g.Outputs {
			want, err := onnxtensor.ReadValueFile(filepath.Join(set, "output_"+strconv.Itoa(i)+".pb"), o)
			if err != nil {
				return err
			}
			if err := compare.ONNXBackendValue(outs[o.Name], want); err != nil {
				return fmt.Errorf("output %q: %v", o.Name, err)
			}
		}
	}
	return nil
}

// checkWithONNX runs onnx's checker with full_check on every path, or
// skips when /usr/bin/python3 has no onnx.
func checkWithONNX(t *testing.T, paths []string) {
	t.Helper()
	if len(paths) == 0 {
		return
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import onnx").Run(); err != nil {
		t.Logf("skipping onnx's checker: /usr/bin/python3 cannot import onnx (apt-get install python3-onnx): %v", err)
		return
	}
	script := `
import sys, onnx
for path in sys.argv[1:]:
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        print("OK\t" + path)
    except Exception as e:
        print("ERR\t" + path + "\t" + str(e).replace("\n", " ")[:300])
`
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", script}, paths...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("onnx checker: %v\n%s", err, out)
	}
	ok := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "\t", 3)
		switch {
		case f[0] == "OK":
			ok++
		default:
			t.Errorf("onnx checker: %s", line)
		}
	}
	if ok != len(paths) {
		t.Errorf("onnx's checker answered for %d of %d files", ok, len(paths))
	}
}

// sequenceGraph is a graph with tensor inputs and outputs whose inside
// makes, changes and reads sequences and optionals: every sequence and
// optional kind, so that ONNX Runtime (which cannot take or return a
// sequence through its Node binding) can run it.
func sequenceGraph() *canon.Graph {
	i64 := func(name string, v int64) *canon.Tensor { return canon.NewInt64Tensor(name, []int64{}, []int64{v}) }
	node := func(name string, op canon.Op, ins []string, outs ...string) *canon.Node {
		return &canon.Node{Name: name, Op: op, Inputs: ins, Outputs: outs}
	}
	// A Loop appending y+i to a carried sequence three times, and an If
	// choosing between two sequences.
	loopBody := &canon.Graph{Name: "append_body",
		Inputs: []canon.ValueInfo{{Name: "i", DType: canon.Int64, RankKnown: true}, {Name: "cond_in", DType: canon.Bool, RankKnown: true},
			{Name: "acc", DType: canon.Float32, Kind: canon.SequenceValue}},
		Nodes: []*canon.Node{
			node("keep", &canon.Identity{}, []string{"cond_in"}, "cond_out"),
			node("as_float", &canon.Cast{To: canon.Float32}, []string{"i"}, "i_f"),
			node("shift", &canon.Binary{Fn: canon.Add}, []string{"y", "i_f"}, "item"),
			node("append", &canon.SequenceInsert{}, []string{"acc", "item"}, "acc_out"),
		},
		Outputs: []canon.ValueInfo{{Name: "cond_out"}, {Name: "acc_out"}}}
	branch := func(x string) *canon.Graph {
		return &canon.Graph{Name: "branch_" + x,
			Nodes:   []*canon.Node{node("pack_"+x, &canon.SequenceConstruct{}, []string{x, x}, "packed_"+x)},
			Outputs: []canon.ValueInfo{{Name: "packed_" + x}}}
	}
	body := &canon.Graph{Name: "relu_body",
		Inputs:  []canon.ValueInfo{{Name: "t", DType: canon.Float32}},
		Nodes:   []*canon.Node{node("relu", &canon.Unary{Fn: canon.Relu}, []string{"t"}, "r")},
		Outputs: []canon.ValueInfo{{Name: "r"}}}
	g := &canon.Graph{Name: "sequences",
		Inputs: []canon.ValueInfo{
			{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(3, 6), RankKnown: true},
			{Name: "y", DType: canon.Float32, Shape: canon.DimsOf(3, 2), RankKnown: true}},
		Initializers: []*canon.Tensor{i64("two", 2), i64("one", 1), i64("minus_one", -1), i64("zero", 0), i64("three", 3),
			{Name: "flag", DType: canon.Bool, Shape: []int64{}, Data: []byte{0}}},
		Nodes: []*canon.Node{
			node("split", &canon.SplitToSequence{Axis: 1, KeepDims: true}, []string{"x", "two"}, "s"),
			node("insert", &canon.SequenceInsert{}, []string{"s", "y", "one"}, "s2"),
			node("erase", &canon.SequenceErase{}, []string{"s2", "minus_one"}, "s3"),
			node("length", &canon.SequenceLength{}, []string{"s3"}, "n"),
			node("at", &canon.SequenceAt{}, []string{"s3", "zero"}, "a"),
			node("concat", &canon.ConcatFromSequence{Axis: 1}, []string{"s3"}, "c"),
			node("stack", &canon.ConcatFromSequence{Axis: -1, NewAxis: true}, []string{"s3"}, "st"),
			node("empty", &canon.SequenceEmpty{DType: canon.Float32}, nil, "e"),
			node("insert_empty", &canon.SequenceInsert{}, []string{"e", "y"}, "e2"),
			node("concat_one", &canon.ConcatFromSequence{Axis: 0}, []string{"e2"}, "c2"),
			node("construct", &canon.SequenceConstruct{}, []string{"x", "x"}, "sc"),
			node("concat_pair", &canon.ConcatFromSequence{Axis: 0}, []string{"sc"}, "c3"),
			node("wrap", &canon.Optional{}, []string{"y"}, "o"),
			node("has", &canon.OptionalHasElement{}, []string{"o"}, "h"),
			node("get", &canon.OptionalGetElement{}, []string{"o"}, "got"),
			node("none", &canon.Optional{Type: canon.ValueInfo{DType: canon.Float32, Kind: canon.OptionalTensor}}, nil, "oe"),
			node("has_none", &canon.OptionalHasElement{}, []string{"oe"}, "h2"),
			node("map", &canon.SequenceMap{Body: body}, []string{"s3"}, "m"),
			node("concat_mapped", &canon.ConcatFromSequence{Axis: 1}, []string{"m"}, "mc"),
			node("three_empty", &canon.SequenceEmpty{DType: canon.Float32}, nil, "acc0"),
			node("loop", &canon.Loop{Body: loopBody, Captures: []string{"y"}}, []string{"three", "", "acc0", "y"}, "acc"),
			node("concat_loop", &canon.ConcatFromSequence{Axis: 0}, []string{"acc"}, "lc"),
			node("if", &canon.If{Then: branch("y"), Else: branch("got"), Captures: []string{"got", "y"}}, []string{"flag", "got", "y"}, "chosen"),
			node("concat_if", &canon.ConcatFromSequence{Axis: 1}, []string{"chosen"}, "ic"),
		},
	}
	for _, o := range []string{"n", "a", "c", "st", "c2", "c3", "h", "got", "h2", "mc", "lc", "ic"} {
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
	}
	// A tensor taken from a sequence that started empty has a shape only
	// the run tells; the declaration gives it (ONNX wants graph outputs'
	// ranks).
	g.Outputs[4] = canon.ValueInfo{Name: "c2", DType: canon.Float32, Shape: canon.DimsOf(3, 2), RankKnown: true}
	g.Outputs[10] = canon.ValueInfo{Name: "lc", DType: canon.Float32, Shape: canon.DimsOf(9, 2), RankKnown: true}
	return g
}

// TestSequenceGraphORT writes sequenceGraph at opset 17 (SequenceMap's
// first) and the newest, checks the files with onnx's checker and runs
// them in ONNX Runtime against the interpreter.
func TestSequenceGraphORT(t *testing.T) {
	g := sequenceGraph()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := Write(g, filepath.Join(t.TempDir(), "m.onnx"), formats.WriteOptions{Opset: 16}); err == nil || !isRefusal(err) {
		t.Errorf("SequenceMap at opset 16: want a refusal naming the opset, got %v", err)
	}
	tmp := t.TempDir()
	var jobs []*interpJob
	var files []string
	for _, opset := range []int{17, MaxOpset} {
		label := fmt.Sprintf("sequences@%d", opset)
		if j := addInterpJob(t, g, opset, filepath.Join(tmp, label), label, len(jobs)); j != nil {
			jobs = append(jobs, j)
			if opset <= checkerOpset {
				files = append(files, j.Model)
			}
		}
	}
	checkWithONNX(t, files)
	checkInterpJobs(t, testfix.ORT(t), jobs)
	t.Logf("%d files checked by onnx's checker and run in ONNX Runtime against the interpreter", len(jobs))
}

// nonTensorIO reports a graph with a sequence or optional input or output.
func nonTensorIO(g *canon.Graph) bool {
	for _, v := range append(append([]canon.ValueInfo{}, g.Inputs...), g.Outputs...) {
		if !v.IsTensor() {
			return true
		}
	}
	return false
}

// ioTypes prints a graph's input and output types (kind, dtype, shape).
func ioTypes(g *canon.Graph) string {
	var b strings.Builder
	for _, v := range append(append([]canon.ValueInfo{}, g.Inputs...), g.Outputs...) {
		b.WriteString(v.Name + ":" + v.TypeString() + " ")
	}
	return b.String()
}
