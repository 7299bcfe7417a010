package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// onnxIO reads a written model's opset and each graph input's and
// output's dims (a dim_param, else the size).
func onnxIO(t *testing.T, path string) (opset int64, dims map[string][]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := &onnxpb.ModelProto{}
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
	dims = map[string][]string{}
	for _, v := range append(append([]*onnxpb.ValueInfoProto{}, m.Graph.Input...), m.Graph.Output...) {
		var ds []string
		for _, d := range v.GetType().GetTensorType().GetShape().GetDim() {
			if p := d.GetDimParam(); p != "" {
				ds = append(ds, p)
			} else {
				ds = append(ds, strconv.FormatInt(d.GetDimValue(), 10))
			}
		}
		dims[v.GetName()] = ds
	}
	return m.OpsetImport[0].GetVersion(), dims
}

// A name in --input-shape is a symbolic dim carried to the outputs and
// written as dim_param; --dynamic-batch names axis 0 "batch"; --opset auto
// writes the lowest opset that expresses the model.
func TestSymbolicDimsInConvert(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "n.onnx")
	if code, _, stderr := cli(t, "convert", tinyModel, out, "--input-shape", "input=N,3,32,32"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	opset, dims := onnxIO(t, out)
	if dims["input"][0] != "N" || dims["logits"][0] != "N" || opset != 13 {
		t.Errorf("opset %d, dims %v; want N on axis 0 of input and logits at opset 13", opset, dims)
	}

	out = filepath.Join(dir, "b.onnx")
	if code, stdout, stderr := cli(t, "convert", tinyModel, out, "--dynamic-batch", "--opset", "auto"); code != 0 || !strings.Contains(stdout, "writing opset 11 (IR 6)") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	opset, dims = onnxIO(t, out)
	if dims["input"][0] != "batch" || dims["logits"][0] != "batch" || opset != 11 {
		t.Errorf("opset %d, dims %v; want batch on axis 0 of input and logits at opset 11", opset, dims)
	}

	if code, _, stderr := cli(t, "convert", tinyModel, out, "--opset", "newest"); code != 2 || !strings.Contains(stderr, "auto") {
		t.Errorf("--opset newest: exit %d: %s", code, stderr)
	}
}

// A reshape that fixes the batch size (torch.onnx's channel shuffle in
// ShuffleNet) is refused by name under --dynamic-batch.
func TestDynamicBatchRefusesBakedReshape(t *testing.T) {
	model := filepath.Join(testfix.Fixtures(t), "torch", "shufflenet_v2_x0_5", "model.onnx")
	code, _, stderr := cli(t, "convert", model, filepath.Join(t.TempDir(), "s.onnx"), "--dynamic-batch")
	if code != 1 || !strings.Contains(stderr, "(Reshape) has the fixed target shape") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// Input files give a shapeless model (a TorchScript trace) its sizes in
// convert as --input-shape does; without them each axis is a named free dim.
func TestInputFilesGiveShapes(t *testing.T) {
	fix := filepath.Join(testfix.Fixtures(t), "torch", "tiny_convnet")
	data := filepath.Join(fix, "test_data_set_0")
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--inputs", data}, "[1 3 32 32]"},
		{[]string{"--input", filepath.Join(data, "input_0.pb")}, "[1 3 32 32]"},
		{nil, "[x_dim0 x_dim1 x_dim2 x_dim3]"},
	} {
		out := filepath.Join(dir, "t.onnx")
		args := append([]string{"convert", filepath.Join(fix, "traced.pt"), out}, c.args...)
		if code, _, stderr := cli(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		_, dims := onnxIO(t, out)
		if got := "[" + strings.Join(dims["x"], " ") + "]"; got != c.want {
			t.Errorf("%v: input x is %s, want %s", c.args, got, c.want)
		}
	}
	if code, _, stderr := cli(t, "run", filepath.Join(fix, "traced.pt"), "--inputs", data, "--out", filepath.Join(dir, "out")); code != 0 {
		t.Errorf("run --inputs: exit %d: %s", code, stderr)
	}
}
