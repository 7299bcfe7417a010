package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The default pipeline never grows the model: tiny_convnet's 2-group conv
// stays grouped and the parameter count does not rise.
func TestOptimizeDefaultNeverGrows(t *testing.T) {
	out := filepath.Join(t.TempDir(), "opt.onnx")
	code, stdout, stderr := cli(t, "optimize", tinyModel, out, "--json")
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	var rep optimizeReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	r := rep.Report
	if r.ParamsAfter > r.ParamsBefore || r.After.Total.FLOPs > r.Before.Total.FLOPs {
		t.Errorf("default pipeline grew the model: params %d -> %d, FLOPs %.0f -> %.0f", r.ParamsBefore, r.ParamsAfter, r.Before.Total.FLOPs, r.After.Total.FLOPs)
	}
	if r.Growth != nil {
		t.Errorf("growth rewrites ran without --allow-growth or --search: %+v", r.Growth)
	}
	if code, _, stderr := cli(t, "optimize", tinyModel, out, "--passes", "regroup_conv"); code != exitUsage || !strings.Contains(stderr, "--allow-growth") {
		t.Errorf("--passes regroup_conv: exit %d, want a usage error pointing at --allow-growth: %s", code, stderr)
	}
}

// A growth rewrite kept by the target is reported with the zeros it adds,
// and `check` accepts the result under the same rule optimize verified it
// with (the model target keeps the regrouping deterministically).
func TestOptimizeGrowthAgreesWithCheck(t *testing.T) {
	out := filepath.Join(t.TempDir(), "grown.onnx")
	code, stdout, stderr := cli(t, "optimize", tinyModel, out, "--allow-growth", "--target", "model")
	if code != 0 {
		t.Fatalf("optimize --allow-growth: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"growth rewrites (target model)", "regroup_conv", "ZEROS ADDED", "kept", "verified"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("optimize --allow-growth output lacks %q:\n%s", want, stdout)
		}
	}
	if code, stdout, stderr := cli(t, "check", tinyModel, out, "--random", "--samples", "3"); code != 0 {
		t.Errorf("check rejects what optimize verified: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := cli(t, "optimize", tinyModel, out, "--allow-growth", "--target", "gpu"); code != exitUsage {
		t.Errorf("--target gpu: exit %d, want a usage error: %s", code, stderr)
	}
}
