package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// convert writes .tflite from the extension or --to, in NCHW or NHWC, with
// float32 or float16 weights; check compares the files with the model.
func TestConvertToTFLite(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		say  string
	}{
		{"nchw.tflite", nil, "TRANSPOSE ops at the graph's edges"},
		{"nhwc.tflite", []string{"--io-layout", "nhwc"}, "NHWC in the file"},
		{"half.tflite", []string{"--fp16"}, "stored as float16 behind DEQUANTIZE"},
		{"model.bin", []string{"--to", "tflite"}, "wrote"},
	} {
		out := filepath.Join(dir, tc.name)
		code, stdout, stderr := cli(t, append([]string{"convert", tinyModel, out}, tc.args...)...)
		if code != 0 || !strings.Contains(stdout, tc.say) {
			t.Fatalf("convert %s %v: exit %d: %s %s", tc.name, tc.args, code, stdout, stderr)
		}
		if tc.name == "nhwc.tflite" {
			continue // its input is NHWC: check compares shapes
		}
		if code, stdout, stderr := cli(t, "check", tinyModel, out, "--random", "--rtol", "2e-2", "--atol", "1e-2"); code != 0 {
			t.Fatalf("check %s: exit %d: %s %s", tc.name, code, stdout, stderr)
		}
	}
	if code, stdout, stderr := cli(t, "convert", tinyModel, filepath.Join(dir, "nhwc.onnx"), "--io-layout", "nhwc", "-v"); code != 0 || !strings.Contains(stdout+stderr, "channels-last") {
		t.Errorf("--io-layout nhwc for ONNX: exit %d: %s %s", code, stdout, stderr)
	}
	code, _, stderr := cli(t, "convert", tinyModel, filepath.Join(dir, "x.mxnet.json"), "--to", "mxnet", "--io-layout", "nhwc")
	if code == 0 || !strings.Contains(stderr, "--io-layout nhwc") {
		t.Errorf("--io-layout nhwc for MXNet: exit %d: %s", code, stderr)
	}
}
