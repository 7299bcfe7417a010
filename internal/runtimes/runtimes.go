// Package runtimes runs a model in a framework's own runtime, so that
// `check` can compare what ONNX Runtime or PyTorch computes, not only what
// modelbridge's interpreter computes for the imported graph.
//
// ONNX Runtime runs through package ort (its Node binding); PyTorch and
// Arm NN (.tflite files) through /usr/bin/python3 (or $MODELBRIDGE_PYTHON).
// Each runs all samples in one process and exchanges tensors as files.
package runtimes

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/interrupt"
)

// Names of the runtimes `check --runtime` accepts.
const (
	Interp = "interp"
	ORT    = "ort"
	Torch  = "torch"
	ArmNN  = "armnn"
)

// Names lists the accepted runtime names.
var Names = []string{Interp, ORT, Torch, ArmNN}

// Sample is one set of inputs, in the model's input order.
type Sample []*canon.Tensor

// Result is what a runtime computed: per sample, the outputs in the model's
// output order, and a description of the runtime ("ONNX Runtime 1.30.0").
type Result struct {
	Runtime string
	// Names are the output names the runtime reported, when it names them.
	Names   []string
	Outputs [][]*canon.Tensor
}

// MissingError says a runtime is not installed and how to install it.
type MissingError struct {
	Runtime string
	Why     string
	Install string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s is not available: %s; %s", e.Runtime, e.Why, e.Install)
}

// Python is the interpreter that runs PyTorch.
func Python() string {
	if p := os.Getenv("MODELBRIDGE_PYTHON"); p != "" {
		return p
	}
	return "/usr/bin/python3"
}

// FindTorch reports whether PyTorch can run, and how to install it when not.
func FindTorch() error {
	py := Python()
	out, err := exec.Command(py, "-c", "import torch, numpy").CombinedOutput()
	if err != nil {
		why := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(why, '\n'); i >= 0 {
			why = why[i+1:]
		}
		if why == "" {
			why = err.Error()
		}
		return &MissingError{Runtime: "PyTorch", Why: fmt.Sprintf("%s cannot import torch and numpy (%s)", py, why),
			Install: "install them with `apt-get install python3-torch python3-numpy` or `pip install torch numpy`, or set MODELBRIDGE_PYTHON to a Python that has them"}
	}
	return nil
}

//go:embed torch_runner.py
var torchRunner string

// runnerOutput is the JSON line the PyTorch runner prints at the end.
type runnerOutput struct {
	// Version is PyTorch's.
	Version string   `json:"version"`
	Outputs any      `json:"outputs"`
	Inputs  []string `json:"inputs"`
}

// job is the file handed to a runner script.
type job struct {
	Kind    string      `json:"kind,omitempty"`
	Model   string      `json:"model"`
	Samples []jobSample `json:"samples"`
}

type jobSample struct {
	Inputs []string `json:"inputs"`
	Out    string   `json:"out"`
}

// run writes the samples' inputs with save (extension ext), runs the
// script and reads back each sample's output files.
func run(name, script string, cmdline func(scriptPath, jobPath string) *exec.Cmd, j job, samples []Sample,
	ext string, save func(*canon.Tensor, string) error, load func(string) (*canon.Tensor, error)) (*runnerOutput, [][]*canon.Tensor, error) {
	// A runtime's name may have spaces ("ONNX Runtime"); the folder's does not.
	dir, remove, err := interrupt.TempDir("modelbridge-" + strings.ToLower(strings.ReplaceAll(name, " ", "-")) + "-")
	if err != nil {
		return nil, nil, err
	}
	defer remove()
	scriptPath := filepath.Join(dir, "runner.py")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		return nil, nil, err
	}
	for s, in := range samples {
		js := jobSample{Out: filepath.Join(dir, fmt.Sprintf("out_%d", s))}
		for i, t := range in {
			p := filepath.Join(dir, fmt.Sprintf("in_%d_%d%s", s, i, ext))
			if err := save(t, p); err != nil {
				return nil, nil, fmt.Errorf("input %q: %w", t.Name, err)
			}
			js.Inputs = append(js.Inputs, p)
		}
		j.Samples = append(j.Samples, js)
	}
	jobPath := filepath.Join(dir, "job.json")
	b, _ := json.Marshal(j)
	if err := os.WriteFile(jobPath, b, 0o644); err != nil {
		return nil, nil, err
	}
	cmd := cmdline(scriptPath, jobPath)
	// The runtime's own scratch files (ONNX Runtime leaves some in the
	// temporary folder) go into ours, which is removed afterwards.
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "TMPDIR="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := interrupt.Run(cmd); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "..." + msg[len(msg)-2000:]
		}
		if msg == "" {
			msg = err.Error()
		}
		msg = lastPythonError(msg)
		return nil, nil, fmt.Errorf("%s failed on %s: %s", name, j.Model, msg)
	}
	var ro runnerOutput
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ro); err != nil {
		return nil, nil, fmt.Errorf("%s printed no result for %s: %q", name, j.Model, stdout.String())
	}
	var outs [][]*canon.Tensor
	for _, js := range j.Samples {
		var got []*canon.Tensor
		for i := 0; ; i++ {
			p := filepath.Join(js.Out, fmt.Sprintf("output_%d%s", i, ext))
			if _, err := os.Stat(p); err != nil {
				break
			}
			t, err := load(p)
			if err != nil {
				return nil, nil, fmt.Errorf("%s output %d: %w", name, i, err)
			}
			got = append(got, t)
		}
		outs = append(outs, got)
	}
	return &ro, outs, nil
}

// pythonError finds the line where a Python traceback names its exception.
var pythonError = regexp.MustCompile(`(?m)^[A-Za-z_.]*(Error|Exception):`)

// lastPythonError drops a Python traceback's frames, keeping the exception
// and what follows it (TorchScript puts the failing source line there).
func lastPythonError(msg string) string {
	if !strings.HasPrefix(msg, "Traceback") {
		return msg
	}
	locs := pythonError.FindAllStringIndex(msg, -1)
	if len(locs) == 0 {
		return msg
	}
	return strings.TrimSpace(msg[locs[len(locs)-1][0]:])
}
