package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
)

// TestCheckComparesDrawsByShape: an output computed from a random draw is
// compared by shape, dtype and range, and check says so; the deterministic
// output beside it is compared element by element.
func TestCheckComparesDrawsByShape(t *testing.T) {
	g := &canon.Graph{Name: "draws"}
	g.Inputs = []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(4, 5), RankKnown: true}}
	g.Nodes = []*canon.Node{
		{Name: "noise", Op: &canon.RandomNormalLike{Scale: 1, DType: canon.Float32}, Inputs: []string{"x"}, Outputs: []string{"n"}},
		{Name: "noisy", Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{"x", "n"}, Outputs: []string{"y"}},
		{Name: "twice", Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{"x", "x"}, Outputs: []string{"z"}},
	}
	g.Outputs = []canon.ValueInfo{{Name: "y"}, {Name: "z"}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.onnx"), filepath.Join(dir, "b.onnx")
	if err := onnxexport.Write(g, a, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	g.Nodes[0].Name = "other_noise" // another stream in the interpreter
	if err := onnxexport.Write(g, b, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli(t, "check", a, b, "--random")
	if code != 0 || !strings.Contains(out, "random draws: compared by shape, dtype and range") {
		t.Fatalf("check: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cli(t, "check", a, b, "--random", "--json")
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("check --json: exit %d: %v\n%s%s", code, err, out, errOut)
	}
	if len(rep.Outputs) != 2 || rep.Outputs[0].Drawn == nil || rep.Outputs[1].Drawn != nil || !rep.OK {
		t.Errorf("check --json: %+v; want output y drawn, z compared by value", rep.Outputs)
	}
}
