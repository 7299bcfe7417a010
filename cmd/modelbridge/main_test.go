package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

const tinyModel = "../../testdata/tiny_convnet.onnx"
const tinyData = "../../testdata/tiny_convnet_data"

// cli runs the command line in-process.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestConvertRunCheckTinyConvnet(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "tiny.onnx")
	for _, opset := range []string{"11", "13", "17"} {
		code, stdout, stderr := cli(t, "convert", tinyModel, out, "--opset", opset)
		if code != 0 {
			t.Fatalf("convert --opset %s: exit %d: %s", opset, code, stderr)
		}
		if !strings.Contains(stdout, "wrote") {
			t.Fatalf("convert printed %q", stdout)
		}
		code, stdout, stderr = cli(t, "check", tinyModel, out, "--random", "--samples", "2", "--json")
		if code != 0 {
			t.Fatalf("check original vs opset %s: exit %d: %s %s", opset, code, stdout, stderr)
		}
		var rep checkReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || !rep.OK || len(rep.Outputs) != 1 || rep.Outputs[0].NameA != "logits" {
			t.Fatalf("check --json: %v %+v", err, rep)
		}
	}

	// run on PyTorch's own input reproduces PyTorch's output.
	runDir := filepath.Join(dir, "run")
	code, _, stderr := cli(t, "run", out, "--inputs", tinyData, "--out", runDir)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	got, err := tensorfile.Load(filepath.Join(runDir, "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := tensorfile.Load(filepath.Join(tinyData, "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := compare.RelativeToMax(got, want)
	if err != nil || rel > 1e-4 {
		t.Fatalf("run output differs from PyTorch's: relative error %g (%v)", rel, err)
	}
	t.Logf("tiny_convnet: modelbridge run vs PyTorch relative error %.2g", rel)

	code, stdout, _ := cli(t, "inspect", out, "--json")
	if code != 0 {
		t.Fatalf("inspect: exit %d", code)
	}
	var rep inspectReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Format != "onnx" || rep.Producer != "modelbridge" || rep.Ops["ConvTranspose"] != 1 || rep.Params.Elements == 0 {
		t.Fatalf("inspect report: %+v", rep)
	}
	layouts := map[string]string{}
	for _, w := range rep.Weights {
		layouts[w.Name] = w.Layout
	}
	if layouts["deconv.weight"] != "IOHW" || layouts["conv2.weight"] != "OIHW" || layouts["fc.weight"] != "OI" || layouts["bn2.running_var"] != "C" {
		t.Fatalf("weight layouts: %v", layouts)
	}
	code, stdout, _ = cli(t, "inspect", tinyModel)
	if code != 0 || !strings.Contains(stdout, "IOHW") || !strings.Contains(stdout, "ConvTranspose") {
		t.Fatalf("inspect text: exit %d\n%s", code, stdout)
	}
}

func TestCheckDetectsDifferences(t *testing.T) {
	dir := t.TempDir()
	base := smallModel()
	a := writeModel(t, dir, "a.onnx", base)

	changed := proto.Clone(base).(*onnxpb.ModelProto)
	changed.Graph.Initializer[0].RawData[3] ^= 0x80 // flip the sign of one weight
	b := writeModel(t, dir, "b.onnx", changed)
	code, stdout, _ := cli(t, "check", a, b, "--random")
	if code != 1 || !strings.Contains(stdout, "DIFFERS") {
		t.Fatalf("check of a changed weight: exit %d\n%s", code, stdout)
	}

	otherInput := proto.Clone(base).(*onnxpb.ModelProto)
	otherInput.Graph.Input[0].Type.GetTensorType().Shape.Dim[2] = &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 6}}
	otherInput.Graph.Output[0].Type.GetTensorType().Shape.Dim[2] = &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 6}}
	c := writeModel(t, dir, "c.onnx", otherInput)
	code, _, stderr := cli(t, "check", a, c, "--random")
	if code != 2 || !strings.Contains(stderr, "shape") {
		t.Fatalf("check of models with different input shapes: exit %d: %s", code, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	if code, _, _ := cli(t, "convert", tinyModel); code != 2 {
		t.Errorf("convert with one argument: exit %d, want 2", code)
	}
	if code, _, _ := cli(t, "inspect", tinyModel, "--no-such-flag"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if code, _, stderr := cli(t, "convert", tinyModel, tinyModel); code != 2 || !strings.Contains(stderr, "overwrite") {
		t.Errorf("convert onto its input: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cli(t, "run", tinyModel, "--out", t.TempDir()); code != 2 || !strings.Contains(stderr, "--random") {
		t.Errorf("run without inputs: exit %d: %s", code, stderr)
	}
	if code, stdout, _ := cli(t, "version"); code != 0 || !strings.Contains(stdout, Version) {
		t.Errorf("version: exit %d: %s", code, stdout)
	}
}

func TestRunRejectsWrongInput(t *testing.T) {
	dir := t.TempDir()
	model := writeModel(t, dir, "m.onnx", smallModel())
	// A tiny_convnet input (1x3x32x32) does not fit smallModel (1x2x4x4).
	code, _, stderr := cli(t, "run", model, "--input", "X="+filepath.Join(tinyData, "input_0.pb"), "--out", filepath.Join(dir, "o"))
	if code == 0 || !strings.Contains(stderr, `"X"`) || !strings.Contains(stderr, "4") {
		t.Fatalf("wrong input shape: exit %d: %s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.pb")
	os.WriteFile(bad, []byte{0xff, 0xff, 0xff}, 0o644)
	code, _, stderr = cli(t, "run", model, "--input", "X="+bad, "--out", filepath.Join(dir, "o"))
	if code == 0 || !strings.Contains(stderr, "bad.pb") {
		t.Fatalf("unreadable input file: exit %d: %s", code, stderr)
	}
}

// TestBadModels feeds broken files to convert: each must fail with a message
// naming the problem, a non-zero exit, and no output file; an existing output
// must survive.
func TestBadModels(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(tinyModel)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	mutate := func(f func(m *onnxpb.ModelProto)) []byte {
		m := smallModel()
		f(m)
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name string
		data []byte
		want string // a word the error must contain
	}{
		{"truncated", good[:len(good)/2], "truncated.onnx"},
		{"random", random, "random.onnx"},
		{"size_mismatch", mutate(func(m *onnxpb.ModelProto) { m.Graph.Initializer[0].RawData = m.Graph.Initializer[0].RawData[:10] }), "W"},
		{"missing_initializer", mutate(func(m *onnxpb.ModelProto) { m.Graph.Initializer = nil }), "W"},
		{"missing_input", mutate(func(m *onnxpb.ModelProto) { m.Graph.Input = nil }), "X"},
		{"cycle", mutate(func(m *onnxpb.ModelProto) {
			m.Graph.Node[0].Input[0] = "Y" // conv reads relu's output, relu reads conv's
		}), "cycle"},
		{"unknown_op", mutate(func(m *onnxpb.ModelProto) { m.Graph.Node[1].OpType = proto.String("ImageDecoder") }), "ImageDecoder"},
		{"external_escape", mutate(func(m *onnxpb.ModelProto) {
			w := m.Graph.Initializer[0]
			w.RawData = nil
			loc := onnxpb.TensorProto_EXTERNAL
			w.DataLocation = &loc
			w.ExternalData = []*onnxpb.StringStringEntryProto{{Key: proto.String("location"), Value: proto.String("../outside.bin")}}
		}), "outside.bin"},
	}
	existing := filepath.Join(dir, "existing.onnx")
	os.WriteFile(existing, []byte("keep me"), 0o644)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(dir, c.name+".onnx")
			if err := os.WriteFile(in, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, c.name+"-out.onnx")
			code, _, stderr := cli(t, "convert", in, out, "--from", "onnx")
			if code == 0 {
				t.Fatalf("convert succeeded on a broken model")
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("error does not mention %q: %s", c.want, stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 3 {
				t.Errorf("error is not short: %s", stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("an output file was written")
			}
			code, _, _ = cli(t, "convert", in, existing, "--from", "onnx")
			if b, _ := os.ReadFile(existing); code == 0 || string(b) != "keep me" {
				t.Errorf("an existing output was changed")
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// smallModel is X[1,2,4,4] -> Conv(W[3,2,3,3], pads 1) -> Relu -> Y.
func smallModel() *onnxpb.ModelProto {
	w := make([]byte, 3*2*3*3*4)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < len(w); i += 4 {
		// small positive and negative floats: exponent around 2^-2
		w[i+2] = byte(rng.UintN(128))
		w[i+3] = 0x3e | byte(rng.UintN(2))<<7
	}
	f32 := int32(onnxpb.TensorProto_FLOAT)
	tensorType := func(dims ...int64) *onnxpb.TypeProto {
		var ds []*onnxpb.TensorShapeProto_Dimension
		for _, d := range dims {
			ds = append(ds, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{ElemType: &f32, Shape: &onnxpb.TensorShapeProto{Dim: ds}}}}
	}
	ints := func(name string, v ...int64) *onnxpb.AttributeProto {
		ty := onnxpb.AttributeProto_INTS
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: &ty, Ints: v}
	}
	return &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}},
		Graph: &onnxpb.GraphProto{
			Name: proto.String("small"),
			Node: []*onnxpb.NodeProto{
				{Name: proto.String("conv"), OpType: proto.String("Conv"), Input: []string{"X", "W"}, Output: []string{"H"},
					Attribute: []*onnxpb.AttributeProto{ints("pads", 1, 1, 1, 1)}},
				{Name: proto.String("relu"), OpType: proto.String("Relu"), Input: []string{"H"}, Output: []string{"Y"}},
			},
			Initializer: []*onnxpb.TensorProto{{Name: proto.String("W"), DataType: &f32, Dims: []int64{3, 2, 3, 3}, RawData: w}},
			Input:       []*onnxpb.ValueInfoProto{{Name: proto.String("X"), Type: tensorType(1, 2, 4, 4)}},
			Output:      []*onnxpb.ValueInfoProto{{Name: proto.String("Y"), Type: tensorType(1, 3, 4, 4)}},
		},
	}
}

func writeModel(t *testing.T, dir, name string, m *onnxpb.ModelProto) string {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConvertOptimize(t *testing.T) {
	out := filepath.Join(t.TempDir(), "opt.onnx")
	code, stdout, stderr := cli(t, "convert", tinyModel, out, "--optimize")
	if code != 0 || !strings.Contains(stdout, "optimized") {
		t.Fatalf("convert --optimize: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, _ = cli(t, "inspect", out, "--json")
	var rep inspectReport
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil {
		t.Fatalf("inspect of the optimized model: exit %d", code)
	}
	if rep.Ops["BatchNormalization"] != 0 {
		t.Errorf("BatchNormalization left after --optimize: %v", rep.Ops)
	}
	if code, stdout, _ := cli(t, "check", tinyModel, out, "--random", "--samples", "2"); code != 0 {
		t.Errorf("optimized model differs from the original:\n%s", stdout)
	}
}

// TestCheckTracedAgainstONNX compares each PyTorch fixture's TorchScript
// archive with its ONNX export in both directions; the two name their input
// differently, so shapes pass from A to B by position.
func TestCheckTracedAgainstONNX(t *testing.T) {
	fix := testfix.Fixtures(t)
	dirs, _ := filepath.Glob(filepath.Join(fix, "torch", "*"))
	if len(dirs) == 0 {
		t.Fatalf("no torch/* fixture folders under %s", fix)
	}
	for _, d := range dirs {
		traced, onnx := filepath.Join(d, "traced.pt"), filepath.Join(d, "model.onnx")
		data := filepath.Join(d, "test_data_set_0")
		t.Run(filepath.Base(d), func(t *testing.T) {
			if code, stdout, stderr := cli(t, "check", onnx, traced, "--inputs", data); code != 0 {
				t.Errorf("check model.onnx traced.pt: exit %d\n%s%s", code, stdout, stderr)
			}
			in, err := tensorfile.Load(filepath.Join(data, "input_0.pb"))
			if err != nil {
				t.Fatal(err)
			}
			shape := make([]string, len(in.Shape))
			for i, s := range in.Shape {
				shape[i] = fmt.Sprint(s)
			}
			if code, stdout, stderr := cli(t, "check", traced, onnx, "--random", "--input-shape", "x="+strings.Join(shape, ",")); code != 0 {
				t.Errorf("check traced.pt model.onnx: exit %d\n%s%s", code, stdout, stderr)
			}
			// Without --input-shape, A's unshaped input takes B's declared shape.
			if code, stdout, stderr := cli(t, "check", traced, onnx, "--random"); code != 0 {
				t.Errorf("check traced.pt model.onnx --random: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// TestRunTakesShapesFromInputFiles: an MXNet symbol does not record input
// shapes; the tensor given with --input supplies them.
func TestRunTakesShapesFromInputFiles(t *testing.T) {
	fix := testfix.Fixtures(t)
	dir := t.TempDir()
	in := canon.NewFloat32Tensor("data", []int64{1, 3, 12, 12}, make([]float32, 3*12*12))
	inPath := filepath.Join(dir, "data.pb")
	if err := tensorfile.Save(in, inPath); err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(fix, "mxnet", "mtcnn", "det1-symbol.json")
	code, stdout, stderr := cli(t, "run", sym, "--input", "data="+inPath, "--out", filepath.Join(dir, "out"))
	if code != 0 || !strings.Contains(stdout, "prob1") {
		t.Fatalf("run on an MXNet symbol with --input: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestRunModelWithoutInputs: a graph of constants runs with no input flags.
func TestRunModelWithoutInputs(t *testing.T) {
	m := smallModel()
	m.Graph.Node = []*onnxpb.NodeProto{{Name: proto.String("id"), OpType: proto.String("Identity"), Input: []string{"W"}, Output: []string{"Y"}}}
	m.Graph.Input = nil
	m.Graph.Output[0].Type.GetTensorType().Shape.Dim = m.Graph.Output[0].Type.GetTensorType().Shape.Dim[:0]
	for _, d := range []int64{3, 2, 3, 3} {
		m.Graph.Output[0].Type.GetTensorType().Shape.Dim = append(m.Graph.Output[0].Type.GetTensorType().Shape.Dim,
			&onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	dir := t.TempDir()
	model := writeModel(t, dir, "consts.onnx", m)
	if code, stdout, stderr := cli(t, "run", model, "--out", filepath.Join(dir, "out")); code != 0 {
		t.Fatalf("run on a model without inputs: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestInspectShowsNotes: a sparse MXNet array is made dense, and the user
// is told so.
func TestInspectShowsNotes(t *testing.T) {
	fix := testfix.Fixtures(t)
	code, stdout, _ := cli(t, "inspect", filepath.Join(fix, "mxnet", "tutorial_sparse", "mod-10.params"), "--json")
	var rep inspectReport
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil {
		t.Fatalf("inspect: exit %d", code)
	}
	if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "dense") {
		t.Fatalf("no note about densified sparse arrays: %v", rep.Notes)
	}
}

// TestRefusesWhatIsNotAModel: weights without a graph cannot be run, a graph
// without its weights cannot be converted, and mistakes in the command line
// are usage errors.
func TestRefusesWhatIsNotAModel(t *testing.T) {
	fix := testfix.Fixtures(t)
	dir := t.TempDir()
	sym := filepath.Join(dir, "Neural_Net-symbol.json")
	b, err := os.ReadFile(filepath.Join(fix, "mxnet", "tutorial_cnn", "Neural_Net-symbol.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(sym, b, 0o644)
	out := filepath.Join(dir, "lonely.onnx")
	if code, _, stderr := cli(t, "convert", sym, out, "--input-shape", "data=1,1,28,28"); code != 1 || !strings.Contains(stderr, "--params") {
		t.Errorf("convert of a symbol without params: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an output was written for a model without weights")
	}
	if code, stdout, _ := cli(t, "inspect", sym, "--input-shape", "data=1,1,28,28"); code != 0 || !strings.Contains(stdout, "mxnet") {
		t.Errorf("inspect of a symbol alone: exit %d", code)
	}
	st := filepath.Join(dir, "w.safetensors")
	if code, _, stderr := cli(t, "convert", filepath.Join(fix, "torch", "tiny_convnet", "state_dict.pt"), st); code != 0 {
		t.Fatalf("convert state dict: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cli(t, "run", st, "--random", "--out", filepath.Join(dir, "r")); code != 1 || !strings.Contains(stderr, "only weights") {
		t.Errorf("run on weights only: exit %d: %s", code, stderr)
	}
	if code, _, _ := cli(t, "frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if code, _, stderr := cli(t, "convert", tinyModel, filepath.Join(dir, "x.onnx"), "--opset", "9"); code != 2 || !strings.Contains(stderr, "11 to 26") {
		t.Errorf("--opset 9: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cli(t, "convert", tinyModel, filepath.Join(dir, "no", "such", "x.onnx")); code != 1 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("output in a missing folder: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cli(t, "check", tinyModel, tinyModel, "--random", "--rtol", "-1"); code != 2 {
		t.Errorf("negative tolerance: exit %d: %s", code, stderr)
	}
}
