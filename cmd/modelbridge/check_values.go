package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/runtimes"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// Models that take or return sequences or optionals are checked value by
// value in the interpreter: a sequence by its length, then tensor by
// tensor with the usual tolerance; an optional by its presence, then by
// what it holds. Their inputs come from --inputs DIR or --input NAME=FILE
// (.pb files read as the declared kind, as ONNX test data stores them);
// --random makes their tensor inputs only.

// valueSides refuses what the value check cannot do: other runtimes run
// tensors only, and --layers matches tensors.
func valueSides(layers bool, sides ...*checkSide) error {
	for _, s := range sides {
		if s.runtime != runtimes.Interp {
			return usageErrorf("%s takes or returns sequences or optionals, which check runs in the interpreter only (--runtime interp); %s compares tensors", s.path, s.runtime)
		}
	}
	if layers {
		return usageErrorf("--layers compares tensors; a model that takes or returns sequences or optionals is checked output by output (drop --layers)")
	}
	return nil
}

// runCheckValues is the rest of runCheck for such models.
func runCheckValues(rep *checkReport, sa, sb *checkSide, inMap, outMap []int, inf *inputFlags, shapes map[string][]int64, tol compare.Tolerance, layers bool) error {
	if err := valueSides(layers, sa, sb); err != nil {
		return err
	}
	ga, gb := sa.g, sb.g
	for i, a := range ga.Inputs {
		if b := gb.Inputs[inMap[i]]; a.Kind != b.Kind {
			return notComparable("input %q of A is a %s, input %q of B a %s", a.Name, a.Kind, b.Name, b.Kind)
		}
	}
	for i, a := range ga.Outputs {
		if b := gb.Outputs[outMap[i]]; a.Kind != b.Kind {
			return notComparable("output %q of A is a %s, output %q of B a %s", a.Name, a.Kind, b.Name, b.Kind)
		}
	}
	pa, err := interp.New(ga)
	if err != nil {
		return fmt.Errorf("%s: %w", sa.path, err)
	}
	pb, err := interp.New(gb)
	if err != nil {
		return fmt.Errorf("%s: %w", sb.path, err)
	}
	sa.desc, sb.desc = "modelbridge interpreter", "modelbridge interpreter"
	rep.RuntimeA, rep.RuntimeB = sa.desc, sb.desc
	rep.OK = true
	rep.Outputs = make([]outputReport, len(ga.Outputs))
	drawnA, drawnB := canon.DrawnOutputs(ga), canon.DrawnOutputs(gb)
	for s := range rep.Samples {
		inA, err := inf.gatherValues(ga, shapes, inf.seed+uint64(s))
		if err != nil {
			return err
		}
		inB := map[string]canon.Value{}
		for i, a := range ga.Inputs {
			b := gb.Inputs[inMap[i]]
			inB[b.Name] = inA[a.Name]
			if t, ok := inA[a.Name].(*canon.Tensor); ok && b.DType != a.DType {
				if inB[b.Name], err = castFloats(t, b.DType); err != nil {
					return err
				}
			}
		}
		outA, err := pa.RunValues(inA)
		if err != nil {
			return fmt.Errorf("%s: %w", sa.path, err)
		}
		outB, err := pb.RunValues(inB)
		if err != nil {
			return fmt.Errorf("%s: %w", sb.path, err)
		}
		for i, a := range ga.Outputs {
			nameB := gb.Outputs[outMap[i]].Name
			res, err := compareOutputValue(tol, outB[nameB], outA[a.Name], drawnA[i] || drawnB[outMap[i]])
			if err != nil {
				return notComparable("output %q of A and %q of B: %v", a.Name, nameB, err)
			}
			mergeOutput(rep, i, s, a.Name, nameB, outA[a.Name], res)
		}
	}
	return nil
}

// runCheckStoredValues is runCheckStored for such a model: the folder's
// output_N.pb files are read as the outputs' declared kinds.
func runCheckStoredValues(rep *checkReport, side *checkSide, inf *inputFlags, tol compare.Tolerance) error {
	if err := valueSides(false, side); err != nil {
		return err
	}
	g := side.g
	want := make([]canon.Value, len(g.Outputs))
	for i, o := range g.Outputs {
		p := filepath.Join(inf.dir, tensorfile.OutputFileName(i))
		if _, err := os.Stat(p); err != nil {
			return usageErrorf("%s has no %s for output %q: a one-model check needs the folder's stored outputs", inf.dir, filepath.Base(p), o.Name)
		}
		v, err := onnxtensor.ReadValueFile(p, o)
		if err != nil {
			return fmt.Errorf("output %q: %w", o.Name, err)
		}
		want[i] = v
	}
	inputs, err := inf.gatherValues(g, nil, 0)
	if err != nil {
		return err
	}
	outs, err := interp.RunValues(g, inputs)
	if err != nil {
		return fmt.Errorf("%s: %w", side.path, err)
	}
	side.desc = "modelbridge interpreter"
	rep.RuntimeA, rep.RuntimeB = "stored in "+inf.dir, side.desc
	rep.OK = true
	rep.Outputs = make([]outputReport, len(g.Outputs))
	drawn := canon.DrawnOutputs(g)
	for i, o := range g.Outputs {
		res, err := compareOutputValue(tol, outs[o.Name], want[i], drawn[i])
		if err != nil {
			return notComparable("output %q and %s: %v", o.Name, tensorfile.OutputFileName(i), err)
		}
		mergeOutput(rep, i, 0, tensorfile.OutputFileName(i), o.Name, want[i], res)
	}
	return nil
}

// compareOutputValue compares one output, b against the reference a.
func compareOutputValue(tol compare.Tolerance, b, a canon.Value, drawn bool) (compare.Result, error) {
	if b == nil || a == nil {
		return compare.Result{}, fmt.Errorf("the output was not produced")
	}
	tb, okB := b.(*canon.Tensor)
	ta, okA := a.(*canon.Tensor)
	if drawn && okA && okB {
		return compare.Drawn(tb, ta)
	}
	return tol.CheckValue(b, a)
}

// mergeOutput folds sample s's result for output i into the report: the
// worst sample's details, every sample's mismatch count.
func mergeOutput(rep *checkReport, i, s int, nameA, nameB string, ref canon.Value, res compare.Result) {
	prev := rep.Outputs[i]
	if s == 0 || res.MaxAbs > prev.MaxAbs || (!res.OK && prev.OK) {
		merged := res
		merged.MaxRel = max(res.MaxRel, prev.MaxRel)
		merged.Mismatched += prev.Mismatched
		merged.OK = res.OK && (s == 0 || prev.OK)
		rep.Outputs[i] = outputReport{NameA: nameA, NameB: nameB, Result: merged}
		if t, ok := ref.(*canon.Tensor); ok {
			rep.Outputs[i].Shape = t.Shape
		} else if ref != nil {
			rep.Outputs[i].Kind = describeRunValue(ref)
		}
	} else {
		rep.Outputs[i].MaxRel = max(res.MaxRel, prev.MaxRel)
		rep.Outputs[i].Mismatched += res.Mismatched
		rep.Outputs[i].OK = prev.OK && res.OK
	}
	if !res.OK {
		rep.OK = false
	}
}

// printValueOutput prints the line of a sequence or optional output.
func printValueOutput(w io.Writer, name string, o outputReport, status string) {
	switch {
	case o.Structure != "":
		fmt.Fprintf(w, "%-28s %s  %s  DIFFERS\n", name, o.Kind, o.Structure)
	case o.Elements == 0:
		fmt.Fprintf(w, "%-28s %s  no elements to compare  %s\n", name, o.Kind, status)
	case o.Text != nil && o.OK:
		fmt.Fprintf(w, "%-28s %s  strings: every element equal byte for byte  %s\n", name, o.Kind, status)
	case o.Text != nil:
		fmt.Fprintf(w, "%-28s %s  strings: first difference in %s at %v (a=%q b=%q)  %s\n", name, o.Kind, o.Where, o.Worst, o.Text.WantFirst, o.Text.GotFirst, status)
	default:
		fmt.Fprintf(w, "%-28s %s  max abs %.3g  max rel %.3g  worst in %s at %v (a=%.7g b=%.7g)  %s\n",
			name, o.Kind, o.MaxAbs, o.MaxRel, o.Where, o.Worst, o.WorstWant, o.WorstGot, status)
	}
}
