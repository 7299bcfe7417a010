package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// TestExtractMatchesONNXExtractModel cuts the middle of tiny_convnet and
// checks the cut against onnx.utils.extract_model's: same nodes, same values.
func TestExtractMatchesONNXExtractModel(t *testing.T) {
	dir := t.TempDir()
	ours := filepath.Join(dir, "ours.onnx")
	code, stdout, stderr := cli(t, "extract", tinyModel, ours, "--inputs", "/Relu_output_0", "--outputs", "/Relu_2_output_0,/conv2/Conv_output_0")
	if code != 0 || !strings.Contains(stdout, "extracted 5 of 10 nodes") {
		t.Fatalf("extract: %d\n%s%s", code, stdout, stderr)
	}
	ref := filepath.Join(dir, "ref.onnx")
	script := `import sys, onnx, onnx.utils
onnx.utils.extract_model(sys.argv[1], sys.argv[2], ["/Relu_output_0"], ["/Relu_2_output_0", "/conv2/Conv_output_0"])
for p in sys.argv[2:]:
    m = onnx.load(p)
    onnx.checker.check_model(m)
    print(" ".join(n.op_type for n in m.graph.node), [i.name for i in m.graph.input], [o.name for o in m.graph.output])
`
	out, err := exec.Command(torchPython, "-c", script, tinyModel, ref, ours).CombinedOutput()
	if err != nil {
		t.Skipf("skipping the comparison with onnx.utils.extract_model (%s cannot run it): %v %s", torchPython, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[0] != lines[1] {
		t.Fatalf("onnx.utils.extract_model and modelbridge extract differ (ref, ours):\n%s", out)
	}
	code, stdout, stderr = cli(t, "check", ours, ref, "--random")
	if code != 0 {
		t.Fatalf("the cut computes other values than onnx's: %d\n%s%s", code, stdout, stderr)
	}
}

// TestExtractUnsupportedTail cuts a model before an op modelbridge lacks:
// the whole model is refused with a hint to extract, and the cut converts.
func TestExtractUnsupportedTail(t *testing.T) {
	dir := t.TempDir()
	m := smallModel()
	m.Graph.Node = append(m.Graph.Node, &onnxpb.NodeProto{Name: proto.String("tail"), OpType: proto.String("NoSuchOpAnywhere"), Input: []string{"Y"}, Output: []string{"Z"}})
	m.Graph.Output[0].Name = proto.String("Z")
	in := writeModel(t, dir, "tail.onnx", m)
	code, _, stderr := cli(t, "convert", in, filepath.Join(dir, "whole.onnx"))
	if code == 0 || !strings.Contains(stderr, "modelbridge extract") {
		t.Fatalf("the unsupported op should be refused with a hint to extract: %d %s", code, stderr)
	}
	for _, out := range []string{"head.onnx", "head_torch", "head-symbol.json"} {
		p := filepath.Join(dir, out)
		args := []string{"extract", in, p, "--outputs", "Y"}
		if out == "head_torch" {
			args = append(args, "--to", "torch")
		}
		code, stdout, stderr := cli(t, args...)
		if code != 0 || !strings.Contains(stdout, "extracted 2 nodes") {
			t.Fatalf("extract %s: %d\n%s%s", out, code, stdout, stderr)
		}
	}
	// The cut of the supported part equals the model without the tail.
	m2 := smallModel()
	whole := writeModel(t, dir, "small.onnx", m2)
	if code, stdout, stderr := cli(t, "check", filepath.Join(dir, "head.onnx"), whole, "--random"); code != 0 {
		t.Fatalf("cut vs model without its tail: %d\n%s%s", code, stdout, stderr)
	}
}

// TestExtractFromOtherFormats cuts an MXNet model in canonical form.
func TestExtractFromOtherFormats(t *testing.T) {
	dir := t.TempDir()
	sym := filepath.Join(dir, "m-symbol.json")
	if code, stdout, stderr := cli(t, "convert", tinyModel, sym); code != 0 {
		t.Fatalf("convert: %d\n%s%s", code, stdout, stderr)
	}
	cutMX := filepath.Join(dir, "cut_mx.onnx")
	code, stdout, stderr := cli(t, "extract", sym, cutMX, "--inputs", "/Relu_output_0", "--outputs", "/Relu_2_output_0")
	if code != 0 || !strings.Contains(stdout, "extracted 5 of 10 nodes") {
		t.Fatalf("extract from MXNet: %d\n%s%s", code, stdout, stderr)
	}
	cutONNX := filepath.Join(dir, "cut.onnx")
	if code, stdout, stderr := cli(t, "extract", tinyModel, cutONNX, "--inputs", "/Relu_output_0", "--outputs", "/Relu_2_output_0"); code != 0 {
		t.Fatalf("extract: %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := cli(t, "check", cutMX, cutONNX, "--random"); code != 0 {
		t.Fatalf("the MXNet and ONNX cuts differ: %d\n%s%s", code, stdout, stderr)
	}
}

func TestExtractErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cut.onnx")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--inputs", "/Relu_output_0"}, 2, "extract needs --outputs"},
		{[]string{"--outputs", "nosuch"}, 1, `output "nosuch" is not a value of the model`},
		{[]string{"--inputs", "nosuch", "--outputs", "logits"}, 1, `input "nosuch" is not a value of the model`},
		{[]string{"--inputs", "/Relu_1_output_0", "--outputs", "/conv2/Conv_output_0"}, 1, `reads the model input "input", which is not among the cut's inputs`},
	}
	for _, c := range cases {
		code, _, stderr := cli(t, append([]string{"extract", tinyModel, out}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("extract %v: exit %d, want %d with %q; stderr:\n%s", c.args, code, c.code, c.want, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("extract %v wrote %s despite the error", c.args, out)
		}
	}
}
