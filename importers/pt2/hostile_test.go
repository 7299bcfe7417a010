package pt2

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
)

// forbiddenPickle is a torch.save zip whose data.pkl calls os.system: the
// safe unpickler must refuse the global without running anything.
func forbiddenPickle(t testing.TB) []byte {
	pkl := []byte("\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.")
	return pt2Archive(t, [2]any{"archive/data.pkl", pkl}, [2]any{"archive/version", []byte("3\n")})
}

// TestHostile feeds damaged and hostile programs and weights: each is
// refused with an error that names what is wrong, never a panic.
func TestHostile(t *testing.T) {
	const relu = `"torch.ops.aten.relu.default"`
	cases := []struct {
		name string
		file func(t *testing.T) []byte
		want string
	}{
		{"newer schema", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `"major": 8`, `"major": 9`))
		}, "schema 9.2"},
		{"no schema version", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `"schema_version": {"major": 8, "minor": 2},`, ``))
		}, "no schema_version"},
		{"version entry disagrees", func(t *testing.T) []byte {
			return pt2Archive(t, [2]any{programEntry, []byte(synthProgram)}, [2]any{versionEntry, []byte("7.1")})
		}, "inconsistent"},
		{"not JSON", func(t *testing.T) []byte {
			return synthArchive(t, func(s string) string { return s[:len(s)/2] })
		}, "not a serialized ExportedProgram"},
		{"JSON nested a million deep", func(t *testing.T) []byte {
			return synthArchive(t, func(string) string { return `{"graph_module": ` + strings.Repeat("[", 1<<20) })
		}, "not a serialized ExportedProgram"},
		{"no program", func(t *testing.T) []byte {
			return pt2Archive(t, [2]any{stateDictEntry, torchSave(t, synthWeights())})
		}, "without serialized_exported_program.json"},
		{"package layout of PyTorch 2.7", func(t *testing.T) []byte {
			return pt2Archive(t, [2]any{"model/archive_format", []byte("pt2")}, [2]any{"model/models/model.json", []byte("{}")})
		}, "PyTorch 2.7"},
		{"custom namespace", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, relu, `"torch.ops.mylib.evil.default"`))
		}, `node relu (torch.ops.mylib.evil.default): operator torch.ops.mylib.evil.default is not supported by the .pt2 importer: it belongs to the custom namespace "mylib"`},
		{"control flow", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, relu, `"torch.ops.higher_order.cond"`))
		}, "cond takes 4 arguments (pred, true_fn, false_fn, operands), the node passes 1"},
		{"unread higher-order operator", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, relu, `"torch.ops.higher_order.invoke_subgraph"`))
		}, "node relu (torch.ops.higher_order.invoke_subgraph): operator torch.ops.higher_order.invoke_subgraph is not supported by the .pt2 importer: of the higher-order operators only cond, map_impl, while_loop are read"},
		{"unmapped aten op", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, relu, `"torch.ops.aten.histogramdd.default"`))
		}, "operator aten.histogramdd.default is not supported"},
		{"python builtin", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, relu, `"builtins.eval"`))
		}, "builtins.eval is not supported"},
		{"use before definition", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `"arg": {"as_tensor": {"name": "linear"}}`, `"arg": {"as_tensor": {"name": "later"}}`))
		}, "tensor later is used before it is defined"},
		{"value defined twice", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `"outputs": [{"as_tensor": {"name": "relu"}}],
     "metadata": {}`, `"outputs": [{"as_tensor": {"name": "linear"}}],
     "metadata": {}`))
		}, "defined twice"},
		{"symbolic bool", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `"arg": {"as_tensor": {"name": "linear"}}`, `"arg": {"as_sym_bool": {"as_name": "b0"}}`))
		}, "symbolic bool"},
		{"missing weight", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `"parameter_name": "fc.bias"`, `"parameter_name": "fc.nothere"`))
		}, "parameter fc.nothere (graph input p_fc_bias) is missing"},
		{"weight shape disagrees", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `"p_fc_bias": {"dtype": 7, "sizes": [{"as_int": 3}]`, `"p_fc_bias": {"dtype": 7, "sizes": [{"as_int": 5}]`))
		}, "has shape [3] in the weights but [5] in the program"},
		{"signature longer than graph", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}`, `{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}, {"user_input": {"arg": {"as_tensor": {"name": "y"}}}}`))
		}, "signature lists 4 inputs but the graph has 3"},
		{"custom object input", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}`, `{"custom_obj": {"arg": {"name": "x", "class_fqn": "evil"}, "custom_obj_name": "x"}}`))
		}, "custom object"},
		{"training graph", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `"output_specs": [{"user_output"`, `"output_specs": [{"loss_output": {"arg": {"name": "relu"}}}], "x": [{"user_output"`))
		}, "joint training graph"},
		{"complex input", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `"x": {"dtype": 7`, `"x": {"dtype": 10`))
		}, "dtype complex64 is not supported"},
		{"negative size", func(t *testing.T) []byte {
			return synthArchive(t, replace(t, `{"as_int": 4}], "layout": 7},
    "p_fc_weight"`, `{"as_int": -4}], "layout": 7},
    "p_fc_weight"`))
		}, "negative size"},
		{"pickle calling os.system", func(t *testing.T) []byte {
			return pt2Archive(t, [2]any{programEntry, []byte(synthProgram)}, [2]any{stateDictEntry, forbiddenPickle(t)})
		}, "os.system"},
		{"weights not a zip", func(t *testing.T) []byte {
			return pt2Archive(t, [2]any{programEntry, []byte(synthProgram)}, [2]any{stateDictEntry, []byte("PK\x03\x04garbage")})
		}, "serialized_state_dict.pt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeTemp(t, c.file(t))
			g, err := Read(p, formats.ReadOptions{})
			if err == nil {
				g.Close()
				t.Fatalf("accepted; want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q\ndoes not contain %q", err, c.want)
			}
			t.Log(err)
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}
