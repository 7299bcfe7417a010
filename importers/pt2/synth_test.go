package pt2

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	torchexport "github.com/modelbridge/modelbridge/exporters/torch"
)

// synthProgram is a small program as PyTorch 2.6 writes one: relu(fc(x))
// with x of shape [s0, 4], s0 in [2, inf).
const synthProgram = `{
 "graph_module": {
  "graph": {
   "inputs": [{"as_tensor": {"name": "p_fc_weight"}}, {"as_tensor": {"name": "p_fc_bias"}}, {"as_tensor": {"name": "x"}}],
   "outputs": [{"as_tensor": {"name": "relu"}}],
   "nodes": [
    {"target": "torch.ops.aten.linear.default",
     "inputs": [{"name": "input", "arg": {"as_tensor": {"name": "x"}}}, {"name": "weight", "arg": {"as_tensor": {"name": "p_fc_weight"}}}, {"name": "bias", "arg": {"as_tensor": {"name": "p_fc_bias"}}}],
     "outputs": [{"as_tensor": {"name": "linear"}}],
     "metadata": {"nn_module_stack": "L__self__,,M;L__self___fc,fc,torch.nn.modules.linear.Linear"}},
    {"target": "torch.ops.aten.relu.default",
     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "linear"}}}],
     "outputs": [{"as_tensor": {"name": "relu"}}],
     "metadata": {}}
   ],
   "tensor_values": {
    "x": {"dtype": 7, "sizes": [{"as_expr": {"expr_str": "Symbol('s0', positive=True, integer=True)", "hint": {"as_int": 2}}}, {"as_int": 4}], "layout": 7},
    "p_fc_weight": {"dtype": 7, "sizes": [{"as_int": 3}, {"as_int": 4}], "layout": 7},
    "p_fc_bias": {"dtype": 7, "sizes": [{"as_int": 3}], "layout": 7},
    "linear": {"dtype": 7, "sizes": [{"as_expr": {"expr_str": "Symbol('s0', positive=True, integer=True)"}}, {"as_int": 3}], "layout": 7},
    "relu": {"dtype": 7, "sizes": [{"as_expr": {"expr_str": "Symbol('s0', positive=True, integer=True)"}}, {"as_int": 3}], "layout": 7}
   },
   "sym_int_values": {},
   "sym_bool_values": {},
   "is_single_tensor_return": false
  },
  "signature": {
   "input_specs": [
    {"parameter": {"arg": {"name": "p_fc_weight"}, "parameter_name": "fc.weight"}},
    {"parameter": {"arg": {"name": "p_fc_bias"}, "parameter_name": "fc.bias"}},
    {"user_input": {"arg": {"as_tensor": {"name": "x"}}}}
   ],
   "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "relu"}}}}]
  },
  "module_call_graph": [],
  "metadata": {}
 },
 "opset_version": {"aten": 10},
 "range_constraints": {"s0": {"min_val": 2, "max_val": 9223372036854775806}},
 "schema_version": {"major": 8, "minor": 2},
 "verifiers": ["TRAINING"],
 "torch_version": "2.6.0"
}`

// synthWeights are fc's weight ([3, 4], 0.1*i - 0.5) and bias.
func synthWeights() []torchexport.Entry {
	w := make([]float32, 12)
	for i := range w {
		w[i] = 0.1*float32(i) - 0.5
	}
	return []torchexport.Entry{
		{Key: "fc.weight", Tensor: canon.NewFloat32Tensor("fc.weight", []int64{3, 4}, w)},
		{Key: "fc.bias", Tensor: canon.NewFloat32Tensor("fc.bias", []int64{3}, []float32{0.1, -0.2, 0.3})},
	}
}

// torchSave writes entries as torch.save does and returns the file.
func torchSave(t testing.TB, entries []torchexport.Entry) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "w.pt")
	if err := torchexport.WriteStateDict(p, entries); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pt2Archive zips entries (name, bytes) as torch.export.save does: stored,
// in the given order.
func pt2Archive(t testing.TB, entries ...[2]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e[0].(string), Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e[1].([]byte))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// synthArchive is the synthetic program with its weights; edit, when not
// nil, rewrites the JSON.
func synthArchive(t testing.TB, edit func(string) string) []byte {
	program := synthProgram
	if edit != nil {
		program = edit(program)
	}
	return pt2Archive(t,
		[2]any{programEntry, []byte(program)},
		[2]any{stateDictEntry, torchSave(t, synthWeights())},
		[2]any{constantsEntry, torchSave(t, nil)},
		[2]any{versionEntry, []byte("8.2")},
	)
}

func writeTemp(t testing.TB, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "model.pt2")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// replace is an edit that must apply.
func replace(t testing.TB, old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("test edit: %q not in the program", old)
		}
		return strings.Replace(s, old, new, 1)
	}
}
