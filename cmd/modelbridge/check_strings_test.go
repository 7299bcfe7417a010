package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
)

// TestCheckComparesStringsAsText: string outputs are reported as equal
// text or by their first differing element, not as numeric errors.
func TestCheckComparesStringsAsText(t *testing.T) {
	write := func(path, suffix string) {
		g := &canon.Graph{Name: "greet"}
		g.Inputs = []canon.ValueInfo{{Name: "s", DType: canon.String, Shape: canon.DimsOf(3), RankKnown: true}}
		g.Initializers = []*canon.Tensor{{Name: "suffix", DType: canon.String, Shape: []int64{}, Strings: []string{suffix}}}
		g.Nodes = []*canon.Node{{Name: "concat", Op: &canon.StringConcat{}, Inputs: []string{"s", "suffix"}, Outputs: []string{"y"}}}
		g.Outputs = []canon.ValueInfo{{Name: "y"}}
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := onnxexport.Write(g, path, formats.WriteOptions{Opset: 20}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	a, same, other := filepath.Join(dir, "a.onnx"), filepath.Join(dir, "same.onnx"), filepath.Join(dir, "other.onnx")
	write(a, "!")
	write(same, "!")
	write(other, "?")
	code, out, errOut := cli(t, "check", a, same, "--random")
	if code != 0 || !strings.Contains(out, "strings: every element equal byte for byte") || strings.Contains(out, "max abs") {
		t.Fatalf("check of equal string outputs: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cli(t, "check", a, other, "--random")
	if code != 1 || !strings.Contains(out, "strings: first difference at [0]") || !strings.Contains(out, `!" b=`) || !strings.Contains(out, "DIFFERS (3 of 3 elements)") {
		t.Fatalf("check of differing string outputs: exit %d\n%s%s", code, out, errOut)
	}
}
