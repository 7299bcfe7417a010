package onnximport

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// A Dropout whose training_mode arrives at run time reads; a run with
// training on and ratio 0 is the identity (the suite's zero_ratio cases
// pass), and one with a nonzero ratio is refused naming the randomness
// instead of returning numbers no reference reproduces.
func TestDropoutRunTimeTrainingModeRefusesRandomRuns(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22", "test_training_dropout")
	g, err := Read(filepath.Join(dir, "model.onnx"), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	inputs := map[string]*canon.Tensor{}
	for i, in := range g.Inputs {
		v, err := onnxtensor.ReadFile(filepath.Join(dir, "test_data_set_0", "input_"+strconv.Itoa(i)+".pb"))
		if err != nil {
			t.Fatal(err)
		}
		inputs[in.Name] = v
	}
	_, err = interp.Run(g, inputs)
	if err == nil || !strings.Contains(err.Error(), "random") || !strings.Contains(err.Error(), "Dropout") {
		t.Fatalf("training-mode Dropout with ratio 0.75 ran or failed without saying why: %v", err)
	}
}
