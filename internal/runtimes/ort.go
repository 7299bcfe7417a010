package runtimes

import (
	"errors"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/ortinstall"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
)

// RunORT runs an ONNX file in ONNX Runtime (CPU, all graph optimizations)
// on each sample; inputs are in the session's input order (the graph's
// inputs that are not initializers).
func RunORT(model string, samples []Sample) (*Result, error) {
	return runORT(model, "all", samples)
}

// runORT runs the model with graph optimization level opt.
func runORT(model, opt string, samples []Sample) (*Result, error) {
	rt, err := findORT()
	if err != nil {
		return nil, err
	}
	in := make([][]*canon.Tensor, len(samples))
	for i, s := range samples {
		in[i] = s
	}
	outs, err := rt.RunSamples(model, in, ort.Options{Level: opt})
	if err != nil {
		return nil, err
	}
	res := &Result{Runtime: rt.Description(), Outputs: outs}
	if len(outs) > 0 {
		for _, t := range outs[0] {
			res.Names = append(res.Names, t.Name)
		}
	}
	return res, nil
}

// FindORT reports whether ONNX Runtime can run, and how to install it when not.
func FindORT() error {
	_, err := findORT()
	return err
}

// findORT locates ONNX Runtime's install, its absence a *MissingError.
func findORT() (*ort.Runtime, error) {
	rt, err := ort.Find("")
	var me *ortinstall.MissingError
	if errors.As(err, &me) {
		return nil, &MissingError{Runtime: "ONNX Runtime", Why: me.Why, Install: me.Install}
	}
	return rt, err
}
