package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/databudget"
)

// Program builds a canonical graph from aten operator calls made one at a
// time by a front end that has no TorchScript source to run: the
// torch.export (.pt2) importer. Every call goes through opTable, the same
// table serialized TorchScript code calls, so each aten handler (in any
// ops_<family>.go file) serves both front ends.
//
// Arguments and results are plain Go values: nil (None), int64, float64,
// bool, string, []any (a list), *Tensor and *SymInt. A call returning a
// tuple returns []any.
type Program struct {
	in *evaluator
	// keepSymbolic stops Refine from pinning a symbolic size to the size
	// the program records: set when the caller made a size symbolic that
	// the program was exported with fixed (SetGeneralized).
	keepSymbolic bool
}

// SetGeneralized tells the program that an input size it records as fixed
// was made symbolic, so the sizes it records downstream are those of one
// example and inference decides instead.
func (p *Program) SetGeneralized() { p.keepSymbolic = true }

// Tensor is a tensor value of a Program.
type Tensor struct{ v *tensorVal }

// SymInt is an int known only at run time (a symbolic size, such as the
// batch dimension of an input); Sym names it ("s0").
type SymInt struct{ d *dynInt }

// Sym is the dimension the run-time int measures.
func (s *SymInt) Sym() string { return s.d.sym }

// NewProgram starts an empty graph. inputBytes is the size of the file
// read: constants the calls make are bounded by it, as in every reader.
func NewProgram(path string, inputBytes int64) *Program {
	a := &archive{path: path, counted: map[string]bool{}, data: databudget.ForInput(inputBytes)}
	return &Program{in: &evaluator{b: newBuilder(a)}}
}

// Input declares a graph input of dtype dt and shape dims (unknown sizes
// carry their symbol in Dim.Param).
func (p *Program) Input(name string, dt canon.DType, dims []canon.Dim) *Tensor {
	b := p.in.b
	vi := canon.ValueInfo{Name: b.unique(name), DType: dt, Shape: append([]canon.Dim(nil), dims...), RankKnown: true}
	b.g.Inputs = append(b.g.Inputs, vi)
	b.vals[vi.Name] = vi
	return &Tensor{v: &tensorVal{name: vi.Name, info: vi}}
}

// Weight adds t (named by its module path) as an initializer. The caller
// adds each weight once, on first use, so unused ones stay out of the graph.
func (p *Program) Weight(t *canon.Tensor) *Tensor {
	b := p.in.b
	init := *t
	init.Name = b.unique(t.Name)
	b.g.Initializers = append(b.g.Initializers, &init)
	vi := canon.ValueInfo{Name: init.Name, DType: init.DType, Shape: canon.DimsOf(init.Shape...), RankKnown: true, Const: &init}
	b.vals[init.Name] = vi
	return &Tensor{v: &tensorVal{name: init.Name, info: vi}}
}

// Info is the inferred type of t.
func (p *Program) Info(t *Tensor) canon.ValueInfo { return p.in.b.info(t.v) }

// Refine fills the unknown sizes of t's shape from dims, the shape the
// producer recorded (a size it knew, or the symbol of one it did not),
// when inference left them open. A rank or known size that disagrees is an
// error.
func (p *Program) Refine(t *Tensor, dims []canon.Dim) error {
	b := p.in.b
	if t.v.name == "" {
		return nil
	}
	if b.isComplex(t.v) {
		// The program records a complex tensor's own shape; its pairs add
		// an axis of 2.
		dims = append(append([]canon.Dim(nil), dims...), canon.Dim{Size: 2})
	}
	vi := b.vals[t.v.name]
	if !vi.RankKnown {
		vi.Shape, vi.RankKnown = append([]canon.Dim(nil), dims...), true
	} else {
		if len(vi.Shape) != len(dims) {
			return fmt.Errorf("inferred rank %d, but the program records rank %d", len(vi.Shape), len(dims))
		}
		vi.Shape = append([]canon.Dim(nil), vi.Shape...)
		for i, d := range dims {
			switch {
			case !vi.Shape[i].Known():
				if p.keepSymbolic && d.Known() && vi.Shape[i].Param != "" {
					break // the recorded size is the example's
				}
				if d.Known() || d.Param != "" || vi.Shape[i].Param == "" {
					vi.Shape[i] = d
				}
			case d.Known() && d.Size != vi.Shape[i].Size:
				return fmt.Errorf("inferred size %d for dimension %d, but the program records %d", vi.Shape[i].Size, i, d.Size)
			}
		}
	}
	b.vals[t.v.name] = vi
	t.v.info = vi
	syms := make([]string, len(dims))
	named := false
	for i, d := range dims {
		if !d.Known() && d.Param != "" {
			syms[i], named = d.Param, true
		}
	}
	if named {
		b.syms[t.v.name] = syms
	}
	return nil
}

// Has reports whether op (a TorchScript name such as "torch.conv2d") has a
// handler.
func (p *Program) Has(op string) bool {
	_, ok := opTable[op]
	return ok
}

// Call runs operator op on args and kwargs; scope prefixes the names of
// the nodes it emits (a module path).
func (p *Program) Call(op, scope string, args []any, kwargs map[string]any) (any, error) {
	vargs := make([]value, len(args))
	for i, a := range args {
		v, err := toValue(a)
		if err != nil {
			return nil, fmt.Errorf("%s: argument %d: %w", op, i, err)
		}
		vargs[i] = v
	}
	var vkw map[string]value
	if len(kwargs) > 0 {
		vkw = map[string]value{}
		for k, a := range kwargs {
			v, err := toValue(a)
			if err != nil {
				return nil, fmt.Errorf("%s: argument %s: %w", op, k, err)
			}
			vkw[k] = v
		}
	}
	e, ok := opTable[op]
	if !ok {
		return nil, fmt.Errorf("operator %s has no handler", op)
	}
	out, err := p.in.callOp(e, op, scope, vargs, vkw)
	if err != nil {
		return nil, err
	}
	return fromValue(out)
}

// SymArith applies + - * // to ints, either of which may be known only at
// run time; a run-time result is computed by graph nodes.
func (p *Program) SymArith(op string, a, b any) (any, error) {
	va, err := toValue(a)
	if err != nil {
		return nil, err
	}
	vb, err := toValue(b)
	if err != nil {
		return nil, err
	}
	da, dynA := va.(*dynInt)
	db, dynB := vb.(*dynInt)
	if !dynA && !dynB {
		r, err := binaryScalar(op, va, vb)
		if err != nil {
			return nil, err
		}
		return fromValue(r)
	}
	var fn canon.BinaryFn
	switch op {
	case "+":
		fn = canon.Add
	case "-":
		fn = canon.Sub
	case "*":
		fn = canon.Mul
	default:
		return nil, fmt.Errorf("operator %s on a size known only at run time is not supported", op)
	}
	operand := func(d *dynInt, v value) (*tensorVal, string, error) {
		if d != nil {
			return d.t, d.sym, nil
		}
		n, ok := toInt(v)
		if !ok {
			return nil, "", fmt.Errorf("operator %s on a %s and a run-time int is not supported", op, typeName(v))
		}
		return &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{n})}, fmt.Sprint(n), nil
	}
	ta, sa, err := operand(da, va)
	if err != nil {
		return nil, err
	}
	tb, sb, err := operand(db, vb)
	if err != nil {
		return nil, err
	}
	t, err := p.in.b.emit1("", &canon.Binary{Fn: fn}, ta, tb)
	if err != nil {
		return nil, err
	}
	return &SymInt{d: &dynInt{t: t, sym: "(" + sa + op + sb + ")"}}, nil
}

// Finish makes outputs the graph outputs ("output", or "output_0", ...)
// and returns the graph, named name, with its weights in the layouts
// their consumers need. The caller validates it.
func (p *Program) Finish(name string, outputs []*Tensor) (*canon.Graph, error) {
	b := p.in.b
	outs := make([]*tensorVal, len(outputs))
	for i, t := range outputs {
		outs[i] = t.v
	}
	if err := b.setOutputs(outs); err != nil {
		return nil, err
	}
	g := b.g
	g.Name = name
	canon.AssignLayouts(g)
	return g, nil
}

// toValue converts a Program argument into an evaluator value.
func toValue(a any) (value, error) {
	switch x := a.(type) {
	case nil:
		return noneVal{}, nil
	case int64, float64, bool, string:
		return x, nil
	case int:
		return int64(x), nil
	case *Tensor:
		if x == nil || x.v == nil {
			return nil, fmt.Errorf("internal error: empty tensor")
		}
		return x.v, nil
	case *SymInt:
		return x.d, nil
	case []any:
		l := &listVal{items: make([]value, len(x))}
		for i, it := range x {
			v, err := toValue(it)
			if err != nil {
				return nil, err
			}
			l.items[i] = v
		}
		return l, nil
	}
	return nil, fmt.Errorf("internal error: argument of Go type %T", a)
}

// fromValue converts an operator's result back into a Program value.
func fromValue(v value) (any, error) {
	switch x := v.(type) {
	case noneVal:
		return nil, nil
	case int64, float64, bool, string:
		return x, nil
	case *tensorVal:
		return &Tensor{v: x}, nil
	case *dynInt:
		return &SymInt{d: x}, nil
	case *listVal, *tupleVal:
		items, _ := listItems(x)
		out := make([]any, len(items))
		for i, it := range items {
			r, err := fromValue(it)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return nil, fmt.Errorf("the operator returned a %s, which is not a tensor, number or list", typeName(v))
}
