package pt2

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
)

// atenPrefix starts the target of every core ATen operator.
const atenPrefix = "torch.ops.aten."

// atenAliases are aten operators whose TorchScript spelling differs.
var atenAliases = map[string]string{
	"sym_size": "size",
	// lift_fresh_copy copies a constant tensor made in forward (torch.tensor
	// in the model's code) before it is used: a clone.
	"lift_fresh_copy": "clone",
}

// symArith are the Python operators torch.export records on sizes.
var symArith = map[string]string{
	"_operator.add":      "+",
	"_operator.sub":      "-",
	"_operator.mul":      "*",
	"_operator.floordiv": "//",
}

// assertions are aten operators that only check, at run time, what the
// exporter assumed (a size range, a tensor's dtype): they compute nothing
// and are skipped, with a note.
var assertions = map[string]bool{
	"_assert_scalar": true, "_assert_tensor_metadata": true, "_assert_async": true,
	"sym_constrain_range": true, "sym_constrain_range_for_size": true,
}

// keywordOnly are aten schema arguments declared after "*": callers pass
// them by name. Files whose NamedArgument has no kind (PyTorch 2.6) are
// read with the overload's own schema (keyword_only_table.go), and with
// this list for names that schema lacks (see isKeywordOnly).
var keywordOnly = map[string]bool{
	"alpha": true, "dtype": true, "layout": true, "device": true, "pin_memory": true,
	"memory_format": true, "approximate": true, "rounding_mode": true, "scale": true,
	"enable_gqa": true, "non_blocking": true, "copy": true, "out": true, "antialias": true,
	// bucketize and searchsorted.
	"out_int32": true, "right": true, "side": true, "sorter": true,
	// Keyword-only in every aten schema that has them (PyTorch 1.13's
	// schemas): binding them by position could only go wrong.
	"correction": true, "decimals": true, "edge_order": true, "include_self": true, "indexing": true,
	"initial": true, "interpolation": true, "log_target": true, "spacing": true, "stable": true,
	"assume_unique": true, "invert": true, "implicit": true, "bin_edges": true, "aweights": true,
	"fweights": true, "adjoint": true, "driver": true,
}

// NodeError names the node and operator of a refused node.
type NodeError struct {
	Path, Node, Target string
	Err                error
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("%s: node %s (%s): %v", e.Path, e.Node, e.Target, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// UnsupportedOpError is an operator no handler reads: an aten op not
// mapped yet, or one of a custom namespace.
type UnsupportedOpError struct {
	Op, Reason string
}

func (e *UnsupportedOpError) Error() string {
	return fmt.Sprintf("operator %s is not supported by the .pt2 importer: %s (`modelbridge ops` lists what each format supports)", e.Op, e.Reason)
}

// runNode emits one node's operator.
func (im *importer) runNode(n *node, index int) error {
	name := n.Name
	if name == "" {
		name = fmt.Sprintf("#%d", index)
		if len(n.Outputs) > 0 {
			name = describeOutputs(n.Outputs)
		}
	}
	fail := func(err error) error {
		return &NodeError{Path: im.path, Node: name, Target: n.Target, Err: err}
	}
	if isSymCheck(n) {
		im.deferSymBool(n)
		return nil
	}
	if op, ok := strings.CutPrefix(n.Target, higherOrderPrefix); ok {
		return im.wrap(fail, im.runHigherOrder(n, op))
	}
	if op, ok := symArith[n.Target]; ok {
		return im.wrap(fail, im.runSymArith(n, op))
	}
	if op, _, _ := strings.Cut(strings.TrimPrefix(n.Target, atenPrefix), "."); strings.HasPrefix(n.Target, atenPrefix) && assertions[op] {
		im.skippedAsserts++
		return nil
	}
	opName, err := tsName(n.Target)
	if err != nil {
		return fail(err)
	}
	if !im.prog.Has(opName) {
		return fail(&UnsupportedOpError{Op: displayTarget(n.Target), Reason: "no aten handler maps it yet"})
	}
	var args []any
	kwargs := map[string]any{}
	for _, in := range n.Inputs {
		v, err := im.value(&in.Arg)
		if err != nil {
			return fail(fmt.Errorf("argument %s: %w", in.Name, err))
		}
		// Without a recorded kind, an argument is passed by name from the
		// first keyword-only one on: the handlers bind aten's names.
		keyword := isKeywordOnly(n.Target, in.Name) || len(kwargs) > 0
		if in.Kind != nil {
			keyword = *in.Kind == kindKeyword
		}
		if keyword {
			if _, dup := kwargs[in.Name]; dup {
				return fail(fmt.Errorf("argument %s is given twice", in.Name))
			}
			kwargs[in.Name] = v
		} else {
			if len(kwargs) > 0 {
				return fail(fmt.Errorf("positional argument %s follows keyword arguments", in.Name))
			}
			args = append(args, v)
		}
	}
	res, err := im.prog.Call(opName, scopeOf(n.Metadata), args, kwargs)
	if err != nil {
		return fail(err)
	}
	im.target = n.Target
	return im.wrap(fail, im.bindOutputs(n, res))
}

func (im *importer) wrap(fail func(error) error, err error) error {
	if err != nil {
		return fail(err)
	}
	return nil
}

// tsName maps a node target onto the TorchScript name of its handler:
// torch.ops.aten.conv2d.default -> torch.conv2d. The overload is left to
// the handler, which reads arguments by their types as TorchScript passes
// them.
func tsName(target string) (string, error) {
	rest, ok := strings.CutPrefix(target, atenPrefix)
	if tv, isTV := strings.CutPrefix(target, "torch.ops.torchvision."); isTV {
		// torchvision's operators: the TorchScript names ops.torchvision.X.
		op, _, _ := strings.Cut(tv, ".")
		return "ops.torchvision." + op, nil
	}
	if !ok {
		if ns, ok := strings.CutPrefix(target, "torch.ops."); ok {
			space, _, _ := strings.Cut(ns, ".") // higher_order is read before (higher_order.go)
			return "", &UnsupportedOpError{Op: target, Reason: fmt.Sprintf("it belongs to the custom namespace %q; only core ATen operators (torch.ops.aten.*) are read", space)}
		}
		return "", &UnsupportedOpError{Op: target, Reason: "only core ATen operators (torch.ops.aten.*) and size arithmetic are read"}
	}
	op, _, _ := strings.Cut(rest, ".")
	if op == "" {
		return "", &UnsupportedOpError{Op: target, Reason: "the target names no operator"}
	}
	if a, ok := atenAliases[op]; ok {
		op = a
	}
	return "torch." + op, nil
}

// displayTarget shortens torch.ops.aten.X.Y to aten.X.Y.
func displayTarget(t string) string { return strings.TrimPrefix(t, "torch.ops.") }

// scopeOf is the module path of the innermost module the node ran in, from
// its nn_module_stack metadata ("key,path,class;..."), used to name nodes.
func scopeOf(meta map[string]string) string {
	stack := meta["nn_module_stack"]
	if stack == "" {
		return ""
	}
	entries := strings.Split(stack, ";")
	parts := strings.Split(entries[len(entries)-1], ",")
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

func describeOutputs(outs []argument) string {
	for _, o := range outs {
		switch {
		case o.AsTensor != nil:
			return o.AsTensor.Name
		case o.AsSymInt != nil && o.AsSymInt.AsName != nil:
			return *o.AsSymInt.AsName
		case len(o.AsTensors) > 0:
			return o.AsTensors[0].Name
		}
	}
	return "?"
}

// runSymArith computes a size expression (_operator.mul(s, 4)).
func (im *importer) runSymArith(n *node, op string) error {
	if len(n.Inputs) != 2 || len(n.Outputs) != 1 || n.Outputs[0].AsSymInt == nil || n.Outputs[0].AsSymInt.AsName == nil {
		return fmt.Errorf("want two operands and one symbolic int result")
	}
	a, err := im.value(&n.Inputs[0].Arg)
	if err != nil {
		return err
	}
	b, err := im.value(&n.Inputs[1].Arg)
	if err != nil {
		return err
	}
	r, err := im.prog.SymArith(op, a, b)
	if err != nil {
		return err
	}
	return im.defineSym(*n.Outputs[0].AsSymInt.AsName, r)
}

func (im *importer) defineSym(name string, v any) error {
	if _, dup := im.syms[name]; dup {
		return fmt.Errorf("symbolic int %s is defined twice", name)
	}
	switch v.(type) {
	case int64, *torchscript.SymInt:
	default:
		return fmt.Errorf("%s should be an int, the operator returned %T", name, v)
	}
	im.syms[name] = v
	return nil
}

// bindOutputs names an operator's results after the node's outputs and
// gives each tensor the shape the program records where inference left a
// size open.
func (im *importer) bindOutputs(n *node, res any) error {
	outs := n.Outputs
	if len(outs) == 1 {
		return im.bindOne(&outs[0], res)
	}
	items, ok := res.([]any)
	if !ok || len(items) < len(outs) {
		return fmt.Errorf("the program expects %d results, the operator returned %s", len(outs), describeResult(res))
	}
	for i := range outs {
		if err := im.bindOne(&outs[i], items[i]); err != nil {
			return err
		}
	}
	return nil
}

func (im *importer) bindOne(o *argument, v any) error {
	switch {
	case o.AsTensor != nil:
		t, ok := v.(*torchscript.Tensor)
		if v == nil {
			// A result the handler does not compute (the indices of an
			// adaptive max pool) is fine while nothing reads it.
			if !im.readByAnyone(o.AsTensor.Name) {
				return nil
			}
			return fmt.Errorf("result %s is not computed by this importer (such as the indices of an adaptive max pool), and the program uses it", o.AsTensor.Name)
		}
		if !ok {
			return fmt.Errorf("output %s should be a tensor, the operator returned %s", o.AsTensor.Name, describeResult(v))
		}
		return im.defineTensor(o.AsTensor.Name, t)
	case o.AsTensors != nil:
		items, ok := v.([]any)
		if !ok || len(items) != len(o.AsTensors) {
			return fmt.Errorf("the program expects a list of %d tensors, the operator returned %s", len(o.AsTensors), describeResult(v))
		}
		for i, ta := range o.AsTensors {
			if err := im.bindOne(&argument{AsTensor: &tensorArgument{Name: ta.Name}}, items[i]); err != nil {
				return err
			}
		}
		return nil
	case o.AsSymInt != nil && o.AsSymInt.AsName != nil:
		return im.defineSym(*o.AsSymInt.AsName, v)
	case o.AsNone != nil:
		return nil
	}
	return fmt.Errorf("output %s is not supported", describeArg(o))
}

func (im *importer) defineTensor(name string, t *torchscript.Tensor) error {
	if meta, ok := im.gr.TensorValues[name]; ok {
		dims, err := im.dims(meta.Sizes)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := im.prog.Refine(t, dims); err != nil {
			if info := im.prog.Info(t); info.RankKnown && isRecurrentStateMeta(im.target, info.Shape, dims) {
				im.notes = append(im.notes, fmt.Sprintf("%s: the program records shape %v for a recurrent state that PyTorch returns as %v (its meta kernel's extra axis); the returned shape is kept", name, dimsText(dims), dimsText(info.Shape)))
				return im.define(name, t)
			}
			if im.readByAnyone(name) {
				return fmt.Errorf("%s: %w", name, err)
			}
			// PyTorch's meta kernels record some outputs nothing reads with
			// a wrong shape (2.6 records aten.lstm's states as rank 4); an
			// unread value cannot change the result, so inference wins.
			im.notes = append(im.notes, fmt.Sprintf("%s (unused): %v; the inferred shape is kept", name, err))
		}
	}
	if err := im.define(name, t); err != nil {
		return err
	}
	return nil
}

func describeResult(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case *torchscript.Tensor:
		return "a tensor"
	case []any:
		return fmt.Sprintf("%d values", len(x))
	}
	return fmt.Sprintf("a %T", v)
}

// value converts one argument into a Program value.
func (im *importer) value(a *argument) (any, error) {
	switch {
	case a.AsNone != nil:
		return nil, nil
	case a.AsTensor != nil:
		return im.tensor(a.AsTensor.Name)
	case a.AsTensors != nil:
		out := make([]any, len(a.AsTensors))
		for i, t := range a.AsTensors {
			v, err := im.tensor(t.Name)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case a.AsOptionalTensors != nil:
		out := make([]any, len(a.AsOptionalTensors))
		for i := range a.AsOptionalTensors {
			v, err := im.optionalTensor(&a.AsOptionalTensors[i])
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case a.AsOptionalTensor != nil:
		return im.optionalTensor(a.AsOptionalTensor)
	case a.AsInt != nil:
		return *a.AsInt, nil
	case a.AsInts != nil:
		out := make([]any, len(a.AsInts))
		for i, v := range a.AsInts {
			out[i] = v
		}
		return out, nil
	case a.AsFloat != nil:
		return float64(*a.AsFloat), nil
	case a.AsFloats != nil:
		out := make([]any, len(a.AsFloats))
		for i, v := range a.AsFloats {
			out[i] = float64(v)
		}
		return out, nil
	case a.AsBool != nil:
		return *a.AsBool, nil
	case a.AsBools != nil:
		out := make([]any, len(a.AsBools))
		for i, v := range a.AsBools {
			out[i] = v
		}
		return out, nil
	case a.AsString != nil:
		return *a.AsString, nil
	case a.AsStrings != nil:
		out := make([]any, len(a.AsStrings))
		for i, v := range a.AsStrings {
			out[i] = v
		}
		return out, nil
	case a.AsSymInt != nil:
		return im.symInt(a.AsSymInt)
	case a.AsSymInts != nil:
		out := make([]any, len(a.AsSymInts))
		for i := range a.AsSymInts {
			v, err := im.symInt(&a.AsSymInts[i])
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case a.AsScalarType != nil:
		return c10ScalarType(*a.AsScalarType)
	case a.AsMemoryFormat != nil:
		// c10: Contiguous 0, Preserve 1, ChannelsLast 2, ChannelsLast3d 3.
		switch *a.AsMemoryFormat {
		case 1:
			return int64(0), nil
		case 2, 3:
			return *a.AsMemoryFormat, nil
		case 4:
			return int64(1), nil
		}
		return nil, fmt.Errorf("memory format %d is not known", *a.AsMemoryFormat)
	case a.AsLayout != nil:
		if *a.AsLayout != 7 {
			return nil, fmt.Errorf("layout %d is not strided; sparse and mkldnn tensors are not supported", *a.AsLayout)
		}
		return int64(0), nil // c10 kStrided
	case a.AsDevice != nil:
		if a.AsDevice.Index != nil {
			return fmt.Sprintf("%s:%d", a.AsDevice.Type, *a.AsDevice.Index), nil
		}
		return a.AsDevice.Type, nil
	}
	return nil, fmt.Errorf("%s is not supported", describeArg(a))
}

func (im *importer) optionalTensor(o *optionalTensorArgument) (any, error) {
	if o.AsTensor != nil {
		return im.tensor(o.AsTensor.Name)
	}
	return nil, nil
}

func (im *importer) symInt(s *symIntArgument) (any, error) {
	switch {
	case s.AsInt != nil:
		return *s.AsInt, nil
	case s.AsName != nil:
		if v, ok := im.syms[*s.AsName]; ok {
			return v, nil
		}
		if v, ok := im.consts[*s.AsName]; ok {
			return v, nil
		}
		return nil, fmt.Errorf("symbolic int %s is used before it is defined", *s.AsName)
	}
	return nil, fmt.Errorf("empty symbolic int")
}

// describeArg names the union member an argument sets, for errors.
func describeArg(a *argument) string {
	switch {
	case a.AsNone != nil:
		return "None"
	case a.AsTensor != nil:
		return "tensor " + a.AsTensor.Name
	case a.AsSymInt != nil:
		return "a symbolic int"
	case a.AsInt != nil:
		return "an int"
	case a.AsSymInts != nil:
		return "a list of symbolic ints"
	case a.AsInts != nil:
		return "a list of ints"
	case a.AsFloats != nil:
		return "a list of floats"
	case a.AsSymBool != nil, rawSet(a.AsSymBools):
		return "a symbolic bool (data-dependent control flow)"
	case rawSet(a.AsSymFloat), rawSet(a.AsSymFloats):
		return "a symbolic float"
	case a.AsGraph != nil:
		return "a subgraph (control flow)"
	case rawSet(a.AsCustomObj):
		return "a custom object (TorchBind class)"
	case rawSet(a.AsOperator):
		return "an operator reference"
	case rawSet(a.AsComplex):
		return "a complex number"
	case rawSet(a.AsNestedTensors), rawSet(a.AsIntLists), rawSet(a.AsStringToArg):
		return "a nested list or dict argument"
	}
	return "an empty or unknown argument"
}

// symbolPattern matches the sympy spelling of a bare symbol that PyTorch
// 2.6 writes ("Symbol('s0', positive=True, integer=True)"); older files
// write the bare name.
var (
	symbolPattern = regexp.MustCompile(`^Symbol\('([A-Za-z_][A-Za-z0-9_]*)'(?:,.*)?\)$`)
	namePattern   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// dims converts recorded sizes: a known int, a bare symbol (a named
// dimension), or an expression (an unnamed unknown dimension).
func (im *importer) dims(sizes []symInt) ([]canon.Dim, error) {
	out := make([]canon.Dim, len(sizes))
	for i, s := range sizes {
		switch {
		case s.AsInt != nil:
			if *s.AsInt < 0 {
				return nil, fmt.Errorf("dimension %d has negative size %d", i, *s.AsInt)
			}
			out[i] = canon.Dim{Size: *s.AsInt}
		case s.AsExpr != nil:
			out[i] = canon.Dim{Size: -1, Param: symbolName(s.AsExpr.ExprStr)}
		default:
			return nil, fmt.Errorf("dimension %d has no size", i)
		}
	}
	return out, nil
}

// symbolName is the symbol an expression is, or "" for a compound one.
func symbolName(expr string) string {
	expr = strings.TrimSpace(expr)
	if m := symbolPattern.FindStringSubmatch(expr); m != nil {
		return m[1]
	}
	if namePattern.MatchString(expr) {
		return expr
	}
	return ""
}

// readByAnyone reports whether a node or the graph's outputs read the
// tensor called name.
func (im *importer) readByAnyone(name string) bool {
	if im.readers == nil {
		im.readers = map[string]bool{}
		mark := func(a *argument) {
			if a.AsTensor != nil {
				im.readers[a.AsTensor.Name] = true
			}
			for _, ta := range a.AsTensors {
				im.readers[ta.Name] = true
			}
			if a.AsOptionalTensor != nil && a.AsOptionalTensor.AsTensor != nil {
				im.readers[a.AsOptionalTensor.AsTensor.Name] = true
			}
			for _, ot := range a.AsOptionalTensors {
				if ot.AsTensor != nil {
					im.readers[ot.AsTensor.Name] = true
				}
			}
		}
		for i := range im.gr.Nodes {
			for j := range im.gr.Nodes[i].Inputs {
				mark(&im.gr.Nodes[i].Inputs[j].Arg)
			}
		}
		for i := range im.gr.Outputs {
			mark(&im.gr.Outputs[i])
		}
	}
	return im.readers[name]
}
