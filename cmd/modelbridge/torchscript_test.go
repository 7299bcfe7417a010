package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestTorchScriptConvertCheck converts a traced archive to ONNX with the
// input shape given on the command line, then checks the archive against
// the result; without the shape, a model whose code needs tensor sizes
// says how to give it.
func TestTorchScriptConvertCheck(t *testing.T) {
	traced := filepath.Join(testfix.Fixtures(t), "torch", "shufflenet_v2_x0_5", "traced.pt")
	out := filepath.Join(t.TempDir(), "shufflenet.onnx")
	code, stdout, stderr := cli(t, "convert", traced, out, "--input-shape", "x=1,3,64,64")
	if code != 0 || !strings.Contains(stdout, "wrote") {
		t.Fatalf("convert: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, "check", traced, out, "--random", "--samples", "2", "--input-shape", "x=1,3,64,64", "--json")
	if code != 0 {
		t.Fatalf("check: exit %d: %s %s", code, stdout, stderr)
	}
	var rep checkReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || !rep.OK || len(rep.Outputs) != 1 || rep.Outputs[0].NameA != "output" {
		t.Fatalf("check --json: %v %+v", err, rep)
	}

	// Without a shape, torch.size becomes Shape nodes: the graph is dynamic.
	code, stdout, stderr = cli(t, "convert", traced, filepath.Join(t.TempDir(), "x.onnx"))
	if code != 0 || !strings.Contains(stdout, "wrote") {
		t.Fatalf("convert without a shape: exit %d: %s %s", code, stdout, stderr)
	}
	code, _, stderr = cli(t, "convert", traced, filepath.Join(t.TempDir(), "x.onnx"), "--input-shape", "input=1,3,64,64")
	if code == 0 || !strings.Contains(stderr, "forward's inputs are: x") {
		t.Fatalf("convert with a wrong input name: exit %d: %s", code, stderr)
	}

	// A model whose code needs no sizes converts without a shape.
	tiny := filepath.Join(testfix.Fixtures(t), "torch", "tiny_convnet", "traced.pt")
	code, stdout, stderr = cli(t, "convert", tiny, filepath.Join(t.TempDir(), "tiny.onnx"))
	if code != 0 {
		t.Fatalf("convert tiny_convnet: exit %d: %s %s", code, stdout, stderr)
	}
}
