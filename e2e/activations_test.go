package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// smoothActivationsSymbol chains MXNet's softrelu, softsign, elu and selu
// behind a convolution, so each sees negative and positive values.
const smoothActivationsSymbol = `{
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "conv_weight", "attrs": {"__shape__": "(4, 2, 3, 3)"}, "inputs": []},
    {"op": "null", "name": "conv_bias", "attrs": {"__shape__": "(4,)"}, "inputs": []},
    {"op": "Convolution", "name": "conv", "attrs": {"kernel": "(3, 3)", "num_filter": "4", "pad": "(1, 1)"}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
    {"op": "LeakyReLU", "name": "elu", "attrs": {"act_type": "elu", "slope": "0.6"}, "inputs": [[3, 0, 0]]},
    {"op": "LeakyReLU", "name": "selu", "attrs": {"act_type": "selu"}, "inputs": [[3, 0, 0]]},
    {"op": "Activation", "name": "softsign", "attrs": {"act_type": "softsign"}, "inputs": [[3, 0, 0]]},
    {"op": "Activation", "name": "softrelu", "attrs": {"act_type": "softrelu"}, "inputs": [[3, 0, 0]]},
    {"op": "elemwise_add", "name": "sum1", "inputs": [[4, 0, 0], [5, 0, 0]]},
    {"op": "elemwise_add", "name": "sum2", "inputs": [[6, 0, 0], [7, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 2],
  "node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  "heads": [[8, 0, 0], [9, 0, 0]],
  "attrs": {"mxnet_version": ["int", 10300]}
}`

// TestMXNetSmoothActivationsInORT converts an MXNet symbol using every
// smooth activation to ONNX, runs it in ONNX Runtime and compares with the
// interpreter on the MXNet graph.
func TestMXNetSmoothActivationsInORT(t *testing.T) {
	rt := testfix.ORT(t)
	dir := t.TempDir()
	sym := filepath.Join(dir, "acts-symbol.json")
	if err := os.WriteFile(sym, []byte(smoothActivationsSymbol), 0o644); err != nil {
		t.Fatal(err)
	}
	shapes := map[string][]int64{"data": {1, 2, 5, 5}}
	g := load(t, sym, "mxnet", formats.ReadOptions{InputShapes: shapes})
	kinds := map[string]bool{}
	for _, n := range g.Nodes {
		kinds[n.Op.Kind()] = true
	}
	for _, k := range []string{"Softplus", "Softsign", "Elu", "Selu"} {
		if !kinds[k] {
			t.Fatalf("the MXNet graph has no %s node: %v", k, kinds)
		}
	}
	onnxPath := filepath.Join(dir, "acts.onnx")
	write(t, g, onnxPath, "onnx")

	inputs, err := tensorfile.Random(g.Inputs, shapes, 3)
	if err != nil {
		t.Fatal(err)
	}
	inDir := filepath.Join(dir, "in")
	os.MkdirAll(inDir, 0o755)
	for i, in := range g.Inputs {
		if err := tensorfile.Save(inputs[in.Name], filepath.Join(inDir, "input_"+strconv.Itoa(i)+".pb")); err != nil {
			t.Fatal(err)
		}
	}
	want, err := interp.Run(g, inputs)
	if err != nil {
		t.Fatalf("interpreter on the MXNet model: %v", err)
	}
	outDir := filepath.Join(dir, "out")
	if err := rt.RunDir(onnxPath, inDir, outDir, ort.Options{}); err != nil {
		t.Fatalf("ONNX Runtime failed on the exported model: %v", err)
	}
	for i, o := range g.Outputs {
		got, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(i)))
		if err != nil {
			t.Fatal(err)
		}
		rel, err := compare.RelativeToMax(got, want[o.Name])
		if err != nil {
			t.Fatalf("output %q: %v", o.Name, err)
		}
		if rel > 1e-5 {
			t.Errorf("output %q: ONNX Runtime differs from the interpreter: relative error %.3g", o.Name, rel)
		}
		t.Logf("output %q: ONNX Runtime vs interpreter relative error %.2g", o.Name, rel)
	}
	checkHasNegatives(t, want[g.Outputs[0].Name])
}

// checkHasNegatives guards the test's reach: the elu/selu branch for x < 0
// must have been exercised.
func checkHasNegatives(t *testing.T, v *canon.Tensor) {
	t.Helper()
	f, err := v.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range f {
		if x < 0 {
			return
		}
	}
	t.Fatal("no negative elu+selu output; the input does not reach the negative branch")
}
