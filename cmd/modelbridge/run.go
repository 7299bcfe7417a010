package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
	"github.com/modelbridge/modelbridge/pipeline"
)

// inputFlags choose the inputs of `run` and `check`.
type inputFlags struct {
	files  []string
	dir    string
	random bool
	seed   uint64
	// loaded keeps --input files read for their shapes, so that they are
	// read once.
	loaded map[string]*canon.Tensor
}

// load reads an --input file once.
func (f *inputFlags) load(file string) (*canon.Tensor, error) {
	if t, ok := f.loaded[file]; ok {
		return t, nil
	}
	t, err := tensorfile.Load(file)
	if err != nil {
		return nil, err
	}
	if f.loaded == nil {
		f.loaded = map[string]*canon.Tensor{}
	}
	f.loaded[file] = t
	return t, nil
}

// registerFiles adds --input and --inputs for commands that read input
// files only for their shapes (convert).
func (f *inputFlags) registerFiles(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.files, "input", nil, "input tensor NAME=FILE whose shape fixes the input's sizes, like --input-shape (.pb or .npy; repeatable)")
	cmd.Flags().StringVar(&f.dir, "inputs", "", "folder of inputs (input_0.pb, ...) whose shapes fix the inputs' sizes, like --input-shape")
}

func (f *inputFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.files, "input", nil, "input tensor NAME=FILE (.pb TensorProto or .npy; repeatable)")
	cmd.Flags().StringVar(&f.dir, "inputs", "", "folder of inputs: input_0.pb, input_1.pb... in input order, or NAME.pb/NAME.npy")
	cmd.Flags().BoolVar(&f.random, "random", false, "use random inputs shaped like the model's inputs (every float dtype uniform in [-1,1), bools random, integers 0 or 1)")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "seed for --random")
}

// gather builds the input tensors for g.
func (f *inputFlags) gather(g *canon.Graph, shapes map[string][]int64, seed uint64) (map[string]*canon.Tensor, error) {
	modes := 0
	for _, on := range []bool{len(f.files) > 0, f.dir != "", f.random} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return nil, usageErrorf("choose one of --input, --inputs and --random")
	}
	switch {
	case f.random:
		if err := unrecordedSizes(g.Inputs, shapes); err != nil {
			return nil, err
		}
		in, err := tensorfile.RandomWithin(g.Inputs, shapes, seed, interp.MemoryLimit())
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		return in, nil
	case f.dir != "":
		in, err := tensorfile.LoadDir(f.dir, g.Inputs)
		if err != nil {
			return nil, err
		}
		return in, otherBatch(g, in)
	case len(f.files) > 0:
		out := map[string]*canon.Tensor{}
		known := map[string]bool{}
		for _, in := range g.Inputs {
			known[in.Name] = true
		}
		for _, spec := range f.files {
			name, file, ok := strings.Cut(spec, "=")
			if !ok {
				// A lone file is fine for a single-input model.
				if len(g.Inputs) != 1 {
					return nil, usageErrorf("--input %q: want NAME=FILE (the model has %d inputs)", spec, len(g.Inputs))
				}
				name, file = g.Inputs[0].Name, spec
			}
			if !known[name] {
				return nil, usageErrorf("--input %q: the model has no input %q (inputs: %s)", spec, name, inputNames(g))
			}
			t, err := f.load(file)
			if err != nil {
				return nil, fmt.Errorf("input %q: %w", name, err)
			}
			t.Name = name
			out[name] = t
		}
		for _, in := range g.Inputs {
			if out[in.Name] == nil {
				return nil, usageErrorf("no value for input %q (%s %s); pass --input %s=FILE", in.Name, in.DType, shapeString(describeValue(in).Shape), in.Name)
			}
		}
		return out, otherBatch(g, out)
	}
	if len(g.Inputs) == 0 {
		return map[string]*canon.Tensor{}, nil // a model of constants needs none
	}
	return nil, usageErrorf("no inputs given: use --input NAME=FILE, --inputs DIR or --random")
}

func inputNames(g *canon.Graph) string {
	var names []string
	for _, in := range g.Inputs {
		names = append(names, in.Name)
	}
	return strings.Join(names, ", ")
}

func newRunCmd() *cobra.Command {
	var rf readFlags
	var inf inputFlags
	var outDir string
	cmd := &cobra.Command{
		Use:   "run MODEL --out DIR",
		Short: "Run a model with the reference interpreter and save its outputs",
		Long: `run executes MODEL on the CPU with modelbridge's reference interpreter and
writes each output to DIR/output_N.pb (ONNX TensorProto, in output order).`,
		Example: `  modelbridge run testdata/tiny_convnet.onnx --random --seed 7 --out /tmp/out
  modelbridge run model.onnx --input data=image.npy --out /tmp/out
  modelbridge run model.onnx --inputs test_data_set_0 --out /tmp/out`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if outDir == "" {
				return usageErrorf("--out DIR is required")
			}
			if err := atomicfile.ParentExists(outDir); err != nil {
				return usageErrorf("--out: %v", err)
			}
			stage := newStageBar(cmd, "running "+args[0])
			defer stage.Finish()
			g, err := inf.loadModel(&rf, args[0])
			if err != nil {
				return err
			}
			defer g.Close()
			if err := pipeline.RequireModel(args[0], g, false); err != nil {
				return err
			}
			noteInferredTypes(cmd.ErrOrStderr(), args[0], g)
			if err := inf.refuseOverwrite(outDir, pipeline.InputParts(args[0], g), len(g.Outputs)); err != nil {
				return err
			}
			shapes, _ := tensorfile.ParseShapes(rf.inputShapes)
			if hasNonTensorIO(g) {
				defer stage.Finish()
				return runValues(cmd.OutOrStdout(), g, &inf, shapes, args[0], outDir)
			}
			inputs, err := inf.gather(g, shapes, inf.seed)
			if err != nil {
				return err
			}
			outs, err := interp.Run(g, inputs)
			stage.Finish()
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			if err := os.Mkdir(outDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			for i, o := range g.Outputs {
				t := outs[o.Name]
				if t == nil {
					return fmt.Errorf("%s: output %q was not produced", args[0], o.Name)
				}
				t.Name = o.Name
				p := filepath.Join(outDir, tensorfile.OutputFileName(i))
				if err := tensorfile.Save(t, p); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s %s%v -> %s\n", o.Name, summarize(t), t.DType, t.Shape, p)
			}
			return nil
		},
	}
	rf.register(cmd)
	inf.register(cmd)
	cmd.Flags().StringVar(&outDir, "out", "", "folder for the outputs (created if needed, in an existing folder)")
	return cmd
}

// summarize gives min/max/mean of a tensor for a quick look.
func summarize(t *canon.Tensor) string {
	v, err := t.Float64s()
	if err != nil || len(v) == 0 {
		return ""
	}
	lo, hi, sum := v[0], v[0], 0.0
	for _, x := range v {
		lo, hi, sum = min(lo, x), max(hi, x), sum+x
	}
	return fmt.Sprintf("min %.6g max %.6g mean %.6g", lo, hi, sum/float64(len(v)))
}

// loadModel reads a model for run/check. Formats that do not record input
// shapes (MXNet symbols, TorchScript) take them from the --input files when
// the model cannot be read, or has inputs of unknown shape, without them; a
// model that declares its shapes keeps them, so a wrong input file is
// reported as such.
func (f *inputFlags) loadModel(rf *readFlags, path string) (*canon.Graph, error) {
	g, _, err := rf.load(path)
	if len(f.files) == 0 && f.dir == "" {
		return g, err
	}
	if err == nil && hasNonTensorIO(g) {
		return g, nil // its .pb files are sequences and optionals, read as declared
	}
	if err == nil {
		static := true
		for _, in := range g.Inputs {
			if _, ok := in.StaticShape(); !ok {
				static = false
			}
		}
		if static && f.filesMatchDTypes(g) {
			return g, nil
		}
	}
	withShapes := *rf
	if serr := f.shapesFromFiles(&withShapes); serr != nil {
		if g != nil {
			g.Close()
		}
		return nil, serr
	}
	g2, _, err2 := withShapes.load(path)
	if err2 != nil {
		if err == nil {
			return g, nil // keep the model as declared; gather reports the input
		}
		return nil, err2 // read with the files' shapes, it fails further on
	}
	if g != nil {
		g.Close()
	}
	*rf = withShapes
	return g2, nil
}

// shapesFromFiles adds the shapes of the input files (--input NAME=FILE,
// a lone --input FILE for input #0, --inputs DIR's input_N files for input
// #N) to the read options, for formats whose files do not record input
// shapes (MXNet symbols, TorchScript); an explicit --input-shape wins.
func (f *inputFlags) shapesFromFiles(rf *readFlags) error {
	given := map[string]bool{}
	for _, s := range rf.inputShapes {
		name, _, _ := strings.Cut(s, "=")
		given[name] = true
	}
	typed := map[string]bool{}
	for _, s := range rf.inputTypes {
		name, _, _ := strings.Cut(s, "=")
		typed[name] = true
	}
	for _, spec := range f.fileSpecs() {
		name, file, ok := strings.Cut(spec, "=")
		if !ok {
			name, file = "#0", spec // a lone file is the single input's
		}
		if given[name] && typed[name] {
			continue
		}
		t, err := f.load(file)
		if err != nil {
			return fmt.Errorf("input %q: %w", name, err)
		}
		if !given[name] {
			dims := make([]string, len(t.Shape))
			for i, d := range t.Shape {
				dims[i] = fmt.Sprint(d)
			}
			rf.inputShapes = append(rf.inputShapes, name+"="+strings.Join(dims, ","))
		}
		if !typed[name] {
			// The file's element type too, for formats that do not record
			// input types (TorchScript); one that does refuses a different
			// type by name.
			rf.inputTypes = append(rf.inputTypes, name+"="+t.DType.String())
		}
	}
	return nil
}

// fileSpecs lists the input files as NAME=FILE (#N=FILE for --inputs DIR's
// input_N files; a lone FILE is input #0's).
func (f *inputFlags) fileSpecs() []string {
	specs := append([]string{}, f.files...)
	if f.dir != "" {
		for i := 0; ; i++ {
			file := ""
			for _, ext := range []string{".pb", ".npy"} {
				if p := filepath.Join(f.dir, fmt.Sprintf("input_%d%s", i, ext)); fileExists(p) {
					file = p
					break
				}
			}
			if file == "" {
				break
			}
			specs = append(specs, fmt.Sprintf("#%d=%s", i, file))
		}
	}
	return specs
}

// filesMatchDTypes reports whether every input file has the element type
// of the graph input it feeds (an unreadable file or unknown input counts
// as matching: gather reports it).
func (f *inputFlags) filesMatchDTypes(g *canon.Graph) bool {
	for _, spec := range f.fileSpecs() {
		name, file, ok := strings.Cut(spec, "=")
		if !ok {
			name, file = "#0", spec
		}
		t, err := f.load(file)
		if err != nil {
			continue
		}
		for i, in := range g.Inputs {
			if (in.Name == name || fmt.Sprintf("#%d", i) == name) && in.DType != t.DType {
				return false
			}
		}
	}
	return true
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// refuseOverwrite fails when writing n outputs to outDir would replace the
// model, one of its parts or an input file, or would write into the
// --inputs folder (whose reference outputs share the output names).
func (f *inputFlags) refuseOverwrite(outDir string, modelParts []string, n int) error {
	if f.dir != "" && pipeline.SameOrInside(outDir, f.dir) && pipeline.SameOrInside(f.dir, outDir) {
		return usageErrorf("--out %s is the --inputs folder: its output_N.pb files would be replaced; choose another folder", outDir)
	}
	inputs := modelParts
	for _, spec := range f.files {
		if _, file, ok := strings.Cut(spec, "="); ok {
			inputs = append(inputs, file)
		}
	}
	outputs := make([]string, n)
	for i := range outputs {
		outputs[i] = filepath.Join(outDir, tensorfile.OutputFileName(i))
	}
	return pipeline.RefuseOverwriting(outputs, inputs, "the model or its inputs")
}

// unrecordedSizes refuses random inputs for an input whose sizes the file
// does not record (a TorchScript archive records none): size 1 there is a
// guess that fails deep inside the model (a convolution wants 3 channels,
// not 1). Symbolic sizes the file names (a batch) still take 1.
func unrecordedSizes(inputs []canon.ValueInfo, shapes map[string][]int64) error {
	for _, in := range inputs {
		if _, given := shapes[in.Name]; given || !in.RankKnown {
			continue
		}
		var free []string
		example := make([]string, len(in.Shape))
		for a, d := range in.Shape {
			example[a] = strconv.FormatInt(d.Size, 10)
			if !d.Known() {
				example[a] = "1"
				if d.Param == formats.FreeDimName(in.Name, a) {
					free = append(free, d.Param)
					example[a] = "D" + strconv.Itoa(a)
				}
			}
		}
		if len(free) > 0 {
			return usageErrorf("--random: the file does not record the sizes of input %q (%s); give them with --input-shape %s=%s", in.Name, strings.Join(free, ", "), in.Name, strings.Join(example, ","))
		}
	}
	return nil
}

// otherBatch refuses, with the flags that fix it, an input whose sizes
// differ from the ones the file fixes on axis 0 only: another batch size.
func otherBatch(g *canon.Graph, inputs map[string]*canon.Tensor) error {
	for _, in := range g.Inputs {
		t := inputs[in.Name]
		if t == nil || !in.RankKnown || len(t.Shape) != len(in.Shape) || len(t.Shape) == 0 {
			continue
		}
		d := in.Shape[0]
		if !d.Known() || d.Size == t.Shape[0] {
			continue
		}
		same := true
		for a := 1; a < len(t.Shape); a++ {
			same = same && (!in.Shape[a].Known() || in.Shape[a].Size == t.Shape[a])
		}
		if same {
			given := make([]string, len(t.Shape))
			for a, s := range t.Shape {
				given[a] = strconv.FormatInt(s, 10)
			}
			return usageErrorf("input %q has batch size %d, but the file fixes it at %d: add --input-shape %s=%s (or --dynamic-batch) to run the model at that size", in.Name, t.Shape[0], d.Size, in.Name, strings.Join(given, ","))
		}
	}
	return nil
}
