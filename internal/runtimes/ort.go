package runtimes

import (
	"fmt"
	"os/exec"

	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/ortinstall"
)

// RunORT runs an ONNX file in ONNX Runtime (CPU, all graph optimizations)
// on each sample; inputs are in the session's input order (the graph's
// inputs that are not initializers).
func RunORT(model string, samples []Sample) (*Result, error) {
	in, err := findORT()
	if err != nil {
		return nil, err
	}
	return runORT(in, model, "all", samples)
}

// runORT runs the model with graph optimization level opt.
func runORT(in *ortinstall.Install, model, opt string, samples []Sample) (*Result, error) {
	cmdline := func(script, jobPath string) *exec.Cmd { return in.Command(script, jobPath) }
	ro, outs, err := run("ONNX Runtime", ortRunner, cmdline, job{Model: model, Opt: opt}, samples, ".pb",
		onnxtensor.WriteFile, onnxtensor.ReadFile)
	if err != nil {
		return nil, err
	}
	res := &Result{Runtime: "ONNX Runtime " + in.Version + " (node, CPU)", Outputs: outs}
	if names, ok := ro.Outputs.([]any); ok {
		for _, n := range names {
			res.Names = append(res.Names, fmt.Sprint(n))
		}
	}
	return res, nil
}
