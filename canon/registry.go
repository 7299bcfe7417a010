package canon

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
)

// OpDef is everything canon knows about one op kind, stated once: its
// name, how to make one, its traits, how it infers shapes and types, which
// attribute values are nonsense, and a small instance for tests. Backends
// (the interpreter, the cost model, each importer and exporter) keep one
// table keyed by Kind and ask the traits instead of listing kinds.
type OpDef struct {
	// Kind is the name Op.Kind returns for ops of this kind.
	Kind string
	// Summary is one line for `modelbridge ops` and docs/ops.md.
	Summary string
	// New returns an op of this kind with ONNX's defaults applied.
	New func() Op
	// Traits are the properties passes ask about.
	Traits Traits
	// Infer computes the output types from the input types (and constant
	// input values, when known).
	Infer func(c *InferCtx) ([]ValueInfo, error)
	// Check rejects attribute values that make no sense whatever the input
	// shapes; nil when every value is meaningful.
	Check func(c *CheckCtx) error
	// Example is a small instance of the op for tests that walk every op
	// through every backend.
	Example func() Example

	// The slots below are what passes and backends ask about a kind beyond
	// its types (slots.go). A nil function slot is explained in Without.

	// HalfUnsafe says why float16 breaks the op (an accumulation or an
	// exponent beyond float16's range or precision, or parameters ONNX
	// requires in float32); the float16 conversion then keeps it in
	// float32. Empty: the op computes in float16.
	HalfUnsafe string
	// AccumulationLength is the number of products the op sums into each
	// output element (a Conv's input channels × kernel size), for the
	// rounding term of the comparison tolerance. See AccumulationOf.
	AccumulationLength func(n *Node, shapes InputShapes) int64
	// RemapAxes rewrites the op for inputs given in another axis order:
	// see Remap and RemapAxes. Elementwise kinds need none.
	RemapAxes func(n *Node, perm []int64) (Remap, bool)
	// Decompose writes the op as other canonical ops computing the same
	// values (exactly, up to float rounding): the fallback of every
	// exporter whose format lacks the op. See Expander.
	Decompose func(e *Expander) error
	// NoopWhen reports whether node n returns input 0 unchanged as its one
	// output, given its input and output types: such a node can be
	// dropped. Views need none (a view to its input's own shape is one).
	// See IsNoop.
	NoopWhen func(n *Node, in, out []ValueInfo) bool
	// OutputDTypes gives the output dtypes from the input dtypes alone,
	// for writers whose shapes are unknown; nil when Infer answers with
	// input ranks unknown (see InferDTypes).
	OutputDTypes func(n *Node, in []DType) ([]DType, error)
	// Without says why a nil slot is nil.
	Without Without

	// opType is the Go type New returns: an op claiming this kind with
	// another type is not this kind.
	opType reflect.Type
}

// Traits are an op kind's properties that passes and backends query
// instead of listing kinds.
type Traits struct {
	// Elementwise: each output element depends only on the input elements
	// at the same (broadcast) position, and the output has the shape of the
	// broadcast inputs. Transposes commute with such an op.
	Elementwise bool
	// Broadcasts: the inputs broadcast against each other NumPy-style.
	Broadcasts bool
	// View: the output holds the input's elements in the same order, only
	// the shape changes (Reshape, Flatten, Squeeze, Unsqueeze, Identity).
	// Such an op moves no data.
	View bool
	// MathCost is the work per output element of an elementwise op, in
	// multiply-add equivalents (exp, tanh and erf count as several).
	MathCost float64
	// InferenceIdentity: output 0 is input 0 at inference (Identity,
	// Dropout); the other outputs, if any, are extras nothing may read.
	InferenceIdentity bool
	// Affine: an affine map of input 0 (per channel or per element) that
	// the convolution or matrix product before it can absorb when the
	// other inputs are constants (BatchNormalization, Add, Sub, Mul, Div).
	Affine bool
	// Nondeterministic: the outputs are random draws, so two runs (or two
	// nodes with equal inputs and attributes) give different values. Passes
	// never fold such a node into a constant nor merge two of them, and
	// comparisons (`check`, the optimizer's verification) compare what
	// they feed by shape and dtype, not element by element.
	Nondeterministic bool
	// Family groups kinds that compute the same function spelled
	// differently by different frameworks ("matmul": Linear and MatMul),
	// so that layer-by-layer comparison pairs them; empty: the kind alone.
	Family string
}

// Example is a small instance of an op kind: the op, and one entry per
// input slot. An entry with Const set is an initializer; one without is a
// graph input of that type. An empty entry (DType Undefined) leaves an
// optional input absent.
type Example struct {
	Op     Op
	Inputs []ExampleInput
	// Outputs is the number of outputs to give the node (default 1).
	Outputs int
}

// ExampleInput is one input of an Example.
type ExampleInput struct {
	DType DType
	Shape []int64
	// Const is the value when the input is a constant (a weight or a
	// parameter); its name is filled in by ExampleGraph.
	Const *Tensor
	// Kind makes a graph input a sequence or an optional of tensors of
	// DType and Shape (a tensor by default).
	Kind ValueKind
}

var (
	registryMu sync.RWMutex
	registry   = map[string]*OpDef{}
)

// Register adds an op kind. It panics on an empty or duplicate kind, or a
// definition without New or Infer: those are programming errors.
func Register(d *OpDef) {
	if d.Kind == "" || d.New == nil || d.Infer == nil {
		panic("canon: op definition needs Kind, New and Infer")
	}
	d.opType = reflect.TypeOf(d.New())
	registryMu.Lock()
	defer registryMu.Unlock()
	if registry[d.Kind] != nil {
		panic("canon: op kind " + d.Kind + " registered twice")
	}
	registry[d.Kind] = d
}

// Unregister removes an op kind; tests use it to undo a Register.
func Unregister(kind string) {
	registryMu.Lock()
	defer registryMu.Unlock()
	delete(registry, kind)
}

// Ops lists every registered op kind, sorted by kind.
func Ops() []*OpDef {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]*OpDef, 0, len(registry))
	for _, d := range registry {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out
}

// Lookup returns the definition of an op kind, or nil.
func Lookup(kind string) *OpDef {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return registry[kind]
}

// DefOf returns the definition of op's kind, or nil for an op that is nil
// or of no registered kind.
func DefOf(op Op) *OpDef {
	if isNilOp(op) {
		return nil
	}
	d := Lookup(opKind(op))
	if d == nil || reflect.TypeOf(op) != d.opType {
		return nil
	}
	return d
}

// TraitsOf returns the traits of op's kind (zero for an unknown kind).
func TraitsOf(op Op) Traits {
	if d := DefOf(op); d != nil {
		return d.Traits
	}
	return Traits{}
}

// IsElementwise reports whether op is an elementwise op.
func IsElementwise(op Op) bool { return TraitsOf(op).Elementwise }

// IsView reports whether op only reinterprets its input's shape.
func IsView(op Op) bool { return TraitsOf(op).View }

// ParamInputs lists the input slots of op that may carry, at run time, a
// parameter otherwise given as an attribute (Reshape's shape, Slice's
// starts, Clip's bounds...).
func ParamInputs(op Op) []int {
	var out []int
	for i, s := range op.Signature().Inputs {
		if s.Param {
			out = append(out, i)
		}
	}
	return out
}

// HasRuntimeParams reports whether node n takes any of its op's parameters
// as a run-time input rather than an attribute.
func HasRuntimeParams(n *Node) bool {
	for _, i := range ParamInputs(n.Op) {
		if hasInput(n, i) {
			return true
		}
	}
	return false
}

// ParamAttr is implemented by ops whose parameters may arrive as run-time
// inputs: AttrGiven reports whether the attribute standing for input slot
// i is set, which validation forbids together with the input.
type ParamAttr interface {
	AttrGiven(slot int) (name string, given bool)
}

// ---- Coverage: what a backend does with each op kind ----

// Support is one backend's entry for one op kind.
type Support struct {
	// Handled is true when the backend reads, writes or runs the op.
	Handled bool `json:"handled"`
	// Reason says why not, when Handled is false ("MXNet has no Einsum").
	Reason string `json:"reason,omitempty"`
	// Detail qualifies a handled op: the ONNX opsets that express it, an
	// expansion into other ops, a mode it does not cover.
	Detail string `json:"detail,omitempty"`
	// MinOpset and MaxOpset bound the ONNX opsets, for ONNX backends (0:
	// no bound).
	MinOpset int `json:"min_opset,omitempty"`
	MaxOpset int `json:"max_opset,omitempty"`
}

// Coverage maps op kinds to one backend's support. A kind missing from a
// backend's Coverage is a gap: the backend neither handles it nor says why.
type Coverage map[string]Support

// Handles is the Support of an op a backend handles, with a detail.
func Handles(detail string) Support { return Support{Handled: true, Detail: detail} }

// Lacks is the Support of an op a backend cannot express, with the reason.
func Lacks(reason string) Support { return Support{Reason: reason} }

// Gap is an op kind that a backend neither handles nor declares it cannot.
type Gap struct {
	Backend string
	Kind    string
}

func (g Gap) String() string {
	return fmt.Sprintf("%s: op %s is neither handled nor declared unsupported (add it to the backend's op table, or say why it cannot be)", g.Backend, g.Kind)
}

// Gaps lists, for every registered op kind, each backend whose coverage
// lacks it, and each declared-unsupported entry that gives no reason.
func Gaps(backends map[string]Coverage) []Gap {
	var gaps []Gap
	names := make([]string, 0, len(backends))
	for b := range backends {
		names = append(names, b)
	}
	sort.Strings(names)
	for _, d := range Ops() {
		for _, b := range names {
			s, ok := backends[b][d.Kind]
			if !ok || (!s.Handled && s.Reason == "") {
				gaps = append(gaps, Gap{Backend: b, Kind: d.Kind})
			}
		}
	}
	return gaps
}
