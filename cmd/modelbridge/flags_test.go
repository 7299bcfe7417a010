package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// --no-verify skips the check but still optimizes and writes; the JSON
// report says the result was not verified.
func TestNoVerifyFlags(t *testing.T) {
	dir := t.TempDir()
	conv := filepath.Join(dir, "conv.onnx")
	code, stdout, stderr := cli(t, "convert", tinyModel, conv, "--optimize", "--no-verify")
	if code != 0 || !strings.Contains(stdout, "optimized") {
		t.Fatalf("convert --optimize --no-verify: exit %d: %s %s", code, stdout, stderr)
	}
	if _, err := os.Stat(conv); err != nil {
		t.Fatalf("convert --optimize --no-verify wrote nothing: %v", err)
	}

	opt := filepath.Join(dir, "opt.onnx")
	code, stdout, stderr = cli(t, "optimize", tinyModel, opt, "--no-verify", "--json")
	if code != 0 {
		t.Fatalf("optimize --no-verify: exit %d: %s", code, stderr)
	}
	var rep optimizeReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("optimize --json: %v\n%s", err, stdout)
	}
	if !rep.Written || rep.Report.Verified {
		t.Errorf("optimize --no-verify report: written %v verified %v, want written and not verified", rep.Written, rep.Report.Verified)
	}
	if _, err := os.Stat(opt); err != nil {
		t.Fatalf("optimize --no-verify wrote nothing: %v", err)
	}

	// Without the flag the same run is verified.
	code, stdout, stderr = cli(t, "optimize", tinyModel, filepath.Join(dir, "opt2.onnx"), "--json")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	rep = optimizeReport{}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || !rep.Report.Verified {
		t.Errorf("optimize without --no-verify: verified %v (%v)", rep.Report.Verified, err)
	}
}

// --seed picks the random inputs: the same seed gives the same outputs.
func TestRunRandomSeed(t *testing.T) {
	dir := t.TempDir()
	output := func(name, seed string) []byte {
		t.Helper()
		out := filepath.Join(dir, name)
		if code, _, stderr := cli(t, "run", tinyModel, "--random", "--seed", seed, "--out", out); code != 0 {
			t.Fatalf("run --random --seed %s: exit %d: %s", seed, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "output_0.pb"))
		if err != nil || len(b) == 0 {
			t.Fatalf("run --seed %s: no output file: %v", seed, err)
		}
		return b
	}
	a, b, c := output("a", "7"), output("b", "7"), output("c", "8")
	if !bytes.Equal(a, b) {
		t.Error("run --random --seed 7 twice gave different outputs")
	}
	if bytes.Equal(a, c) {
		t.Error("run --random with seeds 7 and 8 gave identical outputs")
	}
}

// The optimized model differs from the original by float rounding only: it
// passes at the default tolerances and fails when they are zero and the
// rounding allowance is dropped.
func TestCheckTolerances(t *testing.T) {
	opt := filepath.Join(t.TempDir(), "opt.onnx")
	if code, _, stderr := cli(t, "convert", tinyModel, opt, "--optimize"); code != 0 {
		t.Fatalf("convert --optimize: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := cli(t, "check", tinyModel, opt, "--random"); code != 0 {
		t.Fatalf("check at default tolerances: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := cli(t, "check", tinyModel, opt, "--random", "--rtol", "0", "--atol", "0", "--no-rounding-allowance")
	if code != 1 {
		t.Fatalf("check --rtol 0 --atol 0 --no-rounding-allowance: exit %d, want 1 (the optimized model rounds differently)\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, "DIFFERS") {
		t.Errorf("check --rtol 0 --atol 0 does not say which output differs:\n%s%s", stdout, stderr)
	}
	// A generous absolute tolerance alone is enough.
	if code, stdout, stderr := cli(t, "check", tinyModel, opt, "--random", "--rtol", "0", "--atol", "1e-3", "--no-rounding-allowance"); code != 0 {
		t.Errorf("check --rtol 0 --atol 1e-3: exit %d\n%s%s", code, stdout, stderr)
	}
}

// PyTorch checkpoints are often named .pth or .ckpt; both read as torch.
func TestTorchCheckpointExtensions(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testfix.Fixtures(t), "torch", "tiny_convnet", "state_dict.pt"))
	if err != nil {
		t.Fatalf("fixture folder is incomplete: %v", err)
	}
	dir := t.TempDir()
	for _, name := range []string{"x.pth", "x.ckpt"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := cli(t, "inspect", p, "--json")
		if code != 0 {
			t.Fatalf("inspect %s: exit %d: %s", name, code, stderr)
		}
		var rep inspectReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("inspect %s --json: %v", name, err)
		}
		if rep.Format != "torch" || rep.Params.Tensors == 0 {
			t.Errorf("inspect %s: format %q with %d tensors, want torch with weights", name, rep.Format, rep.Params.Tensors)
		}
	}
}
