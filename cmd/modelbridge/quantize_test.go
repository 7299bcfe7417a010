package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
)

// calibrationDir writes n random input sets for tiny_convnet.
func calibrationDir(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < n; i++ {
		set := filepath.Join(dir, fmt.Sprintf("test_data_set_%d", i))
		if err := os.Mkdir(set, 0o755); err != nil {
			t.Fatal(err)
		}
		v := make([]float32, 3*32*32)
		for k := range v {
			v[k] = float32(rng.NormFloat64())
		}
		if err := tensorfile.Save(canon.NewFloat32Tensor("input", []int64{1, 3, 32, 32}, v), filepath.Join(set, "input_0.pb")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var sqnrRow = regexp.MustCompile(`(?m)^\s+logits\s+([0-9.]+)\s+`)

func TestOptimizeQuantizeInt8(t *testing.T) {
	calib := calibrationDir(t, 8)
	out := filepath.Join(t.TempDir(), "q.onnx")
	code, stdout, stderr := cli(t, "optimize", tinyModel, out, "--quantize", "int8", "--calibrate", calib, "--calibration", "percentile")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	m := sqnrRow.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no SQNR row for logits:\n%s", stdout)
	}
	if db, _ := strconv.ParseFloat(m[1], 64); db < 25 {
		t.Errorf("SQNR %g dB", db)
	}
	if !strings.Contains(stdout, "quantized (static, percentile calibration on 6 input sets): Conv 1, Linear 1, grouped Conv 1") || !strings.Contains(stdout, "held-out") {
		t.Errorf("report:\n%s", stdout)
	}
	// The pair compares layer by layer.
	code, stdout, _ = cli(t, "check", tinyModel, out, "--inputs", filepath.Join(calib, "test_data_set_0"), "--layers", "--layer-sqnr", "60")
	if code != 1 || !strings.Contains(stdout, "SQNR dB") || !strings.Contains(stdout, "first layer below 60.0 dB SQNR") {
		t.Errorf("check --layers: exit %d\n%s", code, stdout)
	}
}

func TestQuantizeRefusals(t *testing.T) {
	calib := calibrationDir(t, 4)
	dir := t.TempDir()
	out := filepath.Join(dir, "q.onnx")
	code, stdout, stderr := cli(t, "optimize", tinyModel, out, "--quantize", "int8", "--calibrate", calib, "--min-sqnr", "200")
	if code == 0 || !strings.Contains(stderr, "below --min-sqnr 200.0: nothing written") {
		t.Errorf("--min-sqnr 200: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a model below --min-sqnr was written")
	}
	for _, args := range [][]string{
		{"optimize", tinyModel, out, "--quantize", "int8"},                                   // no calibration inputs
		{"optimize", tinyModel, out, "--calibrate", calib},                                   // no --quantize
		{"optimize", tinyModel, out, "--quantize", "int4", "--calibrate", calib},             // unknown mode
		{"convert", tinyModel, filepath.Join(dir, "q.safetensors"), "--quantize", "dynamic"}, // not ONNX
		{"optimize", tinyModel, out, "--quantize", "int8", "--calibrate", calib, "--calibration", "mean"},
	} {
		if code, _, stderr := cli(t, args...); code == 0 || stderr == "" {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

func TestConvertQuantizeDynamic(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d.onnx")
	code, stdout, stderr := cli(t, "convert", tinyModel, out, "--quantize", "dynamic")
	if code != 0 || !strings.Contains(stdout, "quantized (dynamic") || sqnrRow.FindStringSubmatch(stdout) == nil {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}
