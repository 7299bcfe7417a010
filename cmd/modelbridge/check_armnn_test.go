package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/runtimes"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

func needArmNN(t *testing.T) {
	t.Helper()
	if err := runtimes.FindArmNN(); err != nil {
		t.Skipf("skipping: %v", err)
	}
}

// TestCheckArmNN exports the tiny convnet to .tflite (float32, NCHW
// inputs and outputs) and checks it, run in Arm NN's reference backend,
// against the ONNX model run in the interpreter.
func TestCheckArmNN(t *testing.T) {
	needArmNN(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "tiny.tflite")
	if code, _, stderr := cli(t, "convert", tinyModel, out); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := cli(t, "check", tinyModel, out, "--b-runtime", "armnn", "--random", "--samples", "3", "--json")
	var rep checkReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 || !rep.OK {
		t.Fatalf("check: exit %d: %v %s %s", code, err, stdout, stderr)
	}
	if !strings.HasPrefix(rep.RuntimeB, "Arm NN ") || !strings.HasPrefix(rep.RuntimeA, "modelbridge interpreter") {
		t.Errorf("runtimes %q and %q", rep.RuntimeA, rep.RuntimeB)
	}
	t.Logf("interpreter vs %s: max abs %.3g, max rel %.3g", rep.RuntimeB, rep.Outputs[0].MaxAbs, rep.Outputs[0].MaxRel)
	// Both sides in Arm NN: the ONNX side is refused by name.
	code, _, stderr = cli(t, "check", tinyModel, out, "--runtime", "armnn", "--random")
	if code != 2 || !strings.Contains(stderr, "Arm NN runs .tflite files") {
		t.Errorf("--runtime armnn on an ONNX file: exit %d: %s", code, stderr)
	}
}

// TestCheckArmNNReportsParserRefusal: a file Arm NN cannot parse (it has
// no UNIDIRECTIONAL_SEQUENCE_LSTM) is exit 2 with Arm NN's reason.
func TestCheckArmNNReportsParserRefusal(t *testing.T) {
	needArmNN(t)
	lstm := filepath.Join(testfix.Fixtures(t), "tflite", "trained_lstm.tflite")
	if _, err := os.Stat(lstm); err != nil {
		t.Skipf("skipping: %v", err)
	}
	code, _, stderr := cli(t, "check", lstm, lstm, "--b-runtime", "armnn", "--random")
	if code != 2 || !strings.Contains(stderr, "UNIDIRECTIONAL_SEQUENCE_LSTM") || strings.Contains(stderr, "Traceback") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestCheckArmNNMissing: without pyarmnn, check says how to install it.
func TestCheckArmNNMissing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "tiny.tflite")
	if code, _, stderr := cli(t, "convert", tinyModel, out); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	t.Setenv("MODELBRIDGE_PYTHON", filepath.Join(dir, "no-python"))
	code, _, stderr := cli(t, "check", tinyModel, out, "--b-runtime", "armnn", "--random")
	if code != 2 || !strings.Contains(stderr, "Arm NN is not available") || !strings.Contains(stderr, "apt-get install python3-pyarmnn") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
