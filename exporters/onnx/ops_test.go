package onnxexport

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestCoverage: every registered kind is written or declared unsupported
// with a reason, and the table names no kind canon lacks.
func TestCoverage(t *testing.T) {
	cov := Coverage()
	for _, g := range canon.Gaps(map[string]canon.Coverage{"onnx export": cov}) {
		t.Error(g)
	}
	for k, e := range exports {
		if canon.Lookup(k) == nil {
			t.Errorf("exports has %s, which canon does not register", k)
		}
		if e.write == nil || e.onnx == "" || e.native < 1 {
			t.Errorf("entry %s needs an ONNX op, a write function and an opset", k)
		}
	}
	for k := range unsupported {
		if canon.Lookup(k) == nil {
			t.Errorf("unsupported lists %s, which canon does not register", k)
		}
		if _, ok := exports[k]; ok {
			t.Errorf("%s is both written and declared unsupported", k)
		}
	}
	if s := cov["Gelu"]; !s.Handled || s.Detail != "opset ≥ 20 as Gelu, below as its Erf/Tanh expansion" || s.MinOpset != MinOpset || s.MaxOpset != MaxOpset {
		t.Errorf("Gelu coverage %+v", s)
	}
	var reg *formats.Exporter
	for _, e := range formats.Exporters() {
		if e.Name == "onnx" {
			reg = e
		}
	}
	if reg == nil || reg.Ops == nil || len(reg.Ops()) != len(cov) || !reg.ExternalData ||
		reg.Opsets != (formats.OpsetRange{Min: MinOpset, Default: DefaultOpset, Max: MaxOpset}) {
		t.Errorf("the onnx exporter does not register its capabilities: %+v", reg)
	}
}

// exampleInputs makes deterministic values for a graph's inputs: floats
// spread over [-3, 3], integers and booleans zero.
func exampleInputs(g *canon.Graph) map[string]*canon.Tensor {
	out := map[string]*canon.Tensor{}
	for k, in := range g.Inputs {
		shape, _ := in.StaticShape()
		n := canon.NumElements(shape)
		if in.DType == canon.Float32 {
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(3 * math.Sin(float64(i)*0.77+float64(k)+0.1))
			}
			out[in.Name] = canon.NewFloat32Tensor(in.Name, shape, v)
			continue
		}
		t := &canon.Tensor{Name: in.Name, DType: in.DType, Shape: shape}
		t.Data = make([]byte, t.ByteSize())
		out[in.Name] = t
	}
	return out
}

// toTest converts an interpreter result for compareElem.
func toTest(t *canon.Tensor) (*testTensor, error) {
	if t.DType == canon.String {
		return &testTensor{dims: t.Shape, strs: append([]string{}, t.Strings...)}, t.CheckData()
	}
	vals, err := t.Float64s()
	if err != nil {
		return nil, err
	}
	return &testTensor{dims: t.Shape, vals: vals}, nil
}

// interpJob is a model exported for ONNX Runtime with what the interpreter
// computes for the same inputs.
type interpJob struct {
	*ortJob
	want []*testTensor
	// drawn marks outputs computed from random draws, compared by shape.
	drawn []bool
}

// addInterpJob writes g at opset into dir with inputs, runs the
// interpreter on g, and returns the ORT job comparing the two.
func addInterpJob(t *testing.T, g *canon.Graph, opset int, dir, label string, id int) *interpJob {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := exampleInputs(g)
	for i, in := range g.Inputs {
		if err := WriteTensorFile(inputs[in.Name], filepath.Join(dir, "in", fmt.Sprintf("input_%d.pb", i))); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "model.onnx")
	if err := Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
		t.Errorf("%s: %v", label, err)
		return nil
	}
	got, err := interp.Run(g, inputs)
	if err != nil {
		t.Errorf("%s: interpreter: %v", label, err)
		return nil
	}
	j := &interpJob{ortJob: &ortJob{ID: id, Model: p, Inputs: filepath.Join(dir, "in"), Out: filepath.Join(dir, "out"), label: label},
		drawn: canon.DrawnOutputs(g)}
	for _, o := range g.Outputs {
		w, err := toTest(got[o.Name])
		if err != nil {
			t.Fatalf("%s: output %s: %v", label, o.Name, err)
		}
		j.want = append(j.want, w)
	}
	return j
}

// checkInterpJobs runs the jobs in ONNX Runtime (one node process per
// CPU) and compares each output with the interpreter's.
func checkInterpJobs(t *testing.T, rt *ort.Runtime, jobs []*interpJob) {
	t.Helper()
	var plain []*ortJob
	for _, j := range jobs {
		plain = append(plain, j.ortJob)
	}
	results := runORT(t, rt, plain)
	for _, j := range jobs {
		if r, ok := results[j.ID]; !ok || !r.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
			continue
		}
		for i, want := range j.want {
			got, err := readTensorPB(filepath.Join(j.Out, fmt.Sprintf("output_%d.pb", i)))
			if err != nil {
				t.Errorf("%s: %v", j.label, err)
				continue
			}
			if j.drawn[i] {
				// Random draws: each runtime samples its own.
				if !sameDims(got.dims, want.dims) {
					t.Errorf("%s output %d: ONNX Runtime draws shape %v, the interpreter %v", j.label, i, got.dims, want.dims)
				}
				continue
			}
			if err := compareElem(got, want, 1e-4, 1e-5); err != nil {
				t.Errorf("%s output %d: ONNX Runtime vs interpreter: %v", j.label, i, err)
			}
		}
	}
}

// withNative adds an entry's native opset to the swept ones, so that the
// first opset of each native form is run too.
func withNative(opsets []int, native int) []int {
	if native < MinOpset || native > MaxOpset || slices.Contains(opsets, native) {
		return opsets
	}
	out := append([]int{}, opsets...)
	return append(out, native)
}

// ortLacksKernel names ops whose newest ONNX version (from the opset
// given) ONNX Runtime 1.30 registers no CPU kernel for, so it refuses the
// files; the exporter writes them as the spec defines.
var ortLacksKernel = map[string]int{"RoiAlign": 22, "MaxRoiPool": 22,
	"RandomUniform": 22, "RandomNormal": 22, "RandomUniformLike": 22, "RandomNormalLike": 22, "Bernoulli": 22, "Multinomial": 22}

// TestEveryKind walks each registered kind's example graph through the
// exporter at the swept opsets (and each entry's native one), runs the models in ONNX
// Runtime and compares with the interpreter; kinds declared unsupported
// must be refused with an error naming the op.
func TestEveryKind(t *testing.T) {
	tmp := t.TempDir()
	var jobs []*interpJob
	var written int
	for _, d := range canon.Ops() {
		g, err := d.ExampleGraph()
		if err != nil {
			t.Errorf("%s: %v", d.Kind, err)
			continue
		}
		e, ok := exports[d.Kind]
		if !ok {
			err := Write(g, filepath.Join(tmp, d.Kind+".onnx"), formats.WriteOptions{})
			if err == nil || !strings.Contains(err.Error(), "("+d.Kind+")") {
				t.Errorf("%s is declared unsupported, but writing it gives %v", d.Kind, err)
			}
			continue
		}
		if nonTensorIO(g) {
			// ONNX Runtime's Node binding takes and returns tensors only:
			// these kinds run inside sequenceGraph (TestSequenceGraphORT).
			if err := Write(g, filepath.Join(tmp, d.Kind+".onnx"), formats.WriteOptions{Opset: max(e.native, MinOpset)}); err != nil {
				t.Errorf("%s at opset %d: %v", d.Kind, e.native, err)
			}
			continue
		}
		for _, opset := range withNative(allOpsets(), e.native) {
			if opset < e.native && e.below == "" {
				continue
			}
			label := fmt.Sprintf("%s@%d", d.Kind, opset)
			if since, ok := ortLacksKernel[d.Kind]; ok && opset >= since {
				t.Logf("%s: not run, ONNX Runtime 1.30 has no kernel for %s-%d", label, d.Kind, since)
				continue
			}
			if j := addInterpJob(t, g, opset, filepath.Join(tmp, label), label, len(jobs)); j != nil {
				jobs = append(jobs, j)
				written++
			}
		}
	}
	t.Logf("%d kinds, %d models written", len(canon.Ops()), written)
	checkInterpJobs(t, testfix.ORT(t), jobs)
}

// geluGraph applies both Gelu forms to one input.
func geluGraph() *canon.Graph {
	x := []canon.ValueInfo{{Name: "X", DType: canon.Float32, Shape: canon.DimsOf(3, 41), RankKnown: true}}
	g := &canon.Graph{Name: "gelu", Inputs: x}
	for _, a := range []canon.GeluApprox{canon.GeluExact, canon.GeluTanh} {
		out := "gelu_" + a.String()
		g.Nodes = append(g.Nodes, &canon.Node{Name: out, Op: &canon.Gelu{Approximate: a}, Inputs: []string{"X"}, Outputs: []string{out}})
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: out, DType: canon.Float32})
	}
	return g
}

// TestGeluExpansion: below opset 20 both forms are written as their
// expansions (no Gelu node), and the exact one reads back as one Gelu;
// from 20 both are ONNX Gelu nodes.
func TestGeluExpansion(t *testing.T) {
	for opset := 20; opset <= MaxOpset; opset++ {
		p := filepath.Join(t.TempDir(), "gelu.onnx")
		info, err := write(geluGraph(), p, formats.WriteOptions{Opset: opset})
		if err != nil || info.expanded {
			t.Fatalf("opset %d: %v, expanded %v", opset, err, info != nil && info.expanded)
		}
		g, err := onnximport.Read(p, formats.ReadOptions{})
		if err != nil {
			t.Fatalf("opset %d: re-import: %v", opset, err)
		}
		if len(g.Nodes) != 2 || g.Nodes[1].Op.(*canon.Gelu).Approximate != canon.GeluTanh {
			t.Errorf("opset %d: reads back as %v", opset, g.Nodes)
		}
		g.Close()
	}
	for opset := MinOpset; opset < 20; opset++ {
		p := filepath.Join(t.TempDir(), "gelu.onnx")
		info, err := write(geluGraph(), p, formats.WriteOptions{Opset: opset})
		if err != nil {
			t.Fatalf("opset %d: %v", opset, err)
		}
		if !info.expanded {
			t.Errorf("opset %d: not marked expanded", opset)
		}
		g, err := onnximport.Read(p, formats.ReadOptions{})
		if err != nil {
			t.Fatalf("opset %d: re-import: %v", opset, err)
		}
		var kinds []string
		for _, n := range g.Nodes {
			kinds = append(kinds, n.Op.Kind())
		}
		if kinds[0] != "Gelu" || g.Nodes[0].Op.(*canon.Gelu).Approximate != canon.GeluExact || g.Nodes[0].Outputs[0] != "gelu_none" {
			t.Errorf("opset %d: the exact form reads back as %v", opset, kinds)
		}
		if n := len(kinds); n < 2 || slicesCount(kinds, "Gelu") != 1 || slicesCount(kinds, "Tanh") != 1 {
			t.Errorf("opset %d: the tanh form reads back as %v", opset, kinds)
		}
		if len(g.Initializers) != 4 { // the tanh form's constants; the exact form's are folded away
			t.Errorf("opset %d: %d initializers left", opset, len(g.Initializers))
		}
		g.Close()
	}
}

func slicesCount(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// TestGeluORT runs both exported forms in ONNX Runtime at every opset and
// compares them with the interpreter and with float64 references.
func TestGeluORT(t *testing.T) {
	rt := testfix.ORT(t)
	tmp := t.TempDir()
	var jobs []*interpJob
	g := geluGraph()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	for opset := MinOpset; opset <= MaxOpset; opset++ {
		label := fmt.Sprintf("gelu@%d", opset)
		if j := addInterpJob(t, g, opset, filepath.Join(tmp, label), label, len(jobs)); j != nil {
			jobs = append(jobs, j)
		}
	}
	// The interpreter itself against the formulas.
	x := exampleInputs(g)["X"]
	xs, _ := x.Float64s()
	refs := []func(float64) float64{
		func(v float64) float64 { return 0.5 * v * (1 + math.Erf(v/math.Sqrt2)) },
		func(v float64) float64 {
			return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
		},
	}
	if len(jobs) > 0 {
		for i, ref := range refs {
			want := &testTensor{dims: x.Shape}
			for _, v := range xs {
				want.vals = append(want.vals, ref(v))
			}
			if err := compareElem(jobs[0].want[i], want, 1e-5, 1e-6); err != nil {
				t.Errorf("interpreter %s vs float64 reference: %v", g.Outputs[i].Name, err)
			}
		}
	}
	checkInterpJobs(t, rt, jobs)
}

// TestLackedKindRefused: a kind moved from the table to unsupported is
// refused with its reason, naming the node and op.
func TestLackedKindRefused(t *testing.T) {
	saved := exports["Selu"]
	delete(exports, "Selu")
	unsupported["Selu"] = "test: pretend ONNX has no Selu"
	defer func() { exports["Selu"] = saved; delete(unsupported, "Selu") }()
	if s := Coverage()["Selu"]; s.Handled || s.Reason == "" {
		t.Errorf("coverage %+v", s)
	}
	g, err := canon.Lookup("Selu").ExampleGraph()
	if err != nil {
		t.Fatal(err)
	}
	err = Write(g, filepath.Join(t.TempDir(), "m.onnx"), formats.WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "(Selu)") || !strings.Contains(err.Error(), "pretend") {
		t.Errorf("error %v", err)
	}
}
