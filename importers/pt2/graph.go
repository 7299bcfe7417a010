package pt2

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
)

// importer turns one program's graph into canonical form.
type importer struct {
	path    string
	ep      *exportedProgram
	gr      *graph
	weights map[string]*canon.Tensor
	prog    *torchscript.Program
	// tensors and syms are the graph's values by name as the nodes define
	// them; lazy holds the weights graph inputs name, added on first use;
	// consts holds constant inputs (ints, floats, strings).
	tensors map[string]*torchscript.Tensor
	syms    map[string]any
	lazy    map[string]*canon.Tensor
	consts  map[string]any
	notes   []string
	props   []canon.KeyValue
	// generalized is set when --input-shape or --dynamic-batch made a
	// size symbolic that the program fixed.
	// The value is the size the program was exported with.
	generalized map[string]int64
	// skippedAsserts counts run-time assertion nodes not imported.
	skippedAsserts int
	// readers holds the tensor names some node or output reads (built on
	// first use by readByAnyone).
	readers map[string]bool
	// target is the operator of the node whose results are being bound.
	target string
	// symBools holds the comparisons of sizes by the name of their
	// symbolic bool result, evaluated when a predicate reads one
	// (symbolic_bools.go); depth is how deep in subgraphs this graph is.
	symBools map[string]*symBoolDef
	depth    int
}

func (im *importer) errf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", im.path, fmt.Sprintf(format, args...))
}

func (im *importer) run(opts formats.ReadOptions) (*canon.Graph, error) {
	if err := im.bindInputs(opts); err != nil {
		return nil, err
	}
	for i := range im.gr.Nodes {
		if err := im.runNode(&im.gr.Nodes[i], i); err != nil {
			return nil, err
		}
	}
	outs, err := im.userOutputs()
	if err != nil {
		return nil, err
	}
	if im.skippedAsserts > 0 {
		im.notes = append(im.notes, fmt.Sprintf("skipped %d run-time assertion nodes (checks of sizes or dtypes the exporter assumed; they compute nothing)", im.skippedAsserts))
	}
	g, err := im.prog.Finish(graphName(im.path), outs)
	if err != nil {
		return nil, im.errf("%v", err)
	}
	if im.generalized != nil {
		if err := refuseBakedSizes(g, im.generalized); err != nil {
			g.Close()
			return nil, im.errf("%v", err)
		}
	}
	g.Meta = canon.Metadata{Producer: "pytorch", ProducerVersion: im.ep.TorchVersion, SourceFormat: FormatName, Notes: im.notes}
	g.Meta.Props = append(g.Meta.Props, im.props...)
	return g, nil
}

// bindInputs pairs the graph's inputs with the signature's input specs:
// user inputs become graph inputs, parameters, buffers and tensor
// constants become weights (added when first used), constant inputs become
// values.
func (im *importer) bindInputs(opts formats.ReadOptions) error {
	sig := im.ep.GraphModule.Signature
	if len(sig.InputSpecs) != len(im.gr.Inputs) {
		return im.errf("the signature lists %d inputs but the graph has %d", len(sig.InputSpecs), len(im.gr.Inputs))
	}
	var userNames []string
	for i, spec := range sig.InputSpecs {
		arg := im.gr.Inputs[i]
		switch {
		case spec.UserInput != nil:
			if arg.AsTensor == nil {
				return im.errf("user input %d is not a tensor (%s); only tensor inputs are supported", i, describeArg(&spec.UserInput.Arg))
			}
			name := arg.AsTensor.Name
			meta, ok := im.gr.TensorValues[name]
			if !ok {
				return im.errf("input %s has no entry in tensor_values", name)
			}
			dt, err := dtypeOf(meta.DType)
			if err != nil {
				return im.errf("input %s: %v", name, err)
			}
			dims, err := im.dims(meta.Sizes)
			if err != nil {
				return im.errf("input %s: %v", name, err)
			}
			if shape, ok := opts.ShapeFor(name, len(userNames)); ok {
				example := dims
				var generalized []int
				if dims, generalized, err = overrideShape(dims, shape, dimNamesFor(opts, name, len(userNames))); err != nil {
					return im.errf("--input-shape %s: %v", name, err)
				}
				if len(generalized) > 0 {
					im.prog.SetGeneralized()
					if im.generalized == nil {
						im.generalized = map[string]int64{}
					}
					for _, a := range generalized {
						im.generalized[dims[a].Param] = example[a].Size
					}
					im.notes = append(im.notes, fmt.Sprintf("input %s: the program was exported with fixed sizes; axes %v are made symbolic, and every size computed from them is inferred anew (a size the program baked in as a constant is refused by name)", name, generalized))
				}
			}
			if err := im.define(name, im.prog.Input(name, dt, dims)); err != nil {
				return im.errf("%v", err)
			}
			userNames = append(userNames, name)
			im.props = append(im.props, canon.KeyValue{Key: "signature.input." + name, Value: "user input"})
		case spec.Parameter != nil:
			if err := im.bindWeight(arg, spec.Parameter.Arg.Name, spec.Parameter.ParameterName, "parameter"); err != nil {
				return err
			}
		case spec.Buffer != nil:
			if err := im.bindWeight(arg, spec.Buffer.Arg.Name, spec.Buffer.BufferName, "buffer"); err != nil {
				return err
			}
		case spec.TensorConstant != nil:
			if err := im.bindWeight(arg, spec.TensorConstant.Arg.Name, spec.TensorConstant.TensorConstantName, "constant"); err != nil {
				return err
			}
		case spec.ConstantInput != nil:
			v, err := constantOf(spec.ConstantInput.Value)
			if err != nil {
				return im.errf("constant input %s: %v", spec.ConstantInput.Name, err)
			}
			im.consts[spec.ConstantInput.Name] = v
			im.props = append(im.props, canon.KeyValue{Key: "signature.input." + spec.ConstantInput.Name, Value: fmt.Sprintf("constant %v", v)})
		case rawSet(spec.CustomObj):
			return im.errf("input %d is a custom object (a TorchBind class); its methods are code this importer does not run", i)
		case rawSet(spec.Token):
			return im.errf("input %d is an effect token: the program has side effects (a stateful op); only pure programs can be imported", i)
		default:
			return im.errf("input spec %d is of a kind this importer does not know", i)
		}
	}
	if unknown := opts.UnknownShapeKeys(userNames); len(unknown) > 0 {
		return im.errf("--input-shape names %s, but the program's inputs are: %s", unknown[0], strings.Join(userNames, ", "))
	}
	im.rangeProps()
	return nil
}

// bindWeight records a parameter, buffer or constant graph input, checking
// that the weights hold it with the shape the program records.
func (im *importer) bindWeight(arg argument, argName, weightName, kind string) error {
	if arg.AsTensor == nil || arg.AsTensor.Name != argName {
		return im.errf("%s %s: the graph input does not match the signature (%s)", kind, weightName, describeArg(&arg))
	}
	t, ok := im.weights[weightName]
	if !ok {
		return im.errf("%s %s (graph input %s) is missing from %s and %s", kind, weightName, argName, stateDictEntry, constantsEntry)
	}
	if meta, ok := im.gr.TensorValues[argName]; ok {
		dims, err := im.dims(meta.Sizes)
		if err != nil {
			return im.errf("%s %s: %v", kind, weightName, err)
		}
		want := make([]int64, len(dims))
		for i, d := range dims {
			want[i] = d.Size
		}
		if !equalShape(want, t.Shape) {
			return im.errf("%s %s has shape %v in the weights but %v in the program", kind, weightName, t.Shape, want)
		}
	}
	if _, dup := im.lazy[argName]; dup {
		return im.errf("graph input %s is bound twice", argName)
	}
	im.lazy[argName] = t
	im.props = append(im.props, canon.KeyValue{Key: "signature.input." + argName, Value: kind + " " + weightName})
	return nil
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// rangeProps records each symbol's range for inspect.
func (im *importer) rangeProps() {
	names := make([]string, 0, len(im.ep.RangeConstraints))
	for n := range im.ep.RangeConstraints {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		rc := im.ep.RangeConstraints[n]
		im.props = append(im.props, canon.KeyValue{Key: "range." + n, Value: bound(rc.MinVal, "-inf") + ".." + bound(rc.MaxVal, "inf")})
	}
}

// bound prints a range bound; torch writes an unbounded side as null or a
// huge integer.
func bound(n interface{ String() string }, inf string) string {
	s := n.String()
	if s == "" {
		return inf
	}
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil || math.Abs(v) >= 1<<62 {
		return inf
	}
	return s
}

// define binds a tensor name, refusing a name defined twice.
func (im *importer) define(name string, t *torchscript.Tensor) error {
	if _, dup := im.tensors[name]; dup {
		return fmt.Errorf("value %s is defined twice", name)
	}
	if _, dup := im.lazy[name]; dup {
		return fmt.Errorf("value %s is defined twice", name)
	}
	im.tensors[name] = t
	return nil
}

// tensor resolves a tensor argument by name, adding a weight on first use.
func (im *importer) tensor(name string) (*torchscript.Tensor, error) {
	if t, ok := im.tensors[name]; ok {
		return t, nil
	}
	if w, ok := im.lazy[name]; ok {
		t := im.prog.Weight(w)
		im.tensors[name] = t
		return t, nil
	}
	return nil, fmt.Errorf("tensor %s is used before it is defined", name)
}

// userOutputs collects the signature's user outputs. Buffer mutations
// (running statistics updated in training mode) do not affect them and are
// dropped with a note; other outputs (losses, gradients, input mutations)
// mean the program is not an inference graph.
func (im *importer) userOutputs() ([]*torchscript.Tensor, error) {
	sig := im.ep.GraphModule.Signature
	if len(sig.OutputSpecs) != len(im.gr.Outputs) {
		return nil, im.errf("the signature lists %d outputs but the graph has %d", len(sig.OutputSpecs), len(im.gr.Outputs))
	}
	var outs []*torchscript.Tensor
	var names []string
	for i, spec := range sig.OutputSpecs {
		switch {
		case spec.UserOutput != nil:
			arg := im.gr.Outputs[i]
			if arg.AsTensor == nil {
				return nil, im.errf("output %d is %s; only tensor outputs are supported", i, describeArg(&arg))
			}
			t, err := im.tensor(arg.AsTensor.Name)
			if err != nil {
				return nil, im.errf("output %d: %v", i, err)
			}
			outs = append(outs, t)
			names = append(names, arg.AsTensor.Name)
		case spec.BufferMutation != nil:
			im.notes = append(im.notes, fmt.Sprintf("the program updates buffer %s (exported in training mode?); the update was dropped, the outputs do not depend on it", spec.BufferMutation.BufferName))
		case rawSet(spec.LossOutput), rawSet(spec.GradientToParameter), rawSet(spec.GradientToUserInput):
			return nil, im.errf("output %d is a loss or gradient: this is a joint training graph, not an inference program; export the model in eval mode with torch.export.export", i)
		case rawSet(spec.UserInputMutation), rawSet(spec.ParameterMutation):
			return nil, im.errf("output %d mutates an input or parameter in place; only programs without in-place updates of their inputs can be imported", i)
		case rawSet(spec.Token):
			return nil, im.errf("output %d is an effect token: the program has side effects", i)
		default:
			return nil, im.errf("output spec %d is of a kind this importer does not know", i)
		}
	}
	if len(outs) == 0 {
		return nil, im.errf("the program has no user outputs")
	}
	// Graph outputs are named as the TorchScript importer names them.
	for i, n := range names {
		graphName := "output"
		if len(names) > 1 {
			graphName = fmt.Sprintf("output_%d", i)
		}
		im.props = append(im.props, canon.KeyValue{Key: "signature.output." + graphName, Value: "user output " + n})
	}
	return outs, nil
}

// dtypeOf maps torch.export's ScalarType onto canonical dtypes.
func dtypeOf(st int64) (canon.DType, error) {
	switch st {
	case 1:
		return canon.Uint8, nil
	case 2:
		return canon.Int8, nil
	case 3:
		return canon.Int16, nil
	case 4:
		return canon.Int32, nil
	case 5:
		return canon.Int64, nil
	case 6:
		return canon.Float16, nil
	case 7:
		return canon.Float32, nil
	case 8:
		return canon.Float64, nil
	case 12:
		return canon.Bool, nil
	case 13:
		return canon.BFloat16, nil
	case 28:
		return canon.Uint16, nil
	}
	return 0, fmt.Errorf("dtype %s is not supported", scalarTypeName(st))
}

func scalarTypeName(st int64) string {
	names := map[int64]string{0: "unknown", 9: "complex32", 10: "complex64", 11: "complex128", 29: "float8_e4m3fn", 30: "float8_e5m2", 31: "float8_e4m3fnuz", 32: "float8_e5m2fnuz"}
	if n, ok := names[st]; ok {
		return n
	}
	return fmt.Sprintf("code %d", st)
}

// c10ScalarType converts torch.export's ScalarType numbering (BYTE = 1)
// to the c10 numbering TorchScript code and the aten handlers use
// (Byte = 0, Float = 6, Bool = 11, BFloat16 = 15).
func c10ScalarType(st int64) (int64, error) {
	switch {
	case st >= 1 && st <= 12:
		return st - 1, nil
	case st == 13:
		return 15, nil
	case st == 28:
		return 27, nil
	}
	return 0, fmt.Errorf("dtype %s is not supported", scalarTypeName(st))
}

// overrideShape applies a shape given with --input-shape (or
// --dynamic-batch): the rank must match and every size the program fixed
// must agree, except that a size may be made symbolic (-1, named in
// names); generalized lists the axes the program had fixed that now are.
func overrideShape(dims []canon.Dim, shape []int64, names map[int]string) (out []canon.Dim, generalized []int, err error) {
	if len(shape) != len(dims) {
		return nil, nil, fmt.Errorf("rank %d given, but the program's input has rank %d", len(shape), len(dims))
	}
	out = make([]canon.Dim, len(dims))
	for i, s := range shape {
		switch {
		case s == -1 && names[i] != "":
			if dims[i].Known() {
				generalized = append(generalized, i)
			}
			out[i] = canon.Dim{Size: -1, Param: names[i]}
			continue
		case s == -1:
			out[i] = dims[i]
			continue
		case s <= 0:
			return nil, nil, fmt.Errorf("dimension %d is %d; sizes must be positive", i, s)
		case dims[i].Known() && dims[i].Size != s:
			return nil, nil, fmt.Errorf("dimension %d is %d in the program, not %d", i, dims[i].Size, s)
		}
		out[i] = canon.Dim{Size: s}
	}
	return out, generalized, nil
}

// dimNamesFor returns the symbolic dimension names given for an input, by
// name or by position.
func dimNamesFor(opts formats.ReadOptions, name string, index int) map[int]string {
	if m, ok := opts.DimNames[name]; ok {
		return m
	}
	return opts.DimNames["#"+strconv.Itoa(index)]
}

func constantOf(c constantValue) (any, error) {
	switch {
	case c.AsNone != nil:
		return nil, nil
	case c.AsInt != nil:
		return *c.AsInt, nil
	case c.AsFloat != nil:
		return float64(*c.AsFloat), nil
	case c.AsString != nil:
		return *c.AsString, nil
	case c.AsBool != nil:
		return *c.AsBool, nil
	}
	return nil, fmt.Errorf("empty constant value")
}

// refuseBakedSizes refuses a program made symbolic by the caller where
// the exporter wrote the example's sizes into the graph as constants, so
// that it would compute for that example's sizes only: a Reshape or Expand
// of a value with a symbolic size whose target has fixed sizes only, or any
// node whose shapes stop agreeing when each symbolic size is given another
// value than the example's (an initial LSTM state of batch 1, say).
func refuseBakedSizes(g *canon.Graph, example map[string]int64) error {
	if err := g.Validate(); err != nil {
		return err
	}
	for _, n := range g.Nodes {
		var target []int64
		switch op := n.Op.(type) {
		case *canon.Reshape:
			target = op.Shape
		case *canon.Expand:
			target = op.Shape
		default:
			continue
		}
		if target == nil || len(n.Inputs) == 0 {
			continue
		}
		x, ok := g.Values.Lookup(n.Inputs[0])
		if !ok || !x.RankKnown || !slices.ContainsFunc(x.Shape, func(d canon.Dim) bool { return !d.Known() }) {
			continue
		}
		if !slices.ContainsFunc(target, func(s int64) bool { return s <= 0 }) {
			return fmt.Errorf("node %q (%s) has the fixed target shape %v, which the program computed from the example's sizes; export it with dynamic_shapes (torch.export) to make those sizes symbolic", n.Name, n.Op.Kind(), target)
		}
	}
	trial := *g
	trial.Inputs = make([]canon.ValueInfo, len(g.Inputs))
	for i, in := range g.Inputs {
		in.Shape = slices.Clone(in.Shape)
		for a, d := range in.Shape {
			if size, ok := example[d.Param]; ok && !d.Known() {
				in.Shape[a] = canon.Dim{Size: size + 1}
			}
		}
		trial.Inputs[i] = in
	}
	trial.Outputs = make([]canon.ValueInfo, len(g.Outputs))
	for i, o := range g.Outputs {
		trial.Outputs[i] = canon.ValueInfo{Name: o.Name, DType: o.DType}
	}
	if err := trial.Validate(); err != nil {
		return fmt.Errorf("the program was exported with fixed sizes and does not compute for other ones (tried each made-symbolic size + 1): %v; export it with dynamic_shapes (torch.export) to make those sizes symbolic", err)
	}
	return nil
}
