package main

import (
	"encoding/json"
	"fmt"
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

// TestPT2StaticDynamicBatch makes the batch of programs exported with
// fixed sizes symbolic (--dynamic-batch, or a name in --input-shape): the
// ONNX file runs at batch 1 and 3 in ONNX Runtime and matches the program
// exported with a symbolic batch. Programs that baked the example's batch
// into constants are refused by name.
func TestPT2StaticDynamicBatch(t *testing.T) {
	root := filepath.Join(testfix.Fixtures(t), "torch2")
	testfix.ORT(t)
	for _, c := range []struct {
		model string
		shape string // the input's sizes after the batch
		flags []string
	}{
		{"tiny_convnet", "3,32,32", []string{"--dynamic-batch"}},
		{"tiny_unet", "3,16,16", []string{"--input-shape", "x=N,3,16,16"}},
		{"deconv_net", "", []string{"--dynamic-batch"}},
	} {
		t.Run(c.model, func(t *testing.T) {
			dir := filepath.Join(root, c.model)
			out := filepath.Join(t.TempDir(), "model.onnx")
			args := append([]string{"convert", filepath.Join(dir, "exported.pt2"), out}, c.flags...)
			if code, stdout, stderr := cli(t, args...); code != 0 {
				t.Fatalf("%v: exit %d: %s %s", args, code, stdout, stderr)
			}
			shape := c.shape
			if shape == "" {
				_, stdout, _ := cli(t, "inspect", out, "--json")
				shape = inputTail(t, stdout)
			}
			for _, batch := range []string{"1", "3"} {
				args := []string{"check", filepath.Join(dir, "exported_dynamic.pt2"), out, "--b-runtime", "ort", "--random", "--input-shape", "x=" + batch + "," + shape}
				if code, stdout, stderr := cli(t, args...); code != 0 {
					t.Errorf("batch %s: exit %d: %s %s", batch, code, stdout, stderr)
				}
			}
		})
	}
	for model, want := range map[string]string{
		"tiny_transformer": `has the fixed target shape`,
		"tiny_lstm":        `does not compute for other ones`,
	} {
		code, _, stderr := cli(t, "convert", filepath.Join(root, model, "exported.pt2"), filepath.Join(t.TempDir(), "m.onnx"), "--dynamic-batch")
		if code == 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "dynamic_shapes") {
			t.Errorf("%s --dynamic-batch: exit %d, want a refusal saying %q and how to export it:\n%s", model, code, want, stderr)
		}
	}
}

// inputTail returns the sizes after the batch of the first input that
// `inspect --json` prints, comma-separated.
func inputTail(t *testing.T, js string) string {
	t.Helper()
	var info struct {
		Inputs []struct {
			Shape []any `json:"shape"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(js), &info); err != nil || len(info.Inputs) == 0 {
		t.Fatalf("inspect --json: %v\n%s", err, js)
	}
	var parts []string
	for _, d := range info.Inputs[0].Shape[1:] {
		parts = append(parts, fmt.Sprint(d))
	}
	return strings.Join(parts, ",")
}
