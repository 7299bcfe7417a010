package torchexport

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
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

// sequenceGraph takes and returns tensors and makes, changes and reads
// sequences and optionals inside: model.py writes them as Python lists and
// None.
func sequenceGraph() *canon.Graph {
	i64 := func(name string, v int64) *canon.Tensor { return canon.NewInt64Tensor(name, []int64{}, []int64{v}) }
	node := func(name string, op canon.Op, ins []string, outs ...string) *canon.Node {
		return &canon.Node{Name: name, Op: op, Inputs: ins, Outputs: outs}
	}
	g := &canon.Graph{Name: "sequences",
		Inputs: []canon.ValueInfo{
			{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(3, 6), RankKnown: true},
			{Name: "y", DType: canon.Float32, Shape: canon.DimsOf(3, 2), RankKnown: true},
			{Name: "k", DType: canon.Int64, Shape: []canon.Dim{}, RankKnown: true}},
		Initializers: []*canon.Tensor{i64("two", 2), i64("one", 1), i64("minus_one", -1), i64("zero", 0),
			canon.NewInt64Tensor("lengths", []int64{3}, []int64{1, 2, 3})},
		Nodes: []*canon.Node{
			node("split", &canon.SplitToSequence{Axis: 1, KeepDims: true}, []string{"x", "two"}, "s"),
			node("insert", &canon.SequenceInsert{}, []string{"s", "y", "one"}, "s2"),
			node("erase", &canon.SequenceErase{}, []string{"s2", "minus_one"}, "s3"),
			node("erase_last", &canon.SequenceErase{}, []string{"s3"}, "s4"),
			node("length", &canon.SequenceLength{}, []string{"s4"}, "n"),
			node("at", &canon.SequenceAt{}, []string{"s3", "k"}, "a"),
			node("concat", &canon.ConcatFromSequence{Axis: 1}, []string{"s3"}, "c"),
			node("stack", &canon.ConcatFromSequence{Axis: -1, NewAxis: true}, []string{"s3"}, "st"),
			node("empty", &canon.SequenceEmpty{DType: canon.Float32}, nil, "e"),
			node("append", &canon.SequenceInsert{}, []string{"e", "y"}, "e2"),
			node("concat_one", &canon.ConcatFromSequence{Axis: 0}, []string{"e2"}, "c2"),
			node("construct", &canon.SequenceConstruct{}, []string{"x", "x"}, "sc"),
			node("concat_pair", &canon.ConcatFromSequence{Axis: 0}, []string{"sc"}, "c3"),
			node("split_lengths", &canon.SplitToSequence{Axis: 1}, []string{"x", "lengths"}, "sl"),
			node("last_piece", &canon.SequenceAt{}, []string{"sl", "minus_one"}, "lp"),
			node("unbind", &canon.SplitToSequence{Axis: 0, KeepDims: false}, []string{"x"}, "su"),
			node("stack_rows", &canon.ConcatFromSequence{Axis: 0, NewAxis: true}, []string{"su"}, "sr"),
			node("wrap", &canon.Optional{}, []string{"y"}, "o"),
			node("has", &canon.OptionalHasElement{}, []string{"o"}, "h"),
			node("get", &canon.OptionalGetElement{}, []string{"o"}, "got"),
			node("none", &canon.Optional{Type: canon.ValueInfo{DType: canon.Float32, Kind: canon.OptionalTensor}}, nil, "oe"),
			node("has_none", &canon.OptionalHasElement{}, []string{"oe"}, "h2"),
		},
	}
	for _, o := range []string{"n", "a", "c", "st", "c2", "c3", "lp", "sr", "h", "got", "h2"} {
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
	}
	return g
}

// TestSequencesInTorch runs sequenceGraph's model.py in PyTorch and
// compares every output with the interpreter's.
func TestSequencesInTorch(t *testing.T) {
	py := testfix.Torch(t)
	g := sequenceGraph()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 18)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	inputs := map[string]*canon.Tensor{
		"x": canon.NewFloat32Tensor("x", []int64{3, 6}, x),
		"y": canon.NewFloat32Tensor("y", []int64{3, 2}, []float32{1, 2, 3, 4, 5, 6}),
		"k": canon.NewInt64Tensor("k", []int64{}, []int64{-2}),
	}
	want, err := interp.Run(g, inputs)
	if err != nil {
		t.Fatal(err)
	}
	got := runModelPy(t, py, g, inputs)
	for i, o := range g.Outputs {
		if err := compare.ONNXBackend(got[i], want[o.Name]); err != nil {
			t.Errorf("output %s: %v", o.Name, err)
		}
	}
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

// valueDriver runs exported model.py folders on ONNX test data whose
// inputs and outputs may be sequences (Python lists) and optionals (a
// value or None): it reads each input_N.pb as the message of its kind and
// writes each output as one.
const valueDriver = `
import importlib.util, json, sys, traceback
import numpy as np
import torch
import onnx
from onnx import numpy_helper

def read(path, kind):
    data = open(path, "rb").read()
    if kind == "tensor":
        t = onnx.TensorProto(); t.ParseFromString(data)
        return torch.from_numpy(numpy_helper.to_array(t).copy())
    if kind == "sequence":
        s = onnx.SequenceProto(); s.ParseFromString(data)
        return [torch.from_numpy(numpy_helper.to_array(t).copy()) for t in s.tensor_values]
    o = onnx.OptionalProto(); o.ParseFromString(data)
    if o.HasField("tensor_value"):
        return torch.from_numpy(numpy_helper.to_array(o.tensor_value).copy())
    if o.HasField("sequence_value"):
        return [torch.from_numpy(numpy_helper.to_array(t).copy()) for t in o.sequence_value.tensor_values]
    return None

def tensor(t):
    return numpy_helper.from_array(np.ascontiguousarray(t.numpy()).reshape(tuple(t.shape)))

def write(path, v, kind):
    if kind == "tensor":
        m = tensor(v)
    elif kind == "sequence":
        m = onnx.SequenceProto(elem_type=1, tensor_values=[tensor(t) for t in v])
    else:
        m = onnx.OptionalProto()
        if v is None:
            m.elem_type = 1 if kind == "optional tensor" else 3
        elif kind == "optional tensor":
            m.elem_type = 1; m.tensor_value.CopyFrom(tensor(v))
        else:
            m.elem_type = 3; m.sequence_value.CopyFrom(onnx.SequenceProto(elem_type=1, tensor_values=[tensor(t) for t in v]))
    open(path, "wb").write(m.SerializeToString())

jobs = json.load(open(sys.argv[1]))
errors = []
for i, job in enumerate(jobs):
    try:
        spec = importlib.util.spec_from_file_location("value_model_%d" % i, job["dir"] + "/model.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        model = mod.Model()
        model.load_state_dict(torch.load(job["dir"] + "/weights.pt"), strict=True)
        ins = [read(p, k) for p, k in zip(job["inputs"], job["in_kinds"])]
        with torch.no_grad():
            outs = model(*ins)
        if len(job["outputs"]) == 1:
            outs = (outs,)
        for o, p, k in zip(outs, job["outputs"], job["out_kinds"]):
            write(p, o, k)
        errors.append("")
    except Exception:
        errors.append(traceback.format_exc())
json.dump(errors, open(sys.argv[2], "w"))
`

type valueJob struct {
	Dir      string   `json:"dir"`
	Inputs   []string `json:"inputs"`
	InKinds  []string `json:"in_kinds"`
	Outputs  []string `json:"outputs"`
	OutKinds []string `json:"out_kinds"`
	name     string
	set      string
	g        *canon.Graph
}

// TestSequenceNodeCasesInTorch exports the node suite's sequence and
// optional cases as model.py, runs them in PyTorch on the suite's data
// (lists and None) and compares with the suite's expected values.
func TestSequenceNodeCasesInTorch(t *testing.T) {
	py := testfix.Torch(t, "onnx")
	root := t.TempDir()
	var jobs []*valueJob
	refused := 0
	for _, dir := range testfix.SequenceNodeCases(t, 30) {
		name := filepath.Base(dir)
		g, err := onnximport.Read(filepath.Join(dir, "model.onnx"), formats.ReadOptions{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		out := filepath.Join(root, name)
		if _, err := Export(g, out); err != nil {
			// If and Loop whose subgraphs model.py cannot write.
			if !isUnsupported(err) || !(strings.Contains(err.Error(), "(If)") || strings.Contains(err.Error(), "(Loop)")) {
				t.Errorf("%s: %v", name, err)
			}
			refused++
			continue
		}
		j := &valueJob{Dir: out, name: name, set: filepath.Join(dir, "test_data_set_0"), g: g, Inputs: []string{}, InKinds: []string{}}
		for i, v := range g.Inputs {
			j.Inputs = append(j.Inputs, filepath.Join(j.set, fmt.Sprintf("input_%d.pb", i)))
			j.InKinds = append(j.InKinds, v.Kind.String())
		}
		for i, v := range g.Outputs {
			j.Outputs = append(j.Outputs, filepath.Join(out, fmt.Sprintf("output_%d.pb", i)))
			j.OutKinds = append(j.OutKinds, v.Kind.String())
		}
		jobs = append(jobs, j)
	}
	jobsPath, reportPath := filepath.Join(root, "jobs.json"), filepath.Join(root, "report.json")
	b, _ := json.Marshal(jobs)
	if err := os.WriteFile(jobsPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-c", valueDriver, jobsPath, reportPath).CombinedOutput(); err != nil {
		t.Fatalf("driver: %v\n%s", err, out)
	}
	var report []string
	rb, err := os.ReadFile(reportPath)
	if err != nil || json.Unmarshal(rb, &report) != nil || len(report) != len(jobs) {
		t.Fatalf("driver report: %v", err)
	}
	matched, mapped := 0, 0
	for i, j := range jobs {
		if strings.HasPrefix(j.name, "test_sequence_map_") {
			mapped++
		}
		if report[i] != "" {
			t.Errorf("%s: PyTorch failed:\n%s", j.name, report[i])
			continue
		}
		ok := true
		for k, o := range j.g.Outputs {
			got, err := onnxtensor.ReadValueFile(j.Outputs[k], o)
			if err != nil {
				t.Fatalf("%s: %v", j.name, err)
			}
			want, err := onnxtensor.ReadValueFile(filepath.Join(j.set, fmt.Sprintf("output_%d.pb", k)), o)
			if err != nil {
				t.Fatal(err)
			}
			if err := compare.ONNXBackendValue(got, want); err != nil {
				t.Errorf("%s: output %q: %v", j.name, o.Name, err)
				ok = false
			}
		}
		if ok {
			matched++
		}
	}
	if mapped < 12 {
		t.Errorf("%d test_sequence_map_* cases ran in PyTorch; want all 12", mapped)
	}
	t.Logf("%d sequence and optional cases run in PyTorch as model.py, %d match (%d of them SequenceMap); %d refused (subgraphs: If, Loop)", len(jobs), matched, mapped, refused)
}
