package torchscript

import (
	"errors"
	"fmt"
	"strings"
)

// maxCallDepth bounds inlining: real module trees nest a few dozen levels;
// a deeper chain is a recursive (or hostile) program.
const maxCallDepth = 100

// maxSteps bounds the statements run in one import. Within it, an import
// may run baseSteps plus stepsPerCodeByte for each byte of code/ source
// parsed: each inlined call is a line of source, but a few kilobytes of
// functions that each call the next sixteen times would otherwise run
// millions of statements, each adding a node (traced models run about one
// statement per hundred bytes of source).
const (
	maxSteps         = 1 << 22
	baseSteps        = 1 << 14
	stepsPerCodeByte = 16
)

// stepLimit is how many statements the import may run, given the source
// parsed so far.
func (in *evaluator) stepLimit() int {
	return int(min(maxSteps, baseSteps+stepsPerCodeByte*in.src.codeBytes))
}

// evaluator runs the serialized code symbolically: tensor ops become graph
// nodes, integer and list arithmetic on static values is computed.
type evaluator struct {
	b         *builder
	src       *sources
	constants []value
	depth     int
	steps     int
	// forks splits ifs whose branches differ in rank (control_fork.go);
	// nil where the front end cannot run an import twice.
	forks *forkState
}

// frame is one inlined function call.
type frame struct {
	fn    *funcDef
	self  *moduleVal
	vars  map[string]value
	scope string // module path, used in node names
}

// sourceError is an error at a code/ file line. It is created once, at the
// innermost failing statement, and passed up through inlined callers.
type sourceError struct {
	file string
	line int
	err  error
}

func (e *sourceError) Error() string { return fmt.Sprintf("%s:%d: %v", e.file, e.line, e.err) }
func (e *sourceError) Unwrap() error { return e.err }

func (f *frame) errAt(line int, err error) error {
	var se *sourceError
	var cf *ControlFlowError
	var uo *UnsupportedOpError
	if errors.As(err, &se) || errors.As(err, &cf) || errors.As(err, &uo) {
		return err
	}
	return &sourceError{file: f.fn.file, line: line, err: err}
}

// ControlFlowError reports an if/for/while/... the importer cannot run.
type ControlFlowError struct {
	File, Text string
	Line       int
}

func (e *ControlFlowError) Error() string {
	return fmt.Sprintf("control flow is not supported: %s:%d: %s (scripted if, for over range() and while are read; with, try, break, continue and the rest are not: trace the model with torch.jit.trace, or export it to ONNX)", e.File, e.Line, e.Text)
}

// UnsupportedOpError reports an operator without a canonical mapping.
type UnsupportedOpError struct {
	Op, File string
	Line     int
}

func (e *UnsupportedOpError) Error() string {
	return fmt.Sprintf("%s:%d: operator %s is not supported by the TorchScript importer (`modelbridge ops --aten` lists PyTorch's operators and the handlers this importer has)", e.File, e.Line, e.Op)
}

// call runs fn with self bound (nil for a free function) and returns its
// result.
func (in *evaluator) call(fn *funcDef, self *moduleVal, args []value, kwargs map[string]value) (value, error) {
	in.depth++
	defer func() { in.depth-- }()
	if in.depth > maxCallDepth {
		return nil, fmt.Errorf("calls nest more than %d deep at %s (recursion?)", maxCallDepth, fn.name)
	}
	// Refuse a function with control flow before running any of it, so
	// that the error points at the construct rather than at an earlier op.
	for _, s := range fn.body {
		if cs, ok := s.(*controlStmt); ok {
			return nil, &ControlFlowError{File: fn.file, Line: cs.line, Text: cs.text}
		}
	}
	f := &frame{fn: fn, self: self, vars: map[string]value{}}
	params := fn.params
	if self != nil {
		if len(params) == 0 {
			return nil, fmt.Errorf("%s:%d: method %s has no self parameter", fn.file, fn.line, fn.name)
		}
		f.vars[params[0].name] = self
		f.scope = self.path
		params = params[1:]
	}
	if len(args) > len(params) {
		return nil, fmt.Errorf("%s:%d: %s takes %d arguments, %d given", fn.file, fn.line, fn.name, len(params), len(args))
	}
	for i, p := range params {
		switch {
		case i < len(args):
			f.vars[p.name] = args[i]
		case kwargs[p.name] != nil:
			f.vars[p.name] = kwargs[p.name]
		case p.dflt != nil:
			v, err := in.eval(f, p.dflt)
			if err != nil {
				return nil, err
			}
			f.vars[p.name] = v
		default:
			return nil, fmt.Errorf("%s:%d: %s: missing argument %s", fn.file, fn.line, fn.name, p.name)
		}
	}
	for _, s := range fn.body {
		in.steps++
		if limit := in.stepLimit(); in.steps > limit {
			return nil, &sourceError{file: fn.file, line: s.stmtLine(), err: fmt.Errorf("more than %d statements executed for %d bytes of code/ source (calls that fan out into far more work than the source spells out); giving up", limit, in.src.codeBytes)}
		}
		switch st := s.(type) {
		case *controlStmt:
			return nil, &ControlFlowError{File: fn.file, Line: st.line, Text: st.text}
		case *passStmt:
		case *exprStmt:
			if _, err := in.eval(f, st.x); err != nil {
				return nil, f.errAt(st.line, err)
			}
		case *returnStmt:
			if st.value == nil {
				return noneVal{}, nil
			}
			v, err := in.eval(f, st.value)
			if err != nil {
				return nil, f.errAt(st.line, err)
			}
			return v, nil
		case *assignStmt:
			v, err := in.eval(f, st.value)
			if err != nil {
				return nil, f.errAt(st.line, err)
			}
			if err := in.assign(f, st, v); err != nil {
				return nil, f.errAt(st.line, err)
			}
		case *ifStmt, *forStmt, *whileStmt:
			if err := in.runControl(f, st); err != nil {
				return nil, f.errAt(st.stmtLine(), err)
			}
		default:
			return nil, f.errAt(s.stmtLine(), fmt.Errorf("unsupported statement"))
		}
	}
	return noneVal{}, nil
}

func (in *evaluator) assign(f *frame, st *assignStmt, v value) error {
	if a, ok := st.targets[0].(*attrExpr); ok && !st.unpack {
		return in.setAttr(f, a, v)
	}
	if !st.unpack {
		n, ok := st.targets[0].(*nameExpr)
		if !ok {
			return fmt.Errorf("assignment to anything but a local name is not supported")
		}
		f.vars[n.name] = v
		return nil
	}
	var items []value
	switch x := v.(type) {
	case *tupleVal:
		items = x.items
	case *listVal:
		items = x.items
	default:
		return fmt.Errorf("cannot unpack a %s into %d names", typeName(v), len(st.targets))
	}
	if len(items) != len(st.targets) {
		return fmt.Errorf("cannot unpack %d values into %d names", len(items), len(st.targets))
	}
	for i, t := range st.targets {
		n, ok := t.(*nameExpr)
		if !ok {
			return fmt.Errorf("assignment to anything but a local name is not supported")
		}
		f.vars[n.name] = items[i]
	}
	return nil
}

// globalNames are the names code may use without defining them.
var globalNames = map[string]bool{"torch": true, "ops": true, "__torch__": true, "math": true,
	"annotate": true, "getattr": true, "int": true, "float": true, "bool": true, "len": true,
	"Tensor": true, "Optional": true, "List": true, "Tuple": true, "Dict": true, "NoneType": true, "str": true, "number": true}

func (in *evaluator) eval(f *frame, e expr) (value, error) {
	switch x := e.(type) {
	case *nameExpr:
		if v, ok := f.vars[x.name]; ok {
			return v, nil
		}
		if x.name == "CONSTANTS" {
			return &constantsVal{items: in.constants}, nil
		}
		if globalNames[x.name] {
			return &qualName{path: x.name}, nil
		}
		if v, ok := floatNames[x.name]; ok {
			return v, nil
		}
		return nil, fmt.Errorf("name %s is not defined", x.name)
	case *intLit:
		return x.v, nil
	case *floatLit:
		return x.v, nil
	case *stringLit:
		return x.v, nil
	case *constLit:
		if x.v == nil {
			return noneVal{}, nil
		}
		return x.v, nil
	case *listExpr:
		items, err := in.evalAll(f, x.items)
		if err != nil {
			return nil, err
		}
		return in.b.madeList(&listVal{items: items}), nil
	case *tupleExpr:
		items, err := in.evalAll(f, x.items)
		if err != nil {
			return nil, err
		}
		return &tupleVal{items: items}, nil
	case *attrExpr:
		base, err := in.eval(f, x.x)
		if err != nil {
			return nil, err
		}
		return in.attribute(base, x.name)
	case *subscriptExpr:
		return in.subscript(f, x)
	case *unaryExpr:
		v, err := in.eval(f, x.x)
		if err != nil {
			return nil, err
		}
		return unaryScalar(x.op, v)
	case *binaryExpr:
		a, err := in.eval(f, x.a)
		if err != nil {
			return nil, err
		}
		b, err := in.eval(f, x.b)
		if err != nil {
			return nil, err
		}
		return binaryScalar(x.op, a, b)
	case *callExpr:
		return in.evalCall(f, x)
	case *dictExpr:
		return in.evalDict(f, x)
	case *unsupportedExpr:
		return nil, &ControlFlowError{File: f.fn.file, Line: x.line, Text: x.what}
	}
	return nil, fmt.Errorf("unsupported expression %T", e)
}

func (in *evaluator) evalAll(f *frame, es []expr) ([]value, error) {
	out := make([]value, len(es))
	for i, e := range es {
		v, err := in.eval(f, e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (in *evaluator) attribute(base value, name string) (value, error) {
	switch b := base.(type) {
	case *qualName:
		return &qualName{path: b.path + "." + name}, nil
	case *constantsVal:
		var idx int
		if _, err := fmt.Sscanf(name, "c%d", &idx); err != nil || fmt.Sprintf("c%d", idx) != name {
			return nil, fmt.Errorf("CONSTANTS.%s is not a constant name", name)
		}
		if idx < 0 || idx >= len(b.items) {
			return nil, fmt.Errorf("CONSTANTS.%s: constants.pkl holds %d constants", name, len(b.items))
		}
		return b.items[idx], nil
	case *moduleVal:
		return in.moduleAttr(b, name)
	}
	return nil, fmt.Errorf("cannot read attribute %s of a %s", name, typeName(base))
}

// moduleAttr reads an attribute of a module object: its state from data.pkl,
// then its methods and Final constants from the class source.
func (in *evaluator) moduleAttr(m *moduleVal, name string) (value, error) {
	v, ok, err := m.attr(name)
	if err != nil {
		return nil, err
	}
	if ok {
		return v, nil
	}
	cls, err := in.src.class(m.qualifiedClass())
	if err != nil {
		return nil, err
	}
	if fn, ok := cls.methods[name]; ok {
		return &boundMethod{self: m, fn: fn}, nil
	}
	if a, ok := cls.attrs[name]; ok && a.value != nil {
		return in.eval(&frame{fn: &funcDef{name: cls.name, file: cls.file}, vars: map[string]value{}}, a.value)
	}
	return nil, fmt.Errorf("module %s (%s) has no attribute %s", displayPath(m.path), m.qualifiedClass(), name)
}

func displayPath(p string) string {
	if p == "" {
		return "<root>"
	}
	return p
}

func (in *evaluator) subscript(f *frame, x *subscriptExpr) (value, error) {
	base, err := in.eval(f, x.x)
	if err != nil {
		return nil, err
	}
	if q, ok := base.(*qualName); ok { // a type such as Optional[int]
		return q, nil
	}
	idx, err := in.eval(f, x.index)
	if err != nil {
		return nil, err
	}
	var items []value
	switch b := base.(type) {
	case *runList:
		return in.b.listItem(f.scope, b, idx)
	case *dictVal:
		return b.get(idx)
	case *listVal:
		items = b.items
	case *tupleVal:
		items = b.items
	default:
		return nil, fmt.Errorf("cannot index a %s", typeName(base))
	}
	i, ok := idx.(int64)
	if !ok {
		return nil, fmt.Errorf("index must be an int, not %s", typeName(idx))
	}
	if i < 0 {
		i += int64(len(items))
	}
	if i < 0 || i >= int64(len(items)) {
		return nil, fmt.Errorf("index %d out of range for %d items", i, len(items))
	}
	return items[i], nil
}

func (in *evaluator) evalCall(f *frame, x *callExpr) (value, error) {
	fn, err := in.eval(f, x.fn)
	if err != nil {
		return nil, err
	}
	args, err := in.evalAll(f, x.args)
	if err != nil {
		return nil, err
	}
	var kwargs map[string]value
	if len(x.kwargs) > 0 {
		kwargs = map[string]value{}
		for _, kw := range x.kwargs {
			v, err := in.eval(f, kw.value)
			if err != nil {
				return nil, err
			}
			kwargs[kw.name] = v
		}
	}
	switch c := fn.(type) {
	case *boundMethod:
		return in.call(c.fn, c.self, args, kwargs)
	case *qualName:
		if strings.HasPrefix(c.path, "__torch__.") {
			if strings.HasSuffix(c.path, ".__new__") {
				return in.newObject(c.path, args)
			}
			fd, err := in.src.function(c.path)
			if err != nil {
				return nil, err
			}
			return in.call(fd, nil, args, kwargs)
		}
		in.noteCall(c.path, args, kwargs, f.fn.file, x.line)
		e, ok := opTable[c.path]
		if !ok {
			return nil, &UnsupportedOpError{Op: c.path, File: f.fn.file, Line: x.line}
		}
		return in.callOp(e, c.path, f.scope, args, kwargs)
	}
	return nil, fmt.Errorf("cannot call a %s", typeName(fn))
}

// callOp runs one operator's handler; scope prefixes its nodes' names.
// Both front ends (TorchScript code and torch.export programs) call
// operators through it.
func (in *evaluator) callOp(e opEntry, name, scope string, args []value, kwargs map[string]value) (value, error) {
	if qe, ok := quantizedOverride(name, e, args); ok {
		e = qe // the op applied to a quantized tensor
	}
	oc := &opCall{in: in, name: name, scope: scope, args: args, kwargs: kwargs}
	if v, done, err := oc.complexCall(); done {
		return v, err
	}
	if v, done, err := oc.runTimeScalarCall(); done {
		return v, err
	}
	if v, done, err := oc.containerCall(); done {
		return v, err
	}
	before := len(in.b.g.Nodes)
	v, err := e.handler(oc)
	if err != nil {
		err = in.explainRank(err, args)
	}
	if err == nil && checkEmittedKinds {
		err = verifyEmitted(name, e, in.b.g.Nodes[before:])
	}
	return v, err
}
