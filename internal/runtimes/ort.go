package runtimes

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/modelbridge/modelbridge/internal/onnxtensor"
)

// RunORT runs an ONNX file in ONNX Runtime (CPU, all graph optimizations)
// on each sample; inputs are in the session's input order (the graph's
// inputs that are not initializers).
func RunORT(model string, samples []Sample) (*Result, error) {
	if err := FindORT(); err != nil {
		return nil, err
	}
	return runORT(model, "all", samples)
}

func runORT(model, opt string, samples []Sample) (*Result, error) {
	dir := ORTDir()
	cmdline := func(script, jobPath string) *exec.Cmd {
		c := exec.Command("node", script, jobPath)
		c.Env = append(os.Environ(), "ORT_DIR="+dir)
		return c
	}
	ro, outs, err := run("ONNX Runtime", ortRunner, cmdline, job{Model: model, Opt: opt}, samples, ".pb",
		onnxtensor.WriteFile, onnxtensor.ReadFile)
	if err != nil {
		return nil, err
	}
	res := &Result{Runtime: "ONNX Runtime " + ro.Version + " (node, CPU)", Outputs: outs}
	if names, ok := ro.Outputs.([]any); ok {
		for _, n := range names {
			res.Names = append(res.Names, fmt.Sprint(n))
		}
	}
	return res, nil
}
