package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/runtimes"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// fp16Tolerance suits float16 compute: 11 significant bits, errors that
// grow through a few layers.
var fp16Tolerance = []string{"--rtol", "1e-2", "--atol", "1e-2"}

// checkFP16 compares a float16 conversion with its float32 original in the
// interpreter and, when it is installed, in ONNX Runtime.
func checkFP16(t *testing.T, orig, half string, inputs ...string) {
	t.Helper()
	if len(inputs) == 0 {
		inputs = []string{"--random"}
	}
	runtimesB := []string{"interp"}
	if runtimes.FindORT() == nil {
		runtimesB = append(runtimesB, "ort")
	}
	for _, rt := range runtimesB {
		args := append([]string{"check", orig, half, "--b-runtime", rt, "--json"}, inputs...)
		code, stdout, stderr := cli(t, append(args, fp16Tolerance...)...)
		var rep checkReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 || !rep.OK {
			t.Errorf("%s vs %s in %s: exit %d: %v\n%s%s", orig, half, rt, code, err, stdout, stderr)
		}
	}
}

func TestConvertFP16TinyConvnet(t *testing.T) {
	dir := t.TempDir()
	half := filepath.Join(dir, "half.onnx")
	code, stdout, stderr := cli(t, "convert", tinyModel, half, "--fp16", "--keep-io-types")
	if code != 0 || !strings.Contains(stdout, "float16: 12 weights converted, 2 Casts inserted") {
		t.Fatalf("convert --fp16: %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = cli(t, "inspect", half)
	if code != 0 || !strings.Contains(stdout, "f16 ") || strings.Contains(stdout, "f32      ") ||
		!strings.Contains(stdout, "input                    f32") || !regexp.MustCompile(`(?m)^\s*Cast\s+2\b`).MatchString(stdout) {
		t.Fatalf("inspect of the float16 model: weights should be f16 and the inputs f32:\n%s", stdout)
	}
	checkFP16(t, tinyModel, half)
	if out, err := exec.Command(torchPython, "-c", "import sys, onnx; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)", half).CombinedOutput(); err != nil {
		if _, noPython := exec.LookPath(torchPython); noPython != nil || strings.Contains(string(out), "No module named") {
			t.Logf("onnx checker not run: %s", out)
		} else {
			t.Errorf("onnx.checker refuses the float16 model: %v %s", err, out)
		}
	}
	// Float16 compute is really there: without the rounding term (which
	// takes float16's unit roundoff for this model) 1e-4 is not met.
	if code, stdout, _ := cli(t, "check", tinyModel, half, "--random", "--no-rounding-allowance"); code != 1 {
		t.Errorf("the float16 model matches float32 to 1e-4; is it computing in float32?\n%s", stdout)
	}

	// Without --keep-io-types the model takes and returns float16.
	allHalf := filepath.Join(dir, "all_half.onnx")
	if code, stdout, stderr := cli(t, "convert", tinyModel, allHalf, "--fp16"); code != 0 {
		t.Fatalf("convert --fp16: %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = cli(t, "inspect", allHalf)
	if code != 0 || !strings.Contains(stdout, "input                    f16") || !strings.Contains(stdout, "logits                   f16") {
		t.Fatalf("inputs and outputs should be f16:\n%s", stdout)
	}
	if runtimes.FindORT() == nil {
		if code, stdout, stderr := cli(t, "check", allHalf, allHalf, "--random", "--b-runtime", "ort", "--rtol", "1e-2", "--atol", "1e-3"); code != 0 {
			t.Errorf("the float16 model in ONNX Runtime vs the interpreter: %d\n%s%s", code, stdout, stderr)
		}
	}
}

// TestConvertFP16KeepsFloat32Ops checks that softmax and a reduction run in
// float32 behind Casts, and that the result matches float32.
func TestConvertFP16KeepsFloat32Ops(t *testing.T) {
	dir := t.TempDir()
	m := smallModel()
	axes := &onnxpb.AttributeProto{Name: proto.String("axis"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(1)}
	keep := &onnxpb.AttributeProto{Name: proto.String("keepdims"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(1)}
	m.Graph.Node = append(m.Graph.Node,
		&onnxpb.NodeProto{Name: proto.String("softmax"), OpType: proto.String("Softmax"), Input: []string{"Y"}, Output: []string{"S"}, Attribute: []*onnxpb.AttributeProto{axes}},
		&onnxpb.NodeProto{Name: proto.String("sum"), OpType: proto.String("ReduceSum"), Input: []string{"S"}, Output: []string{"R"}, Attribute: []*onnxpb.AttributeProto{keep}},
		&onnxpb.NodeProto{Name: proto.String("scale"), OpType: proto.String("Mul"), Input: []string{"R", "Y"}, Output: []string{"Z"}},
	)
	m.Graph.Output[0].Name = proto.String("Z")
	orig := writeModel(t, dir, "soft.onnx", m)
	half := filepath.Join(dir, "soft16.onnx")
	code, stdout, stderr := cli(t, "convert", orig, half, "--fp16", "--keep-io-types")
	if code != 0 || !strings.Contains(stdout, "kept in float32: ReduceSum 1, Softmax 1") {
		t.Fatalf("convert --fp16: %d\n%s%s", code, stdout, stderr)
	}
	checkFP16(t, orig, half)
	// --fp32-ops keeps more kinds.
	code, stdout, stderr = cli(t, "convert", orig, filepath.Join(dir, "soft16b.onnx"), "--fp16", "--fp32-ops", "Conv")
	if code != 0 || !strings.Contains(stdout, "Conv 1") {
		t.Fatalf("convert --fp16 --fp32-ops Conv: %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := cli(t, "convert", orig, filepath.Join(dir, "x.onnx"), "--keep-io-types"); code != 2 || !strings.Contains(stderr, "apply with --fp16") {
		t.Errorf("--keep-io-types without --fp16: %d %s", code, stderr)
	}
	// Batch mode refuses --fp16 rather than ignoring it.
	if code, _, stderr := cli(t, "convert", "--batch", dir, "--to", "onnx", "--out", filepath.Join(dir, "batch"), "--fp16"); code != 2 || !strings.Contains(stderr, "not available with --batch") {
		t.Errorf("--fp16 with --batch: %d %s", code, stderr)
	}
}

// TestConvertFP16Fixtures converts the reference torch models' ONNX files
// and checks them on their stored inputs.
func TestConvertFP16Fixtures(t *testing.T) {
	root := filepath.Join(testfix.Fixtures(t), "torch")
	for _, name := range []string{"squeezenet1_1", "mobilenet_v2_035", "shufflenet_v2_x0_5", "deconv_net"} {
		src := filepath.Join(root, name)
		half := filepath.Join(t.TempDir(), name+".onnx")
		if code, stdout, stderr := cli(t, "convert", filepath.Join(src, "model.onnx"), half, "--fp16", "--keep-io-types"); code != 0 {
			t.Errorf("%s: convert --fp16: %d\n%s%s", name, code, stdout, stderr)
			continue
		}
		checkFP16(t, filepath.Join(src, "model.onnx"), half, "--inputs", filepath.Join(src, "test_data_set_0"))
	}
}
