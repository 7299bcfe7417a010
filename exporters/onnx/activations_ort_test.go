package onnxexport

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// activationsGraph applies each smooth activation to the same input, one
// output per op, with non-default constants where the op has them.
func activationsGraph() *canon.Graph {
	x := []canon.ValueInfo{{Name: "X", DType: canon.Float32, Shape: canon.DimsOf(9), RankKnown: true}}
	g := &canon.Graph{Name: "activations", Inputs: x}
	for _, c := range []struct {
		name string
		op   canon.Op
	}{
		{"softplus", &canon.Unary{Fn: canon.Softplus}},
		{"softsign", &canon.Unary{Fn: canon.Softsign}},
		{"elu", &canon.Elu{Alpha: 0.25}},
		{"selu", &canon.Selu{Alpha: canon.SeluAlpha, Gamma: canon.SeluGamma}},
		{"selu_custom", &canon.Selu{Alpha: 1.5, Gamma: 2}},
	} {
		g.Nodes = append(g.Nodes, &canon.Node{Name: c.name, Op: c.op, Inputs: []string{"X"}, Outputs: []string{c.name + "_out"}})
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: c.name + "_out", DType: canon.Float32})
	}
	return g
}

// activationsWant are the outputs of activationsGraph for
// x = [-3, -1, -0.5, 0, 0.5, 1, 2, 40, -40], computed in float64 with numpy
// and rounded to float32:
//
//	softplus = np.log1p(np.exp(x)); softsign = x / (1 + np.abs(x))
//	elu(a) = np.where(x > 0, x, a * (np.exp(x) - 1))
//	selu = 1.0507009873554804934193349852946 * elu(1.6732632423543772848170429916717)
//	selu_custom = 2 * elu(1.5)
var activationsWant = [][]float64{
	{0.048587352, 0.3132617, 0.474077, 0.6931472, 0.974077, 1.3132616, 2.126928, 40, 4.248354e-18},
	{-0.75, -0.5, -0.33333334, 0, 0.33333334, 0.5, 0.6666667, 0.9756098, -0.9756098},
	{-0.23755324, -0.15803014, -0.09836733, 0, 0.5, 1, 2, 40, -0.25},
	{-1.6705687, -1.1113307, -0.6917582, 0, 0.5253505, 1.050701, 2.101402, 42.028038, -1.7580993},
	{-2.8506389, -1.8963617, -1.180408, 0, 1, 2, 4, 80, -3},
}

// TestActivationsRoundTrip: every opset writes the activations as the ONNX
// ops of the same name and reads them back unchanged.
func TestActivationsRoundTrip(t *testing.T) {
	for _, opset := range allOpsets() {
		g := activationsGraph()
		if err := g.Infer(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "act.onnx")
		if err := Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
			t.Fatalf("opset %d: %v", opset, err)
		}
		g2, err := onnximport.Read(p, formats.ReadOptions{})
		if err != nil {
			t.Fatalf("opset %d: re-import: %v", opset, err)
		}
		if err := canon.Equal(g, g2); err != nil {
			t.Errorf("opset %d: re-imported graph differs: %v", opset, err)
		}
		g2.Close()
	}
}

// TestActivationsORT runs the exported activations in ONNX Runtime at every
// opset and checks the hand-computed values.
func TestActivationsORT(t *testing.T) {
	rt := testfix.ORT(t)
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	x := canon.NewFloat32Tensor("X", []int64{9}, []float32{-3, -1, -0.5, 0, 0.5, 1, 2, 40, -40})
	if err := WriteTensorFile(x, filepath.Join(in, "input_0.pb")); err != nil {
		t.Fatal(err)
	}
	var jobs []*ortJob
	for _, opset := range allOpsets() {
		dir := filepath.Join(tmp, fmt.Sprint(opset))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "model.onnx")
		if err := Write(activationsGraph(), p, formats.WriteOptions{Opset: opset}); err != nil {
			t.Fatalf("opset %d: %v", opset, err)
		}
		jobs = append(jobs, &ortJob{ID: len(jobs), Model: p, Inputs: in, Out: filepath.Join(dir, "out"), label: fmt.Sprintf("activations@%d", opset)})
	}
	results := runORT(t, rt, jobs)
	for _, j := range jobs {
		if r, ok := results[j.ID]; !ok || !r.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
			continue
		}
		for i, want := range activationsWant {
			got, err := readTensorPB(filepath.Join(j.Out, fmt.Sprintf("output_%d.pb", i)))
			if err != nil {
				t.Fatal(err)
			}
			if err := compareElem(got, &testTensor{dims: []int64{9}, dtype: 1, vals: want}, 1e-6, 1e-7); err != nil {
				t.Errorf("%s output %d (%s): %v", j.label, i, activationsGraph().Outputs[i].Name, err)
			}
		}
	}
}
