package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// hasNonTensorIO reports a graph with a sequence or optional input or
// output: `run` feeds and saves those as ONNX test data does
// (SequenceProto and OptionalProto .pb files).
func hasNonTensorIO(g *canon.Graph) bool {
	for _, v := range append(append([]canon.ValueInfo{}, g.Inputs...), g.Outputs...) {
		if !v.IsTensor() {
			return true
		}
	}
	return false
}

// gatherValues builds the inputs of a graph that takes sequences or
// optionals: from --inputs DIR (input_N.pb) or --input NAME=FILE, each .pb
// read as the input's declared kind; --random makes its tensor inputs only.
func (f *inputFlags) gatherValues(g *canon.Graph, shapes map[string][]int64, seed uint64) (map[string]canon.Value, error) {
	out := map[string]canon.Value{}
	load := func(in canon.ValueInfo, file string) error {
		var v canon.Value
		var err error
		if in.IsTensor() && !strings.EqualFold(filepath.Ext(file), ".pb") {
			v, err = tensorfile.Load(file)
		} else {
			v, err = onnxtensor.ReadValueFile(file, in)
		}
		if err != nil {
			return fmt.Errorf("input %q: %w", in.Name, err)
		}
		out[in.Name] = v
		return nil
	}
	switch {
	case f.random:
		var tensors []canon.ValueInfo
		for _, in := range g.Inputs {
			if !in.IsTensor() {
				return nil, usageErrorf("input %q is a %s: --random makes tensors only; give it with --inputs DIR (input_N.pb as ONNX SequenceProto/OptionalProto) or --input %s=FILE.pb", in.Name, in.Kind, in.Name)
			}
			tensors = append(tensors, in)
		}
		in, err := tensorfile.RandomWithin(tensors, shapes, seed, interp.MemoryLimit())
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		for name, t := range in {
			out[name] = t
		}
	case f.dir != "":
		for i, in := range g.Inputs {
			file := ""
			for _, cand := range []string{fmt.Sprintf("input_%d.pb", i), fmt.Sprintf("input_%d.npy", i), in.Name + ".pb", in.Name + ".npy"} {
				if p := filepath.Join(f.dir, cand); fileExists(p) {
					file = p
					break
				}
			}
			if file == "" {
				return nil, fmt.Errorf("%s: no file for input %q (looked for input_%d.pb and %s.pb)", f.dir, in.Name, i, in.Name)
			}
			if err := load(in, file); err != nil {
				return nil, err
			}
		}
	case len(f.files) > 0:
		byName := map[string]canon.ValueInfo{}
		for _, in := range g.Inputs {
			byName[in.Name] = in
		}
		for _, spec := range f.files {
			name, file, ok := strings.Cut(spec, "=")
			if !ok {
				if len(g.Inputs) != 1 {
					return nil, usageErrorf("--input %q: want NAME=FILE (the model has %d inputs)", spec, len(g.Inputs))
				}
				name, file = g.Inputs[0].Name, spec
			}
			in, known := byName[name]
			if !known {
				return nil, usageErrorf("--input %q: the model has no input %q (inputs: %s)", spec, name, inputNames(g))
			}
			if err := load(in, file); err != nil {
				return nil, err
			}
		}
	default:
		if len(g.Inputs) > 0 {
			return nil, usageErrorf("no inputs given: use --input NAME=FILE, --inputs DIR or --random")
		}
	}
	for _, in := range g.Inputs {
		if out[in.Name] == nil {
			return nil, usageErrorf("no value for input %q (a %s of %s); pass --input %s=FILE", in.Name, in.Kind, in.DType, in.Name)
		}
	}
	return out, nil
}

// runValues is `run` for a graph that takes or makes sequences or
// optionals: each output is saved as the .pb message of its kind.
func runValues(w io.Writer, g *canon.Graph, inf *inputFlags, shapes map[string][]int64, model, outDir string) error {
	inputs, err := inf.gatherValues(g, shapes, inf.seed)
	if err != nil {
		return err
	}
	outs, err := interp.RunValues(g, inputs)
	if err != nil {
		return fmt.Errorf("%s: %w", model, err)
	}
	if err := os.Mkdir(outDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	for i, o := range g.Outputs {
		v := outs[o.Name]
		if v == nil {
			return fmt.Errorf("%s: output %q was not produced", model, o.Name)
		}
		p := filepath.Join(outDir, tensorfile.OutputFileName(i))
		if err := onnxtensor.WriteValueFile(v, o.Name, p); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %s -> %s\n", o.Name, describeRunValue(v), p)
	}
	return nil
}

// describeRunValue summarizes a computed value for `run`'s report.
func describeRunValue(v canon.Value) string {
	switch x := v.(type) {
	case *canon.Tensor:
		return fmt.Sprintf("%s %s%v", summarize(x), x.DType, x.Shape)
	case *canon.Sequence:
		shapes := make([]string, len(x.Tensors))
		for i, t := range x.Tensors {
			shapes[i] = fmt.Sprint(t.Shape)
		}
		return fmt.Sprintf("sequence of %d %s tensors %s", len(x.Tensors), x.DType, strings.Join(shapes, " "))
	case *canon.OptionalValue:
		if x.Value == nil {
			return "empty " + x.Kind.String()
		}
		return x.Kind.String() + " holding " + describeRunValue(x.Value)
	}
	return fmt.Sprintf("%T", v)
}
