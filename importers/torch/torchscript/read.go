// Package torchscript imports TorchScript archives (torch.jit.trace and
// straight-line torch.jit.script modules, as torch.jit.save writes them)
// into canonical graphs.
//
// It reads data.pkl (the module tree and its weights) and constants.pkl
// with a safe unpickler, parses the serialized Python in code/, and runs
// the root module's forward symbolically: each torch operator becomes
// canonical nodes, submodule calls are inlined with self bound to the
// submodule object, and integer arithmetic on tensor sizes is computed from
// the inferred shapes. Control flow and operators without a canonical form
// are refused with the code/ file and line.
//
// Graph inputs are named after forward's parameters (x, argument_1, ...;
// the tensors of a List[Tensor] or Tuple[Tensor, ...] parameter xs are
// xs_0, xs_1, ...) and take their shapes and element types from
// ReadOptions (the archive does not record them); an input without a given
// type is float32 unless its uses require integers or booleans (see
// inputdtypes.go). Outputs are "output", or "output_0", "output_1", ... by
// position when forward returns a tuple (nested tuples flattened). Weights
// keep their module paths ("features.0.weight").
package torchscript

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/panicerr"
	"github.com/modelbridge/modelbridge/internal/pickle"
)

// ReadFile imports the TorchScript archive at path and validates the
// graph, as formats.Read does.
func ReadFile(path string, opts formats.ReadOptions) (*canon.Graph, error) {
	return validated(path)(readFile(path, opts))
}

// Read imports the TorchScript archive held in data (named path in
// messages) and validates the graph, as formats.Read does. Weights may
// point into data, which must stay unchanged while the graph is used.
func Read(data []byte, path string, opts formats.ReadOptions) (*canon.Graph, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable zip archive (%v); the file is truncated or not a TorchScript file", path, err)
	}
	return validated(path)(read(zr, data, path, opts))
}

// readFile is the registered reader (formats.Read validates its graph).
// The file is mapped once, for the zip directory and the weights alike;
// weights may point into the mapping, which the graph owns and releases
// when it is closed.
func readFile(path string, opts formats.ReadOptions) (*canon.Graph, error) {
	m, err := mmapfile.Open(path)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(m.Data), int64(len(m.Data)))
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("%s: not a readable zip archive (%v); the file is truncated or not a TorchScript file", path, err)
	}
	g, err := read(zr, m.Data, path, opts)
	if err != nil {
		m.Close()
		return nil, err
	}
	g.AddResource(m)
	return g, nil
}

// validated checks a graph read outside formats.Read, closing it when it
// is invalid.
func validated(path string) func(*canon.Graph, error) (*canon.Graph, error) {
	return func(g *canon.Graph, err error) (*canon.Graph, error) {
		if err != nil {
			return nil, err
		}
		if err := g.Validate(); err != nil {
			g.Close()
			return nil, fmt.Errorf("%s: imported graph is invalid: %w", path, err)
		}
		return g, nil
	}
}

// maxTypeRounds bounds the reads of one archive: each read after the first
// gives at least one more input the type its uses require.
const maxTypeRounds = 8

// read imports the archive zr. data, when not nil, is the whole file zr
// reads, owned by the caller, who keeps it valid until the graph is closed;
// otherwise the archive maps the file itself. Inputs without a given type
// are read as float32, and read again with the integer or bool type their
// uses require (inputdtypes.go).
func read(zr *zip.Reader, data []byte, path string, opts formats.ReadOptions) (*canon.Graph, error) {
	inferred := map[string]inferredDType{}
	for round := 0; ; round++ {
		g, res, err := readForked(zr, data, path, opts, inferred, newForkState())
		changed, ierr := resolveInputDTypes(res.uses, inferred, res.given, err != nil)
		if ierr != nil {
			if g != nil {
				g.Close()
			}
			return nil, fmt.Errorf("%s: %w", path, ierr)
		}
		if len(changed) == 0 || round == maxTypeRounds {
			if ierr := stillTentative(inferred); ierr != nil {
				if g != nil {
					g.Close()
				}
				return nil, fmt.Errorf("%s: %w", path, ierr)
			}
			if err == nil && len(inferred) > 0 {
				g.Meta.Notes = append(g.Meta.Notes, inferredNote(inferred))
			}
			return g, err
		}
		if g != nil {
			g.Close()
		}
		for name, d := range changed {
			inferred[name] = d
		}
	}
}

// readResult is what one read learned about the inputs' types.
type readResult struct {
	uses  []inputUse
	given func(input string) bool
	// forks is what the run split (control_fork.go); weights are the
	// names of the initializers that hold module weights.
	forks   *forkState
	weights map[string]bool
}

// readOnce imports the archive once, with the given and inferred input
// types, and returns the uses that constrain the inputs' types, also when
// the import fails.
func readOnce(zr *zip.Reader, data []byte, path string, opts formats.ReadOptions, inferred map[string]inferredDType, plan *forkState) (g *canon.Graph, res readResult, err error) {
	res.given = func(string) bool { return false }
	a, err := openArchive(zr, path, data, opts.IgnoreCRC)
	if err != nil {
		return nil, res, err
	}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	// Registered after the cleanup above so that it runs first: a
	// recovered panic becomes the error that makes the cleanup run.
	defer panicerr.Recover(path, &err)
	root, err := unpickleArchive(a, "data.pkl", "data")
	if err != nil {
		return nil, res, err
	}
	rootObj, ok := root.(*pickle.Object)
	if !ok {
		return nil, res, fmt.Errorf("%s: %sdata.pkl holds a %s, not a scripted module object", path, a.prefix, pickle.TypeName(root))
	}
	conv := newConverter()
	rv, err := conv.fromPickle(rootObj, "")
	if err != nil {
		return nil, res, fmt.Errorf("%s: %w", path, err)
	}
	module := rv.(*moduleVal)
	var constants []value
	if a.has("constants.pkl") {
		cv, err := unpickleArchive(a, "constants.pkl", "constants")
		if err != nil {
			return nil, res, err
		}
		tup, ok := cv.(*pickle.Tuple)
		if !ok {
			return nil, res, fmt.Errorf("%s: %sconstants.pkl holds a %s, not a tuple", path, a.prefix, pickle.TypeName(cv))
		}
		for i, it := range tup.Items {
			v, err := conv.fromPickle(it, fmt.Sprintf("CONSTANTS.c%d", i))
			if err != nil {
				return nil, res, fmt.Errorf("%s: %w", path, err)
			}
			if t, ok := v.(*tensorVal); ok {
				// Constants are small; load them now so that size arithmetic
				// can use their values.
				k, err := t.ref.load(a, t.path)
				if err != nil {
					return nil, res, err
				}
				v = &tensorVal{konst: k}
			}
			constants = append(constants, v)
		}
	}
	b := newBuilder(a)
	in := &evaluator{b: b, src: newSources(a), constants: constants, forks: plan.fresh()}
	res.forks = in.forks
	defer func() { res.weights = weightNames(b) }()
	cls, err := in.src.class(module.qualifiedClass())
	if err != nil {
		return nil, res, fmt.Errorf("%s: %w", path, err)
	}
	fwd, ok := cls.methods["forward"]
	if !ok && len(cls.methods) > 0 {
		var names []string
		for n := range cls.methods {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, res, fmt.Errorf("%s: module %s has no forward method (methods: %s); only modules with a forward can be imported", path, module.qualifiedClass(), strings.Join(names, ", "))
	}
	if !ok {
		// torch.jit.save of a module that only holds parameters: read its
		// weights, as a state dict would be read.
		if err := readWeightsOnly(b, module); err != nil {
			return nil, res, fmt.Errorf("%s: %w", path, err)
		}
		if unknown := opts.UnknownShapeKeys(nil); len(unknown) > 0 {
			return nil, res, fmt.Errorf("%s: --input-shape names %s, but module %s has no forward method and so no inputs", path, unknown[0], module.qualifiedClass())
		}
		g, err = finishGraph(b, a, module, fmt.Sprintf("module %s has no forward method, so only its weights were read (%d tensors)", module.qualifiedClass(), len(b.g.Initializers)))
		return g, res, err
	}
	defer func() { res.uses = b.inUses.uses }()
	args, given, err := declareInputs(b, fwd, opts, inferred)
	res.given = given
	if err != nil {
		return nil, res, fmt.Errorf("%s: %w", path, err)
	}
	result, err := in.call(fwd, module, args, nil)
	if err != nil {
		return nil, res, fmt.Errorf("%s: %w", path, err)
	}
	outs, dropped, err := flattenOutputs(b, result)
	if err != nil {
		return nil, res, fmt.Errorf("%s: forward: %w", path, err)
	}
	if outs, err = in.closeTails(outs); err != nil {
		return nil, res, fmt.Errorf("%s: %w", path, err)
	}
	if err := b.setOutputs(outs); err != nil {
		return nil, res, fmt.Errorf("%s: %w", path, err)
	}
	note := ""
	if len(dropped) > 0 {
		note = droppedNote(dropped)
	}
	g, err = finishGraph(b, a, module, note)
	return g, res, err
}

// finishGraph names the imported graph and gives each weight the layout
// its consumer needs; note, when not empty, is added to its Notes. The
// caller validates.
func finishGraph(b *builder, a *archive, module *moduleVal, note string) (*canon.Graph, error) {
	g := b.g
	g.Name = module.class.Name
	g.Meta = canon.Metadata{Producer: "pytorch", SourceFormat: FormatName, Notes: b.notes}
	if note != "" {
		g.Meta.Notes = append(g.Meta.Notes, note)
	}
	canon.AssignLayouts(g)
	g.AddResource(a)
	return g, nil
}

// declareInputs makes forward's tensor parameters the graph inputs, of the
// types given in opts, else inferred, else float32; a List[Tensor] or
// Tuple[Tensor, ...] parameter becomes one input per element, named
// NAME_0, NAME_1, ... (inputlists.go). given reports whether an input's
// type was given.
func declareInputs(b *builder, fwd *funcDef, opts formats.ReadOptions, inferred map[string]inferredDType) (args []value, given func(string) bool, err error) {
	givenSet := map[string]bool{}
	given = func(name string) bool { return givenSet[name] }
	if len(fwd.params) == 0 {
		return nil, given, fmt.Errorf("%s:%d: forward has no self parameter", fwd.file, fwd.line)
	}
	params := fwd.params[1:]
	var names []string
	declare := func(name string) (*tensorVal, error) {
		pos := len(names)
		names = append(names, name)
		shape, _ := opts.ShapeFor(name, pos)
		for _, d := range shape {
			if d == 0 || d < -1 { // -1: a symbolic size (a name in --input-shape)
				return nil, fmt.Errorf("input shape for %s has a non-positive dimension %v", name, shape)
			}
		}
		dtype := canon.Float32
		if d, ok := opts.DTypeFor(name, pos); ok {
			dtype, givenSet[name] = d, true
		} else if d, ok := inferred[name]; ok {
			dtype = d.dtype
		}
		in := b.addInput(name, shape, dtype)
		if !givenSet[name] {
			// Its uses decide its type (inputdtypes.go).
			b.inUses.noteInput(in.name)
		}
		return in, nil
	}
	for _, p := range params {
		if isTensorAnnotation(p.annotation) {
			in, err := declare(p.name)
			if err != nil {
				return nil, given, err
			}
			args = append(args, in)
			continue
		}
		if optionalLeftNone(p) {
			args = append(args, noneVal{})
			continue
		}
		seq, err := declareTensorSeq(fwd, p, opts, declare)
		if err != nil {
			return nil, given, err
		}
		args = append(args, seq)
	}
	if unknown := opts.UnknownShapeKeys(names); len(unknown) > 0 {
		return nil, given, fmt.Errorf("--input-shape names %s, but forward's inputs are: %s", unknown[0], strings.Join(names, ", "))
	}
	return args, given, nil
}

func isTensorAnnotation(e expr) bool {
	n, ok := e.(*nameExpr)
	return e == nil || (ok && n.name == "Tensor")
}

func annotationText(e expr) string {
	switch x := e.(type) {
	case *nameExpr:
		return x.name
	case *attrExpr:
		return annotationText(x.x) + "." + x.name
	case *subscriptExpr:
		return annotationText(x.x) + "[" + annotationText(x.index) + "]"
	case *tupleExpr:
		var parts []string
		for _, it := range x.items {
			parts = append(parts, annotationText(it))
		}
		return strings.Join(parts, ", ")
	}
	return "?"
}

// flattenOutputs turns forward's result into the graph outputs: a tensor,
// or the tensors of a tuple or list, nested ones in order ((out, (h, c))
// of an LSTM is out, h, c). An int (a size, as a scripted forward can
// return) is a 0-d int64 tensor, computed when it is known only at run
// time. A None element is an entry of its own that
// makes no output (a result the importer does not compute, such as the
// indices of an adaptive max pool); dropped lists their positions.
func flattenOutputs(b *builder, v value) (outs []*tensorVal, dropped []int, err error) {
	var walk func(v value, depth int) error
	walk = func(v value, depth int) error {
		if depth > maxCallDepth {
			return errors.New("returns tuples nested too deep")
		}
		switch x := v.(type) {
		case *tensorVal:
			outs = append(outs, x)
			return nil
		case bool, *dynBool:
			t, _ := boolTensor(x) // a 0-d bool tensor, as torch.tensor(b)
			outs = append(outs, t)
			return nil
		case int64, *dynInt:
			t, err := intOutput(b, x)
			if err != nil {
				return err
			}
			outs = append(outs, t)
			return nil
		case noneVal:
			if depth == 0 {
				return errors.New("returns None; only tensors (or tuples of tensors) can be graph outputs")
			}
			dropped = append(dropped, len(outs))
			outs = append(outs, nil)
			return nil
		case *dictVal:
			for i, it := range x.vals {
				b.nameOutput(len(outs), x.keys[i])
				if err := walk(it, depth+1); err != nil {
					return err
				}
			}
			return nil
		case *tupleVal, *listVal:
			var items []value
			if t, ok := x.(*tupleVal); ok {
				items = t.items
			} else {
				items = x.(*listVal).items
			}
			for _, it := range items {
				if err := walk(it, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		if depth == 0 {
			return fmt.Errorf("returns a %s; only tensors (or tuples of tensors) can be graph outputs", typeName(v))
		}
		return fmt.Errorf("returns a %s as output %d; only tensors (or tuples of tensors) can be graph outputs", typeName(v), len(outs))
	}
	if err := walk(v, 0); err != nil {
		return nil, nil, err
	}
	if len(outs) == 0 {
		return nil, nil, errors.New("returns an empty tuple")
	}
	if len(dropped) == len(outs) {
		return nil, nil, errors.New("returns only None values; only tensors (or tuples of tensors) can be graph outputs")
	}
	return outs, dropped, nil
}

// droppedNote says which results of forward make no graph output.
func droppedNote(dropped []int) string {
	var s []string
	for _, i := range dropped {
		s = append(s, "output_"+strconv.Itoa(i))
	}
	return fmt.Sprintf("forward's results at %s are None where this importer does not compute them (such as the indices of an adaptive max pool): they are left out, and the other outputs keep their positions' names", strings.Join(s, ", "))
}
