package pipeline

import (
	"path/filepath"
	"testing"
)

func TestModelStemAndOutputs(t *testing.T) {
	for in, want := range map[string]string{"resnet-symbol.json": "resnet", "resnet-0010.params": "resnet", "a.onnx": "a", "m.pt": "m", "noext": "noext"} {
		if got := ModelStem(in); got != want {
			t.Errorf("ModelStem(%q) = %q, want %q", in, got, want)
		}
	}
	jobs := PlanOutputs("in", "out", []string{"in/a.onnx", "in/a.pt"}, ".onnx")
	if jobs[0].Out != filepath.Join("out", "a.onnx") || jobs[1].Out != filepath.Join("out", "a.pt.onnx") {
		t.Fatalf("outputs %+v", jobs)
	}
}
