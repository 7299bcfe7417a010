package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/pipeline"
)

// storedOutputs names the reference side of a one-model check.
func storedOutputs(dir string) string { return dir + " (stored outputs)" }

// runCheckStored runs one model on a test folder's inputs and compares
// its outputs with the folder's output_N.pb files, which are the
// reference (A), as ONNX's backend tests do.
func runCheckStored(rep *checkReport, rf *readFlags, inf *inputFlags, rt *runtimeFlags, layers bool) error {
	switch {
	case inf.dir == "":
		return usageErrorf("check with one model compares it with the outputs stored in a test folder: give --inputs DIR (input_N.pb and output_N.pb), or a second model")
	case inf.random || len(inf.files) > 0:
		return usageErrorf("check with one model reads its inputs and outputs from --inputs DIR; --random and --input need a second model")
	case layers:
		return usageErrorf("--layers compares two models' intermediate values; a test folder stores only outputs")
	case rep.RTol < 0 || rep.ATol < 0:
		return usageErrorf("--rtol and --atol must not be negative")
	}
	side := &checkSide{path: rep.B}
	var err error
	if side.runtime, err = rt.side(rt.b); err != nil {
		return err
	}
	if err := side.resolveRuntime(); err != nil {
		return err
	}
	g, err := inf.loadModel(rf, rep.B)
	if err != nil {
		return err
	}
	defer g.Close()
	if err := pipeline.RequireModel(rep.B, g, false); err != nil {
		return err
	}
	side.g = g
	tol := compare.Tolerance{RTol: rep.RTol, ATol: rep.ATol, NoRounding: rep.NoRounding}
	if g.Infer() == nil {
		tol.AccumLen = compare.AccumulationLength(g)
	}
	lowerPrecision(rep, &tol, "B", g)
	if !rep.NoRounding {
		rep.AccumLen = tol.AccumLen
	}
	if hasNonTensorIO(g) {
		return runCheckStoredValues(rep, side, inf, tol)
	}
	want := make([]*canon.Tensor, len(g.Outputs))
	for i, o := range g.Outputs {
		p := filepath.Join(inf.dir, tensorfile.OutputFileName(i))
		if _, err := os.Stat(p); err != nil {
			return usageErrorf("%s has no %s for output %q: a one-model check needs the folder's stored outputs", inf.dir, filepath.Base(p), o.Name)
		}
		if want[i], err = tensorfile.Load(p); err != nil {
			return err
		}
	}
	inputs, err := inf.gather(g, nil, 0)
	if err != nil {
		return err
	}
	outs, err := side.run([]map[string]*canon.Tensor{inputs})
	if err != nil {
		return err
	}
	rep.RuntimeA, rep.RuntimeB = "stored in "+inf.dir, side.desc
	rep.OK = true
	rep.Outputs = make([]outputReport, len(g.Outputs))
	for i, o := range g.Outputs {
		got := outs[0][o.Name]
		if got == nil {
			return fmt.Errorf("output %q was not produced", o.Name)
		}
		res, err := tol.Check(got, want[i])
		if err != nil {
			return notComparable("output %q and %s: %v", o.Name, tensorfile.OutputFileName(i), err)
		}
		rep.Outputs[i] = outputReport{NameA: tensorfile.OutputFileName(i), NameB: o.Name, Shape: want[i].Shape, Result: res}
		rep.OK = rep.OK && res.OK
	}
	return nil
}
