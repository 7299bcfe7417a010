package runtimes

import (
	_ "embed"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/modelbridge/modelbridge/internal/npy"
)

// armnnFormat is the model format Arm NN's TfLiteParser reads.
const armnnFormat = "tflite"

// armnnInstall says how to get Arm NN's Python binding on Debian 12.
const armnnInstall = "install it with `apt-get install python3-pyarmnn libarmnn-cpuref-backend22 libarmnntfliteparser22`, or set MODELBRIDGE_PYTHON to a Python that has pyarmnn"

//go:embed armnn_runner.py
var armnnRunner string

// FindArmNN reports whether Arm NN's Python binding can run, and how to
// install it when not.
func FindArmNN() error {
	py := Python()
	out, err := exec.Command(py, "-c", "import numpy, pyarmnn; pyarmnn.ITfLiteParser").CombinedOutput()
	if err != nil {
		why := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(why, '\n'); i >= 0 {
			why = why[i+1:]
		}
		if why == "" {
			why = err.Error()
		}
		return &MissingError{Runtime: "Arm NN", Why: fmt.Sprintf("%s cannot import pyarmnn and numpy (%s)", py, why), Install: armnnInstall}
	}
	return nil
}

// RunArmNN runs a .tflite file in Arm NN's reference CPU backend (CpuRef)
// on each sample; inputs and outputs are in the file's subgraph order.
// Arm NN reads float models (and some quantized ones); what it cannot
// parse it reports, and that error is returned.
func RunArmNN(model string, samples []Sample) (*Result, error) {
	if strings.ToLower(filepath.Ext(model)) != ".tflite" {
		return nil, fmt.Errorf("%s: Arm NN runs .tflite files only", model)
	}
	if err := FindArmNN(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(model)
	if err != nil {
		return nil, err
	}
	ro, outs, err := run("Arm NN", armnnRunner, pythonCmd, job{Model: abs}, samples, ".npy", saveNPY, npy.ReadFile)
	if err != nil {
		return nil, err
	}
	return &Result{Runtime: "Arm NN " + ro.Version + " (CpuRef, " + Python() + ")", Outputs: outs}, nil
}
