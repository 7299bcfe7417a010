package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Unknown flags name the nearest flag; -v is --verbose wherever it exists;
// completion offers flag values; x-separated input shapes are read, and
// other spellings are refused with the comma spelling.
func TestTyposAndShapes(t *testing.T) {
	for typo, want := range map[string]string{"--opest": "--opset", "--optimise": "--optimize", "--input_shape": "--input-shape"} {
		code, _, stderr := cli(t, "convert", tinyModel, "x.onnx", typo, "1")
		if code != 2 || !strings.Contains(stderr, "did you mean "+want+"?") {
			t.Errorf("%s: exit %d: %s", typo, code, stderr)
		}
	}
	if _, _, stderr := cli(t, "convert", tinyModel, "x.onnx", "--zzzzzzzz"); strings.Contains(stderr, "did you mean") {
		t.Errorf("a flag far from every flag got a suggestion: %s", stderr)
	}

	out := filepath.Join(t.TempDir(), "o.onnx")
	if code, stdout, stderr := cli(t, "convert", tinyModel, out, "-v", "--opset", "auto"); code != 0 || !strings.Contains(stdout, "opset auto:") {
		t.Errorf("convert -v: exit %d: %s %s", code, stdout, stderr)
	}
	if code, stdout, stderr := cli(t, "optimize", tinyModel, filepath.Join(t.TempDir(), "p.onnx"), "-v"); code != 0 {
		t.Errorf("optimize -v: exit %d: %s %s", code, stdout, stderr)
	}
	for _, args := range [][]string{{"inspect", tinyModel, "-v"}, {"-v"}} {
		if code, _, stderr := cli(t, args...); code != 2 || !strings.Contains(stderr, "-v is --verbose") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if code, stdout, _ := cli(t, "--version"); code != 0 || !strings.HasPrefix(stdout, "modelbridge ") {
		t.Errorf("--version: exit %d: %s", code, stdout)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "convert", "--to", ""}, "safetensors\n"},
		{[]string{"__complete", "convert", "--from", ""}, "caffe\n"},
		{[]string{"__complete", "optimize", "--passes", ""}, "fold_constants\n"},
		{[]string{"__complete", "convert", "--opset", ""}, "\n11\n"},
	} {
		if code, stdout, _ := cli(t, c.args...); code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("%v: exit %d, want %q in:\n%s", c.args, code, c.want, stdout)
		}
	}

	// 1x3x64x64 is read as [1 3 64 64]: tiny_convnet's classifier then
	// refuses the size by name, which it would not for a shape [1].
	code, _, stderr := cli(t, "convert", tinyModel, out, "--input-shape", "input=1x3x64x64")
	if code == 0 || !strings.Contains(stderr, "[1 4096]") {
		t.Errorf("--input-shape input=1x3x64x64: exit %d: %s", code, stderr)
	}
	code, _, stderr = cli(t, "convert", tinyModel, out, "--input-shape", "input=[1 3 64 64]")
	if code != 2 || !strings.Contains(stderr, "write input=1,3,64,64") {
		t.Errorf("--input-shape input=[1 3 64 64]: exit %d: %s", code, stderr)
	}
}
