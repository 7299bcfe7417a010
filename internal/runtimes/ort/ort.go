// Package ort runs ONNX models in ONNX Runtime (CPU) through its Node.js
// binding. It is the one way modelbridge runs ONNX Runtime: `check
// --runtime ort`, the optimizer's "ort" target (optimize/ortmeasure) and
// every test that compares with ONNX Runtime use it, so all of them run the
// same script (runner.js, embedded) with the same decoding of tensors.
//
// Find locates the install (package ortinstall: $MODELBRIDGE_ORT_DIR, else
// /tmp/ort, as made by ../shared/tools/ort/install.sh). Then:
//
//	rt.Run(model, inputs, ort.Options{})           // one sample, tensors in and out
//	rt.RunSamples(model, samples, ort.Options{})   // several samples, one session
//	rt.RunDir(model, inDir, outDir, ort.Options{}) // input_N.pb files in, output_N.pb files out
//	rt.RunBatch(cases, workers)                    // many models in few processes
//	rt.Time(models, ort.TimeOptions{})             // paired latency samples
//
// Tests get a Runtime, or a skip saying what is missing, from testfix.ORT.
package ort

import (
	_ "embed"
	"errors"
	"fmt"

	"github.com/modelbridge/modelbridge/internal/ortinstall"
)

//go:embed runner.js
var runnerJS string

// Runtime is a usable ONNX Runtime install.
type Runtime struct {
	install *ortinstall.Install
}

// Find locates ONNX Runtime in dir (when empty, $MODELBRIDGE_ORT_DIR or
// ortinstall.DefaultDir) and node on PATH. When either is missing the
// error is an *ortinstall.MissingError that says how to install it.
func Find(dir string) (*Runtime, error) {
	in, err := ortinstall.Find(dir)
	if err != nil {
		return nil, err
	}
	return &Runtime{install: in}, nil
}

// IsMissing reports whether err says ONNX Runtime is not installed.
func IsMissing(err error) bool {
	var me *ortinstall.MissingError
	return errors.As(err, &me)
}

// Version is onnxruntime-node's version ("1.30.0").
func (r *Runtime) Version() string { return r.install.Version }

// Dir is the install's folder.
func (r *Runtime) Dir() string { return r.install.Dir }

// Description names the runtime for reports: "ONNX Runtime 1.30.0 (node, CPU)".
func (r *Runtime) Description() string {
	return fmt.Sprintf("ONNX Runtime %s (node, CPU)", r.install.Version)
}

// Options are a session's settings.
type Options struct {
	// Level is the graph optimization level: "all" (the default when
	// empty), "extended", "basic" or "disabled".
	Level string
	// Threads is the number of intra-op threads; 0 leaves ONNX Runtime's
	// default (one per core).
	Threads int
}
