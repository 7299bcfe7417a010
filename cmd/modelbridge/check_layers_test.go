package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// layersOf runs check --layers --json and returns the report.
func layersOf(t *testing.T, wantCode int, args ...string) checkReport {
	t.Helper()
	code, stdout, stderr := cli(t, append([]string{"check", "--layers", "--json"}, args...)...)
	var rep checkReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != wantCode || rep.Layers == nil {
		t.Fatalf("check --layers %v: exit %d (want %d): %v\n%s%s", args, code, wantCode, err, stdout, stderr)
	}
	return rep
}

// TestCheckLayersNamesTheCorruptedConvTranspose: the middle ConvTranspose
// of deconv_net with its weight in the wrong layout is the first layer
// reported, with its inputs agreeing, whether B's intermediates come from
// the interpreter or from ONNX Runtime, and whether A's values are matched
// by name (the same export) or by structure (the TorchScript file).
func TestCheckLayersNamesTheCorruptedConvTranspose(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch", "deconv_net")
	orig := filepath.Join(dir, "model.onnx")
	bad := corruptConvTranspose(t, orig, "up2.weight")
	inputs := filepath.Join(dir, "test_data_set_0")

	type variant struct {
		name      string
		args      []string
		node      string
		matchedBy string
		needsORT  bool
	}
	for _, v := range []variant{
		{"same export, interpreter", []string{orig, bad}, "/up2/ConvTranspose", "name", false},
		{"TorchScript vs export, interpreter", []string{filepath.Join(dir, "traced.pt"), bad}, "up2.ConvTranspose", "structure", false},
		{"same export, ONNX Runtime", []string{orig, bad, "--runtime", "ort"}, "/up2/ConvTranspose", "name", true},
	} {
		t.Run(v.name, func(t *testing.T) {
			if v.needsORT {
				needORT(t)
			}
			rep := layersOf(t, 1, append(v.args, "--inputs", inputs)...)
			l := rep.Layers
			if l.FirstDiff < 0 {
				t.Fatalf("no first differing layer: %+v", l.Layers)
			}
			first := l.Layers[l.FirstDiff]
			if first.NodeA != v.node || first.OpA != "ConvTranspose" || first.MatchedBy != v.matchedBy {
				t.Fatalf("first differing layer %+v, want node %s matched by %s", first, v.node, v.matchedBy)
			}
			if !strings.Contains(strings.Join(first.Weights, " "), "up2.weight") {
				t.Errorf("weights of the layer: %v", first.Weights)
			}
			for _, in := range first.Inputs {
				if !in.OK || in.Kind == "unmatched" {
					t.Errorf("input %+v of the first differing layer", in)
				}
			}
			// Every layer before it agrees; it and what follows differ.
			for i, row := range l.Layers {
				if (i < l.FirstDiff) != row.OK {
					t.Errorf("layer %d %s: ok=%v", i, row.NodeA, row.OK)
				}
			}
			if v.needsORT && !strings.Contains(l.RuntimeA, "ONNX Runtime") {
				t.Errorf("intermediates by %q", l.RuntimeA)
			}
		})
	}

	// The text report names the layer.
	code, stdout, _ := cli(t, "check", "--layers", orig, bad, "--inputs", inputs)
	if code != 1 || !strings.Contains(stdout, `first differing layer: node "/up2/ConvTranspose" (ConvTranspose)`) ||
		!strings.Contains(stdout, "its weights: up2.weight") || !strings.Contains(stdout, "<- first") {
		t.Errorf("text report: exit %d:\n%s", code, stdout)
	}
}

// TestCheckLayersAcrossFoldedBatchNorm: after optimize folds BatchNorm
// into the transposed convolutions, each conv of the optimized model is
// matched with the original's BatchNorm output, and all agree.
func TestCheckLayersAcrossFoldedBatchNorm(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch", "deconv_net")
	opt := filepath.Join(t.TempDir(), "opt.onnx")
	if code, _, stderr := cli(t, "optimize", filepath.Join(dir, "model.onnx"), opt); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	rep := layersOf(t, 0, filepath.Join(dir, "traced.pt"), opt, "--inputs", filepath.Join(dir, "test_data_set_0"))
	folded := 0
	for _, l := range rep.Layers.Layers {
		if !l.OK {
			t.Errorf("layer %s differs: %+v", l.NodeA, l)
		}
		if l.OpA == "ConvTranspose" && strings.Contains(l.ValueA, "BatchNorm") {
			folded++
		}
	}
	if folded != 2 || rep.Layers.FirstDiff != -1 || rep.Layers.UnmatchedA != 0 {
		t.Errorf("want 2 ConvTranspose layers compared at their BatchNorm output, all matched: %+v", rep.Layers)
	}
}

func TestParseSignature(t *testing.T) {
	vs, err := parseSignature(" x f32[1, 3, ?, s0], mask bool[4]")
	if err != nil || len(vs) != 2 || vs[0].Name != "x" || vs[0].DType.String() != "f32" || len(vs[0].Shape) != 4 ||
		vs[0].Shape[2].Known() || vs[0].Shape[3].Param != "s0" || vs[1].Name != "mask" || vs[1].Shape[0].Size != 4 {
		t.Fatalf("%+v %v", vs, err)
	}
	if _, err := parseSignature("x f32"); err == nil {
		t.Fatal("a value without a shape was accepted")
	}
}

// TestCheckLayersOffline: testdata's tiny_convnet with its ConvTranspose
// weight in the wrong layout, then optimized (BatchNorm folded into the
// ConvTranspose, renamed values): --layers names the ConvTranspose, and the
// optimized uncorrupted model agrees layer by layer.
func TestCheckLayersOffline(t *testing.T) {
	dir := t.TempDir()
	bad := corruptConvTranspose(t, tinyModel, "deconv.weight")
	badOpt, goodOpt := filepath.Join(dir, "bad_opt.onnx"), filepath.Join(dir, "good_opt.onnx")
	for src, dst := range map[string]string{bad: badOpt, tinyModel: goodOpt} {
		if code, _, stderr := cli(t, "optimize", src, dst); code != 0 && code != 1 {
			t.Fatalf("optimize %s: exit %d: %s", src, code, stderr)
		}
	}
	for _, b := range []string{bad, badOpt} {
		rep := layersOf(t, 1, tinyModel, b, "--random")
		if rep.Layers.FirstDiff < 0 || rep.Layers.Layers[rep.Layers.FirstDiff].OpA != "ConvTranspose" ||
			!strings.Contains(strings.Join(rep.Layers.Layers[rep.Layers.FirstDiff].Weights, " "), "deconv.weight") {
			t.Errorf("%s: first differing layer %d of %+v", b, rep.Layers.FirstDiff, rep.Layers.Layers)
		}
	}
	rep := layersOf(t, 0, tinyModel, goodOpt, "--random")
	if rep.Layers.FirstDiff != -1 || len(rep.Layers.Layers) < 5 {
		t.Errorf("optimized model: %+v", rep.Layers)
	}
}

// TestCheckLayersRoundingAllowance: layers are compared by the rule the
// outputs are, rounding allowance included, so a folded BatchNorm's
// rounding passes at zero rtol and atol, and fails without the allowance.
func TestCheckLayersRoundingAllowance(t *testing.T) {
	opt := filepath.Join(t.TempDir(), "opt.onnx")
	if code, _, stderr := cli(t, "optimize", tinyModel, opt); code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, stderr)
	}
	rep := layersOf(t, 0, tinyModel, opt, "--random", "--rtol", "0", "--atol", "0")
	if rep.Layers.FirstDiff != -1 {
		t.Errorf("with the rounding allowance: first differing layer %d of %+v", rep.Layers.FirstDiff, rep.Layers.Layers)
	}
	rep = layersOf(t, 1, tinyModel, opt, "--random", "--rtol", "0", "--atol", "0", "--no-rounding-allowance")
	if rep.Layers.FirstDiff < 0 {
		t.Errorf("without the rounding allowance every layer passed: %+v", rep.Layers.Layers)
	}
}
