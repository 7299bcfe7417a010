package robust

import (
	"os"
	"path/filepath"
	"testing"
)

// check --samples streams the samples through both models a chunk at a
// time: 2,000 samples of 64 KiB inputs (250 MiB of inputs and as much of
// outputs per side) stay within a 64 MiB budget.
func TestCheckSamplesStreamWithinBudget(t *testing.T) {
	model := filepath.Join(t.TempDir(), "relu.onnx")
	if err := os.WriteFile(model, bigInputModel(t, 16384), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr, code, rss, took := runMeasured(t, "check", model, model, "--random", "--samples", "2000", "--max-memory", "64M", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("peak RSS %d MiB in %v", rss>>20, took)
	if rss > 160<<20 {
		t.Errorf("peak RSS %d MiB for a 64 MiB budget: the samples are not streamed", rss>>20)
	}
}
