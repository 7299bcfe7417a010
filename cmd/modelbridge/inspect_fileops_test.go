package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// inspect shows the file's own op names and node count beside the
// canonical view, and --weights N / --no-weights limit the weight list.
func TestInspectDescribesTheFileAsItIs(t *testing.T) {
	code, stdout, stderr := cli(t, "inspect", tinyModel, "--weights", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`Gemm +1 +Linear +1`).MatchString(stdout) || !strings.Contains(stdout, "nodes:     10 in the file, 10 canonical") {
		t.Errorf("file ops beside canonical ops:\n%s", stdout)
	}
	if !strings.Contains(stdout, "conv2.bias") || strings.Contains(stdout, "deconv.weight") || !strings.Contains(stdout, "... 10 more weights") {
		t.Errorf("--weights 2:\n%s", stdout)
	}
	_, stdout, _ = cli(t, "inspect", tinyModel, "--no-weights", "--json")
	var rep inspectReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Weights) != 0 || rep.WeightsHidden != 12 || rep.Params.Tensors != 12 || rep.FileOps["Gemm"] != 1 || rep.Ops["Linear"] != 1 {
		t.Errorf("--no-weights --json: %d weights, %d hidden, %d tensors, file ops %v", len(rep.Weights), rep.WeightsHidden, rep.Params.Tensors, rep.FileOps)
	}

	// torch.onnx's MobileNetV2: 70 Constant nodes the import folds away.
	model := filepath.Join(testfix.Fixtures(t), "torch", "mobilenet_v2_035", "model.onnx")
	_, stdout, _ = cli(t, "inspect", model, "--no-weights")
	if !strings.Contains(stdout, "nodes:     222 in the file, 152 canonical") || !regexp.MustCompile(`Constant +70`).MatchString(stdout) {
		t.Errorf("mobilenet_v2_035:\n%s", stdout)
	}
}
