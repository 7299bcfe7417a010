package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestPT2InspectConvertCheck inspects a torch.export program, converts it
// to ONNX and checks the two against each other, with the program on
// either side, at the recorded batch and at another batch size.
func TestPT2InspectConvertCheck(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch2", "tiny_convnet")
	prog := filepath.Join(dir, "exported_dynamic.pt2")
	code, stdout, stderr := cli(t, "inspect", prog)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"format:    pt2", "[s0 3 32 32]", "symbolic dims:", "s0                       1..64", "parameter conv1.weight", "buffer bn1.running_mean", "user input", "user output"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, stdout)
		}
	}
	out := filepath.Join(t.TempDir(), "model.onnx")
	if code, stdout, stderr = cli(t, "convert", prog, out); code != 0 || !strings.Contains(stdout, "wrote") {
		t.Fatalf("convert: exit %d: %s %s", code, stdout, stderr)
	}
	inputs := filepath.Join(dir, "test_data_set_0")
	for _, pair := range [][2]string{{prog, out}, {filepath.Join(dir, "model.onnx"), prog}} {
		if code, stdout, stderr = cli(t, "check", pair[0], pair[1], "--inputs", inputs); code != 0 {
			t.Errorf("check %s %s: exit %d: %s %s", pair[0], pair[1], code, stdout, stderr)
		}
	}
	if code, stdout, stderr = cli(t, "check", prog, out, "--random", "--input-shape", "x=3,3,32,32"); code != 0 {
		t.Errorf("check at batch 3: exit %d: %s %s", code, stdout, stderr)
	}
}
