// Package interp is modelbridge's reference interpreter: it runs any
// canonical graph on the CPU with every dtype carried natively: float32,
// float64 computed in float64 (kernels with float32 loops only refuse it:
// see each kernel's entry in the table), float16 and bfloat16 computed in float32 and rounded as
// ONNX Runtime and PyTorch round them, and integers exact in int64 storage,
// wrapping at their width (see dtypes.go). It is the
// ground truth that importers, optimizer passes and exporters are checked
// against, so correctness comes first; convolutions and matrix products use
// im2col and the package's own packed, vectorized GEMM (gonum's blas32 only
// where no vector kernel applies) so real models run in reasonable time.
package interp

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/panicerr"
)

// Program is a graph planned for execution: constants are decoded once and
// every value's last consumer is known, so intermediate buffers return to a
// pool as soon as they are dead and later nodes reuse them.
//
// A Program is not safe for concurrent use: Run may be called many times,
// but from one goroutine at a time. The graph must stay open (not Closed)
// while the Program is used, since constants may alias its tensor data.
type Program struct {
	// lent is what the last RunInto stored in its caller's map, which the
	// next may overwrite; spare is the list before it, kept for reuse.
	lent, spare []*canon.Tensor
	g           *canon.Graph
	slots       int
	consts      []*tensor // by slot; nil for values computed at run time
	inputs      []inputSlot
	outs        []outputSlot
	steps       []*step
	pool        *pool
	// packedBytes counts the memory held by pre-packed weights, bounded by
	// maxPackedBytes so big models do not keep a second copy of everything.
	packedBytes int64
	// shared, when set, is where decoded and packed weights are shared
	// with other Programs (see NewShared).
	shared *Shared
	// packsB holds the packed right operands made by this Program, so
	// that steps multiplying by one weight matrix (tied weights) share
	// one packed copy.
	packsB map[packBKey]*packedB
	// runs counts calls of Run: weight transforms that only pay back over
	// several runs (Winograd) wait for the second.
	runs int
	// boxes: the graph has sequence or optional values (see values.go).
	boxes bool
	// live: the program runs a subgraph, and hands its sequences and
	// optionals to the node that runs it as they are (see liveValue).
	live bool
	// borrowed marks, by slot, the tensor inputs the caller lends without
	// a copy (see borrow.go); nil when the program copies its inputs.
	borrowed []bool
}

// maxPackedBytes bounds the pre-packed weight copies of one Program; past
// it, weights are packed on every call as other matrices are.
const maxPackedBytes = 256 << 20

type inputSlot struct {
	info  canon.ValueInfo
	slot  int
	deflt *canon.Tensor // an initializer of the same name, used when the input is not given
}

type outputSlot struct {
	name string
	dt   canon.DType
	slot int
}

// step is one node ready to run.
type step struct {
	node *canon.Node
	in   []int // slot per input; -1 for an absent optional input
	out  []int // slot per output; -1 for an unused output
	// owned[k] reports that input k is dead after this step and the step
	// may take over (and overwrite) its buffer.
	owned []bool
	// release lists the slots whose last use is this step.
	release []int
	run     kernel
	// packed caches the weight matrices of a constant input, packed for
	// the GEMM kernel on first use (one per group).
	packed []*packedA
	// wino caches a 3×3 convolution's Winograd-transformed weights.
	wino []*packedA
	// crop caches a convolution's window cut to the taps that reach its
	// input.
	crop *convCrop
	// taps caches a dilated convolution's weights split by tap, for
	// windows whose taps mostly read padding (conv_taps.go).
	taps *convTaps
	// finite remembers whether a constant weight input is all finite.
	finite *finiteMemo
	// packedB caches a constant right operand (a MatMul's, each direction's
	// input weights of a recurrent op), packed.
	packedB []*packedB
	// packedR caches a recurrent op's constant R as GEMV panels (gate
	// groups of each direction).
	packedR []*gatePanels
	// f64 is how the kernel meets float64 inputs; outDT is each output's
	// declared dtype (Undefined when the graph does not say).
	f64   f64Mode
	outDT []canon.DType
	// strings: the kernel takes string inputs (canon.TakesStrings);
	// movesStrings: it moves them as positions (strings_moved.go).
	strings, movesStrings bool
}

// kernel executes one node: it reads x.in(k) and sets x.set(k, ...).
type kernel func(x *exec) error

// New plans the execution of g, which must be a valid graph: one that
// passed g.Validate(), as every graph formats.Read returns has. New does not
// validate again (that runs full shape inference and completes g's
// declarations): it trusts canon for input and output counts, attribute
// values and weight layouts. Given an invalid graph, New and Run return an
// error or a meaningless result, but do not panic.
func New(g *canon.Graph) (*Program, error) { return NewWithShared(g, nil) }

// NewWithShared is New, sharing decoded and packed weights through sh
// (when not nil) with the other Programs that use it.
func NewWithShared(g *canon.Graph, sh *Shared) (p *Program, err error) {
	if g == nil {
		return nil, fmt.Errorf("interp: nil graph")
	}
	// An op value that is not what its kind says (a nil *canon.Binary, a
	// foreign type reusing a canonical kind name) panics in Kind or in a
	// kernel builder; that is a bad graph, not a crash.
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("interp: graph %q is not a valid canonical graph (%v); check it with Validate", g.Name, r)
		}
	}()
	g = expandForFloat64(g)
	p = &Program{g: g, pool: sh.newPool(), shared: sh, boxes: hasBoxedValues(g)}
	ids := map[string]int{}
	slotOf := func(name string) int {
		if id, ok := ids[name]; ok {
			return id
		}
		ids[name] = p.slots
		p.slots++
		p.consts = append(p.consts, nil)
		return p.slots - 1
	}
	inits := g.InitializerIndex()
	isInput := map[string]bool{}
	for _, in := range g.Inputs {
		if isInput[in.Name] {
			return nil, fmt.Errorf("graph input %q is listed twice", in.Name)
		}
		isInput[in.Name] = true
		p.inputs = append(p.inputs, inputSlot{info: in, slot: slotOf(in.Name), deflt: inits[in.Name]})
	}
	for _, t := range g.Initializers {
		if isInput[t.Name] {
			continue // an input with a default; the caller may override it
		}
		ct, err := p.constant(t)
		if err != nil {
			return nil, fmt.Errorf("initializer %q: %v", t.Name, err)
		}
		p.consts[slotOf(t.Name)] = ct
	}
	defined := map[string]bool{}
	for name := range ids {
		defined[name] = true
	}
	for i, n := range g.Nodes {
		if n == nil || n.Op == nil {
			return nil, fmt.Errorf("node %d: missing op", i)
		}
		s := &step{node: n}
		for k, in := range n.Inputs {
			if in == "" {
				s.in = append(s.in, -1)
				continue
			}
			if !defined[in] {
				return nil, fmt.Errorf("%s: input %d %q is not defined by an earlier node, a graph input or an initializer", nodeName(n), k, in)
			}
			s.in = append(s.in, slotOf(in))
		}
		for _, o := range n.Outputs {
			if o == "" {
				s.out = append(s.out, -1)
				continue
			}
			if defined[o] {
				return nil, fmt.Errorf("%s: output %q is defined twice", nodeName(n), o)
			}
			defined[o] = true
			s.out = append(s.out, slotOf(o))
		}
		run, err := compile(n)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", nodeName(n), err)
		}
		s.run = p.boxedAware(n, run)
		s.f64, s.outDT = kernels[n.Op.Kind()].f64, declaredDTypes(g, n)
		s.strings = canon.TakesStrings(n.Op.Kind())
		s.movesStrings = s.strings && movesStrings[n.Op.Kind()]
		p.steps = append(p.steps, s)
	}
	keep := make([]bool, p.slots) // graph outputs are never released
	for _, o := range g.Outputs {
		if !defined[o.Name] {
			return nil, fmt.Errorf("graph output %q is not computed by any node", o.Name)
		}
		p.outs = append(p.outs, outputSlot{name: o.Name, dt: o.DType, slot: ids[o.Name]})
		keep[ids[o.Name]] = true
	}
	// Constant nodes are evaluated once, here.
	for _, s := range p.steps {
		if c, ok := s.node.Op.(*canon.Constant); ok && s.out[0] >= 0 {
			if c.Value == nil {
				return nil, fmt.Errorf("%s: no value", nodeName(s.node))
			}
			t, err := p.constant(c.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", nodeName(s.node), err)
			}
			p.consts[s.out[0]] = t
		}
	}
	p.fuseConvEpilogues(keep)
	p.fuseGates(keep)
	p.fuseLayerNorms(keep)
	p.fuseMatMulWeights(keep)
	p.fuseAttention(keep)
	p.fuseViewChains(keep)
	keep = append(keep, make([]bool, p.slots-len(keep))...)
	last := make([]int, p.slots)
	for i := range last {
		last[i] = -1
	}
	for i, s := range p.steps {
		for _, id := range s.in {
			if id >= 0 {
				last[id] = i
			}
		}
	}
	for i, s := range p.steps {
		s.owned = make([]bool, len(s.in))
		for k, id := range s.in {
			if id < 0 || last[id] != i || keep[id] || p.consts[id] != nil {
				continue
			}
			n := 0
			for _, id2 := range s.in {
				if id2 == id {
					n++
				}
			}
			s.owned[k] = n == 1 // a value read twice by one node is not overwritten
			if !contains(s.release, id) {
				s.release = append(s.release, id)
			}
		}
		// Outputs nobody reads die at once.
		for _, id := range s.out {
			if id >= 0 && last[id] < 0 && !keep[id] {
				s.release = append(s.release, id)
			}
		}
	}
	p.borrowInputs()
	return p, nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func nodeName(n *canon.Node) string {
	kind := "?"
	if n.Op != nil {
		kind = n.Op.Kind()
	}
	return fmt.Sprintf("node %q (%s)", n.Name, kind)
}

// Run executes g once on inputs; see Program.Run.
func Run(g *canon.Graph, inputs map[string]*canon.Tensor) (map[string]*canon.Tensor, error) {
	p, err := New(g)
	if err != nil {
		return nil, err
	}
	return p.Run(inputs)
}

// Run executes the program. inputs are keyed by graph input name and must
// match the declared dtype and shape (unknown dimensions accept any size).
// The result maps each graph output name to a tensor of the declared dtype.
// stepHook, when set (by BenchmarkLayerTimes), is told how long each
// step took.
var stepHook func(x *exec, d time.Duration)

func (p *Program) Run(inputs map[string]*canon.Tensor) (map[string]*canon.Tensor, error) {
	out := make(map[string]*canon.Tensor, len(p.outs))
	if err := p.run(inputs, out, false); err != nil {
		return nil, err
	}
	return out, nil
}

// RunInto is Run storing each output into outs[name]. A tensor found
// there that the previous RunInto of this Program stored, of the output's
// dtype and size, is overwritten in place (its data and shape), so that
// repeated runs (calibration, benchmarks, a stream of inputs) make no
// garbage of their outputs; any other entry is replaced by a new tensor.
// A caller that keeps a result past the next RunInto must copy it.
func (p *Program) RunInto(inputs map[string]*canon.Tensor, outs map[string]*canon.Tensor) error {
	return p.run(inputs, outs, true)
}

// run executes the program and stores its tensor outputs in outs: with
// reuse (RunInto), into the tensors the previous RunInto lent there, which
// the next may overwrite; without (Run), in new tensors that stay the
// caller's.
func (p *Program) run(inputs map[string]*canon.Tensor, outs map[string]*canon.Tensor, reuse bool) error {
	vals, boxed, err := p.execute(inputs, nil)
	defer p.recycle(vals)
	if err != nil {
		return err
	}
	lent, next := p.lent, p.spare[:0]
	if reuse {
		defer func() { p.lent, p.spare = next, lent }()
	}
	for _, o := range p.outs {
		if boxed != nil && boxed[o.slot] != nil {
			return fmt.Errorf("graph output %q is a %s: run the graph with RunValues", o.name, kindOf(boxed[o.slot]))
		}
		var into *canon.Tensor
		if prev := outs[o.name]; reuse && prev != nil && slices.Contains(lent, prev) && !slices.Contains(next, prev) {
			into = prev
		}
		ct, err := p.outputTensorInto(o, vals[o.slot], into)
		if err != nil {
			return err
		}
		outs[o.name] = ct
		if reuse {
			next = append(next, ct)
		}
	}
	return nil
}

// recycle returns a run's buffers to the pool.
func (p *Program) recycle(vals []*tensor) {
	for id, t := range vals {
		if t != nil && p.consts[id] == nil && (p.borrowed == nil || !p.borrowed[id]) {
			p.pool.put(t)
		}
	}
}

// outputTensor converts graph output o, charging the memory budget.
func (p *Program) outputTensor(o outputSlot, t *tensor) (*canon.Tensor, error) {
	return p.outputTensorInto(o, t, nil)
}

// outputTensorInto is outputTensor writing into reuse where it fits
// (toCanonInto).
func (p *Program) outputTensorInto(o outputSlot, t *tensor, reuse *canon.Tensor) (*canon.Tensor, error) {
	if t == nil {
		return nil, fmt.Errorf("graph output %q was not computed", o.name)
	}
	n := int64(t.size()) * int64(o.dt.Size())
	if t.dt == canon.String {
		n = stringBytes(t.s)
	}
	if err := p.pool.budget.tryCharge(fmt.Sprintf("output %q", o.name), n); err != nil {
		return nil, err
	}
	p.pool.outBytes += n
	return toCanonInto(t, o.name, o.dt, reuse)
}

// execute runs the steps on the inputs (tensors in inputs, sequences and
// optionals in others) and returns every slot's value: tensors in vals,
// the other values in boxed (nil when the program has none).
func (p *Program) execute(inputs map[string]*canon.Tensor, others map[string]canon.Value) (vals []*tensor, boxed []any, err error) {
	p.pool.newRun()
	p.runs++
	vals = make([]*tensor, p.slots)
	copy(vals, p.consts)
	if p.boxes {
		boxed = make([]any, p.slots)
	}
	for name := range inputs {
		if !p.hasInput(name) {
			return vals, nil, fmt.Errorf("input %q: the graph has no such input (inputs: %s)", name, p.inputNames())
		}
	}
	for name := range others {
		if !p.hasInput(name) {
			return vals, nil, fmt.Errorf("input %q: the graph has no such input (inputs: %s)", name, p.inputNames())
		}
	}
	for _, in := range p.inputs {
		if !in.info.IsTensor() {
			v, err := p.inputValue(in, others[in.info.Name])
			if err != nil {
				return vals, nil, err
			}
			boxed[in.slot] = v
			continue
		}
		if t := p.lentTensor(in.slot, others[in.info.Name]); t != nil {
			vals[in.slot] = t
			continue
		}
		ct := inputs[in.info.Name]
		if ct == nil {
			if v, ok := others[in.info.Name].(*canon.Tensor); ok {
				ct = v
			}
		}
		if ct == nil {
			ct = in.deflt
		}
		if ct == nil {
			return vals, nil, fmt.Errorf("input %q: missing (want %s%s)", in.info.Name, in.info.DType, fmtDims(in.info))
		}
		if err := checkInput(in.info, ct); err != nil {
			return vals, nil, err
		}
		t, err := p.inputTensor(in.info.Name, ct)
		if err != nil {
			return vals, nil, err
		}
		vals[in.slot] = t
	}
	x := &exec{p: p, vals: vals, boxed: boxed}
	for _, s := range p.steps {
		if _, ok := s.node.Op.(*canon.Constant); ok {
			continue
		}
		x.s = s
		var t0 time.Time
		if stepHook != nil {
			t0 = time.Now()
		}
		if err := x.runStep(); err != nil {
			return vals, nil, err
		}
		if stepHook != nil {
			stepHook(x, time.Since(t0))
		}
		for _, id := range s.release {
			if vals[id] != nil {
				p.pool.put(vals[id])
				vals[id] = nil
			}
			if boxed != nil {
				boxed[id] = nil
			}
		}
	}
	p.pool.dropSpare()
	return vals, boxed, nil
}

func (p *Program) hasInput(name string) bool {
	for _, in := range p.inputs {
		if in.info.Name == name {
			return true
		}
	}
	return false
}

// inputTensor converts an input for one run, charging the memory budget
// until the next run, as outputs count. Inputs are borrowed (borrow.go):
// float32 and other data whose bytes are aligned are read in place.
func (p *Program) inputTensor(name string, ct *canon.Tensor) (*tensor, error) {
	what := fmt.Sprintf("input %q", name)
	if err := p.pool.budget.tryCharge(what, inputBytes(ct)); err != nil {
		return nil, err
	}
	p.pool.outBytes += inputBytes(ct)
	t, err := fromCanon(ct, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	return t, nil
}

func (x *exec) runStep() (err error) {
	defer func() {
		if r := recover(); r != nil {
			if lim, ok := r.(*limitError); ok {
				err = fmt.Errorf("%s: %v", nodeName(x.s.node), lim)
				return
			}
			if mem, ok := r.(*memoryError); ok {
				err = fmt.Errorf("%s: %w", nodeName(x.s.node), mem)
				return
			}
			// Last line of defence: kernels check their inputs, so a panic
			// here is a bug; report it against the node rather than crash.
			err = panicerr.New(nodeName(x.s.node), r)
		}
	}()
	for k, id := range x.s.in {
		if id >= 0 && x.vals[id] == nil && (x.boxed == nil || x.boxed[id] == nil) {
			return fmt.Errorf("%s: input %q has no value", nodeName(x.s.node), x.s.node.Inputs[k])
		}
		if id >= 0 && x.vals[id] != nil && x.vals[id].dt == canon.String && !x.s.strings {
			return fmt.Errorf("%s: input %q is a string tensor, which the interpreter's %s does not take", nodeName(x.s.node), x.s.node.Inputs[k], x.s.node.Op.Kind())
		}
	}
	if err := x.adaptInputs(); err != nil {
		return fmt.Errorf("%s: %v", nodeName(x.s.node), err)
	}
	var pool []string
	var positions []*tensor
	if x.s.movesStrings {
		pool, positions = x.stringsToPositions()
	}
	err = x.s.run(x)
	x.adapted = nil
	if positions != nil {
		x.positionsToStrings(pool, positions)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", nodeName(x.s.node), err)
	}
	x.fixOutputs()
	return nil
}

func (p *Program) inputNames() string {
	var names []string
	for _, in := range p.inputs {
		names = append(names, fmt.Sprintf("%q", in.info.Name))
	}
	return strings.Join(names, ", ")
}

func fmtDims(v canon.ValueInfo) string {
	if !v.RankKnown {
		return "[?]"
	}
	parts := make([]string, len(v.Shape))
	for i, d := range v.Shape {
		switch {
		case d.Known():
			parts[i] = fmt.Sprint(d.Size)
		case d.Param != "":
			parts[i] = d.Param
		default:
			parts[i] = "?"
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func checkInput(info canon.ValueInfo, ct *canon.Tensor) error {
	if info.DType != canon.Undefined && ct.DType != info.DType {
		return fmt.Errorf("input %q: dtype %s expected, got %s (save the input as %s)", info.Name, info.DType, ct.DType, info.DType)
	}
	if err := ct.CheckData(); err != nil {
		return fmt.Errorf("input %q: %v", info.Name, err)
	}
	if !info.RankKnown {
		return nil
	}
	ok := len(ct.Shape) == len(info.Shape)
	for i := 0; ok && i < len(ct.Shape); i++ {
		ok = !info.Shape[i].Known() || info.Shape[i].Size == ct.Shape[i]
	}
	if !ok {
		return fmt.Errorf("input %q: shape %s expected, got %v", info.Name, fmtDims(info), ct.Shape)
	}
	return nil
}

// exec is the state of one Run.
type exec struct {
	p    *Program
	vals []*tensor
	// boxed holds the slots' sequences and optionals (see values.go); nil
	// in a program without them.
	boxed []any
	s     *step
	// adapted holds the step's inputs as a kernel without float64 code
	// sees them (see adaptInputs); nil when the kernel reads vals itself.
	adapted []*tensor
	// inFloat is the dtype of the step's first floating input (Float32
	// when it has none).
	inFloat canon.DType
}

// in returns input k, or nil when the optional input is absent.
func (x *exec) in(k int) *tensor {
	if k >= len(x.s.in) || x.s.in[k] < 0 {
		return nil
	}
	if x.adapted != nil {
		return x.adapted[k]
	}
	return x.vals[x.s.in[k]]
}

// take returns input k if this step may overwrite it (it is dead
// afterwards), detaching it from its slot; otherwise nil.
func (x *exec) take(k int) *tensor {
	if k >= len(x.s.in) || !x.s.owned[k] {
		return nil
	}
	if x.adapted != nil {
		return x.takeAdapted(k)
	}
	t := x.vals[x.s.in[k]]
	x.vals[x.s.in[k]] = nil
	return t
}

// nout is the number of output slots the node lists.
func (x *exec) nout() int { return len(x.s.out) }

// set stores output k; an unused output is returned to the pool.
func (x *exec) set(k int, t *tensor) {
	if k >= len(x.s.out) || x.s.out[k] < 0 {
		x.p.pool.put(t)
		return
	}
	x.vals[x.s.out[k]] = t
}

// MaxTensorBytes bounds a single tensor the interpreter creates. A model
// whose shapes come from its inputs or parameters (a Resize by 1e6, a Pad
// of 2^40) could otherwise ask for terabytes and kill the process.
var MaxTensorBytes int64 = 16 << 30

// limitError is raised (as a panic, caught by runStep) when a tensor would
// exceed MaxTensorBytes.
type limitError struct {
	shape []int
	bytes int64
}

func (e *limitError) Error() string {
	return fmt.Sprintf("output of shape %v needs %.1f GiB, more than the interpreter's limit of %.0f GiB per tensor; check the input shapes and the op's parameters",
		e.shape, float64(e.bytes)/(1<<30), float64(MaxTensorBytes)/(1<<30))
}

// checkedNumel is numel with overflow and MaxTensorBytes checks, for
// elements of elemSize bytes.
func checkedNumel(shape []int, elemSize int64) int {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			panic(&limitError{shape: shape, bytes: math.MaxInt64})
		}
		if d != 0 && n > math.MaxInt64/int64(d) {
			panic(&limitError{shape: shape, bytes: math.MaxInt64})
		}
		n *= int64(d)
	}
	if n > MaxTensorBytes/elemSize {
		panic(&limitError{shape: shape, bytes: n * elemSize})
	}
	return int(n)
}

// newF returns a float tensor of the given shape with unspecified content.
func (x *exec) newF(shape []int) *tensor {
	return &tensor{dt: canon.Float32, shape: shape, f: x.p.pool.getF(checkedNumel(shape, 4))}
}

// newZF returns a zero-filled float tensor.
func (x *exec) newZF(shape []int) *tensor {
	t := x.newF(shape)
	clear(t.f)
	return t
}

// newI returns an int64-stored tensor of dtype dt.
func (x *exec) newI(dt canon.DType, shape []int) *tensor {
	return &tensor{dt: dt, shape: shape, i: x.p.pool.getI(checkedNumel(shape, 8))}
}

// newD returns a float64 tensor with unspecified content.
func (x *exec) newD(shape []int) *tensor {
	return &tensor{dt: canon.Float64, shape: shape, d: x.p.pool.getD(checkedNumel(shape, 8))}
}

// newLike returns a tensor with t's storage kind and dtype.
func (x *exec) newLike(t *tensor, shape []int) *tensor {
	switch {
	case t.isFloat():
		return x.newF(shape)
	case t.isF64():
		return x.newD(shape)
	}
	return x.newI(t.dt, shape)
}

// pool recycles buffers by exact length: a model's intermediate values come
// in few distinct sizes, so exact matching reuses nearly everything.
type pool struct {
	f map[int][][]float32
	i map[int][][]int64
	d map[int][][]float64
	// budget is charged for every new buffer (see MaxMemory).
	budget *memBudget
	// outBytes is what the last Run's inputs and outputs hold: outputs
	// belong to the caller, and both count until the next Run.
	outBytes int64
	// spare holds the buffers of a Program that is done (see Done), taken
	// before new ones are made during the first Run and dropped after it;
	// spareBytes is what the budget is charged for them.
	spare      map[int][][]float32
	spareBytes int64
}

func newPool() *pool {
	return &pool{f: map[int][][]float32{}, i: map[int][][]int64{}, d: map[int][][]float64{}, budget: newMemBudget(memoryLimit())}
}

// handOver returns a new pool whose spare buffers are p's free float
// buffers, its budget charged for them.
func (p *pool) handOver() *pool {
	np := newPool()
	np.spare = p.f
	for n, l := range p.f {
		np.spareBytes += int64(n) * 4 * int64(len(l))
	}
	np.budget.used = np.spareBytes
	return np
}

// dropSpare lets go of the spare buffers no Run has taken.
func (p *pool) dropSpare() {
	p.budget.used -= p.spareBytes
	p.spare, p.spareBytes = nil, 0
}

func (p *pool) getD(n int) []float64 {
	if l := p.d[n]; len(l) > 0 {
		b := l[len(l)-1]
		p.d[n] = l[:len(l)-1]
		return b
	}
	p.budget.charge("a buffer of "+fmt.Sprint(n)+" doubles", int64(n)*8)
	return make([]float64, n)
}

func (p *pool) getF(n int) []float32 {
	if b, ok := p.takeF(n); ok {
		return b
	}
	p.budget.charge("a buffer of "+fmt.Sprint(n)+" floats", int64(n)*4)
	return make([]float32, n)
}

// takeF returns a free buffer of n floats, or of up to 2n cut to n: a
// buffer one layer has let go serves the next layers of other sizes while
// it is still in cache, where a buffer kept for one size would wait a
// whole run. Buffers are filed by capacity; the smallest that fits wins.
func (p *pool) takeF(n int) ([]float32, bool) {
	if b, ok := takeFit(p.f, n); ok {
		return b, true
	}
	if b, ok := takeFit(p.spare, n); ok {
		p.spareBytes -= int64(cap(b)) * 4 // charged already
		return b, true
	}
	return nil, false
}

// takeFit removes and returns, cut to n, the buffer of least capacity in
// [n, 2n] from free (filed by capacity).
func takeFit(free map[int][][]float32, n int) ([]float32, bool) {
	best := 0
	if len(free[n]) > 0 {
		best = n
	} else {
		for c, l := range free {
			if len(l) > 0 && c > n && c <= 2*n && (best == 0 || c < best) {
				best = c
			}
		}
	}
	if best == 0 {
		return nil, false
	}
	l := free[best]
	b := l[len(l)-1]
	free[best] = l[:len(l)-1]
	return b[:n], true
}

func (p *pool) getI(n int) []int64 {
	if l := p.i[n]; len(l) > 0 {
		b := l[len(l)-1]
		p.i[n] = l[:len(l)-1]
		return b
	}
	p.budget.charge("a buffer of "+fmt.Sprint(n)+" integers", int64(n)*8)
	return make([]int64, n)
}

func (p *pool) put(t *tensor) {
	if t == nil {
		return
	}
	if t.f != nil && len(t.f) > 0 {
		p.f[cap(t.f)] = append(p.f[cap(t.f)], t.f)
	}
	if t.i != nil && len(t.i) > 0 {
		p.i[len(t.i)] = append(p.i[len(t.i)], t.i)
	}
	if t.d != nil && len(t.d) > 0 {
		p.d[len(t.d)] = append(p.d[len(t.d)], t.d)
	}
	if t.sBytes > 0 && p.budget != nil {
		p.budget.used -= t.sBytes
		t.sBytes = 0
	}
	t.f, t.i, t.d, t.s = nil, nil, nil, nil
}

// scratch returns a float buffer of n elements for temporary use; give it
// back with release.
func (x *exec) scratch(n int) []float32 { return x.p.pool.getF(n) }

func (x *exec) release(b []float32) {
	if len(b) > 0 {
		x.p.pool.f[cap(b)] = append(x.p.pool.f[cap(b)], b)
	}
}

// packedWeights returns input k's matrix, one m×kc block per group, packed
// for gemmPacked, when input k is a constant and the packed kernel is in
// use; it returns nil otherwise. The packing is done once per Program.
func (x *exec) packedWeights(k, groups, m, kc int, w []float32) []*packedA {
	if !hasFMA || k >= len(x.s.in) || x.s.in[k] < 0 || x.p.consts[x.s.in[k]] == nil {
		return nil
	}
	if len(x.s.packed) == groups && x.s.packed[0].m == m && x.s.packed[0].k == kc {
		return x.s.packed
	}
	if packed := x.p.sharedPacks(w, groups, m, kc); packed != nil {
		x.s.packed = packed
		return packed
	}
	size := int64(groups) * int64((m+gemmMR-1)/gemmMR*gemmMR) * int64(kc) * 4
	if x.s.packed == nil && x.p.packedBytes+size > maxPackedBytes {
		return nil
	}
	// Packing is an optimization: without room for it, multiply unpacked.
	if x.p.pool.budget.tryCharge("packed weights", size) != nil {
		return nil
	}
	x.p.packedBytes += size
	packed := make([]*packedA, groups)
	for gr := range packed {
		packed[gr] = newPackedA(false, m, kc, 1, w[gr*m*kc:(gr+1)*m*kc], kc)
	}
	x.s.packed = packed
	x.p.storePacks(w, groups, m, kc, packed)
	return packed
}
