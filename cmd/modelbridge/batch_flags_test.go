package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
)

// Every single-file flag of convert either works in --batch mode or is
// refused there by name: --optimize optimizes each model, --opset is
// checked against the exporter, and flags that name one model are refused.
func TestBatchHonoursOrRefusesFlags(t *testing.T) {
	in := t.TempDir()
	model, err := os.ReadFile(tinyModel)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in, "a.onnx"), model, 0o644)

	out := filepath.Join(t.TempDir(), "opt")
	code, stdout, stderr := cli(t, "convert", "--batch", in, "--to", "onnx", "--out", out, "--optimize")
	if code != 0 || !strings.Contains(stdout, "optimized 10 -> 9 nodes") {
		t.Fatalf("--batch --optimize: exit %d: %s %s", code, stdout, stderr)
	}
	g, _, err := formats.Read(filepath.Join(out, "a.onnx"), "", formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 9 {
		t.Errorf("--batch --optimize wrote %d nodes, want the optimized 9", len(g.Nodes))
	}
	g.Close()

	refused := []struct {
		args []string
		want string
	}{
		{[]string{"--weights", tinyModel}, "--weights does not apply to --batch"},
		{[]string{"--allow-partial"}, "--allow-partial does not apply to --batch"},
		{[]string{"--input", "x=a.npy"}, "--input does not apply to --batch"},
		{[]string{"--inputs", in}, "--inputs does not apply to --batch"},
		{[]string{"--params", "x.params"}, "--params does not apply to --batch"},
		{[]string{"--verbose"}, "--verbose does not apply to --batch"},
		{[]string{"--opset", "3"}, "--opset 3: modelbridge writes onnx opsets"},
		{[]string{"--kernel-layout", "HWIO"}, "--kernel-layout: onnx cannot declare"},
	}
	for _, c := range refused {
		args := append([]string{"convert", "--batch", in, "--to", "onnx", "--out", filepath.Join(t.TempDir(), "o")}, c.args...)
		code, stdout, stderr := cli(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q: %s %s", c.args, code, c.want, stdout, stderr)
		}
	}
	// --opset and --external-data reach the ONNX exporter; --no-verify and
	// --dynamic-batch the per-model steps; global flags apply as anywhere.
	out = filepath.Join(t.TempDir(), "o11")
	code, stdout, stderr = cli(t, "convert", "--batch", in, "--to", "onnx", "--out", out, "--opset", "11", "--external-data", "--optimize", "--no-verify", "--dynamic-batch", "-q", "--max-memory", "1G")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "a.onnx.data")); err != nil {
		t.Errorf("--external-data in batch mode wrote no a.onnx.data: %v", err)
	}
	g, _, err = formats.Read(filepath.Join(out, "a.onnx"), "", formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Meta.SourceOpset != 11 || g.Inputs[0].Shape[0].Param == "" {
		t.Errorf("opset %d, input dims %v: want opset 11 and a symbolic batch", g.Meta.SourceOpset, g.Inputs[0].Shape)
	}
}
