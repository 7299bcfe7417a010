package runtimes

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/npy"
)

// TorchKind says how PyTorch loads a model file: "script" (TorchScript,
// torch.jit.load), "pt2" (torch.export.load) or "folder" (a `--to torch`
// folder: model.py and weights.pt). It is "" for a file PyTorch cannot run
// as a model.
func TorchKind(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if IsTorchFolder(path) {
			return "folder"
		}
		return ""
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pt2":
		return "pt2"
	case ".pt", ".pth", ".ts", ".torchscript", ".zip":
		return "script"
	}
	return ""
}

// IsTorchFolder reports whether dir holds model.py and weights.pt, as
// `convert --to torch` writes them.
func IsTorchFolder(dir string) bool {
	for _, f := range []string{"model.py", "weights.pt"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// RunTorch runs a TorchScript file, a .pt2 program or a `--to torch` folder
// in PyTorch on each sample; inputs are in forward's argument order, and
// the outputs are the returned tensors in order (tuples, lists and dicts
// flattened).
func RunTorch(model string, samples []Sample) (*Result, error) {
	kind := TorchKind(model)
	if kind == "" {
		return nil, fmt.Errorf("%s: PyTorch runs TorchScript files (.pt), torch.export programs (.pt2) and folders written by `convert --to torch`", model)
	}
	if err := FindTorch(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(model)
	if err != nil {
		return nil, err
	}
	ro, outs, err := run("PyTorch", torchRunner, pythonCmd, job{Kind: kind, Model: abs}, samples, ".npy", saveNPY, npy.ReadFile)
	if err != nil {
		return nil, err
	}
	return &Result{Runtime: "PyTorch " + ro.Version + " (" + Python() + ")", Outputs: outs}, nil
}

// pythonCmd runs a runner script under the Python that has the framework.
func pythonCmd(script, jobPath string) *exec.Cmd {
	return exec.Command(Python(), script, jobPath)
}

// saveNPY writes a sample tensor for a Python runner.
func saveNPY(t *canon.Tensor, p string) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if err := npy.Write(f, t); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
