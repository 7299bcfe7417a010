package tfliteexport

import (
	"fmt"
	"strconv"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// nhwc is the layout of every 4-D value inside the file: TFLite axis i
// holds canonical (NCHW) axis nhwc[i].
var nhwc = []int{0, 2, 3, 1}

// held is one TFLite tensor holding a canonical value: tensor idx has the
// value's axes in the order perm gives (TFLite axis i is canonical axis
// perm[i]; nil keeps the canonical order).
type held struct {
	idx  int32
	perm []int
	// flatCHW, when set, marks a 2-D (N, C·H·W) value written as the
	// flattening of its NHWC source, (N, H·W·C): its columns are in
	// another order, which a fully connected layer absorbs by permuting
	// its weight columns. flatCHW holds C, H, W.
	flatCHW []int64
}

// exporter holds the state of one export.
type exporter struct {
	g         *canon.Graph
	o         Options
	m         fileModel
	vals      *canon.ValueTable
	consts    map[string]*canon.Tensor
	held      map[string][]held
	consumers map[string][]*canon.Node
	isInput   map[string]bool
	isOutput  map[string]bool
	// constIdx caches the file tensor made for a constant in one layout.
	constIdx map[string]int32
	// skip marks nodes written as part of another (a folded batch norm, a
	// fused activation) or computed at conversion time.
	skip map[*canon.Node]bool
	// finalOut is the value a node's single output is written as, when a
	// folded batch norm or fused activation takes over its result.
	finalOut map[*canon.Node]string
	// fusedAct is the activation fused into a node's op.
	fusedAct map[*canon.Node]tflitefb.ActivationFunctionType
	// bnOf is the batch norm folded into a convolution.
	bnOf   map[*canon.Node]*canon.Node
	taken  map[string]bool
	report Report
	// constSeq numbers constants the exporter makes itself.
	constSeq int
}

func newExporter(g *canon.Graph, o Options) (*exporter, error) {
	if g.Meta.WeightsMissing {
		return nil, fmt.Errorf("tflite: the graph was read without its weights; a .tflite file needs them")
	}
	g, err := folded(g)
	if err != nil {
		return nil, fmt.Errorf("tflite: %w", err)
	}
	e := &exporter{g: g, o: o, vals: g.Values, consts: map[string]*canon.Tensor{}, held: map[string][]held{},
		consumers: g.Consumers(), isInput: map[string]bool{}, isOutput: map[string]bool{}, constIdx: map[string]int32{},
		skip: map[*canon.Node]bool{}, finalOut: map[*canon.Node]string{}, fusedAct: map[*canon.Node]tflitefb.ActivationFunctionType{},
		bnOf: map[*canon.Node]*canon.Node{}, taken: map[string]bool{}}
	for _, in := range g.Inputs {
		e.isInput[in.Name] = true
	}
	for _, out := range g.Outputs {
		e.isOutput[out.Name] = true
	}
	for _, t := range g.Initializers {
		if !e.isInput[t.Name] {
			e.consts[t.Name] = t
		}
	}
	return e, nil
}

// nodeErr names the node and its op kind, as every refusal does.
func nodeErr(n *canon.Node, format string, args ...any) error {
	return fmt.Errorf("tflite: node %q (%s): %s", n.Name, n.Op.Kind(), fmt.Sprintf(format, args...))
}

func (e *exporter) run() error {
	if err := e.declareInputs(); err != nil {
		return err
	}
	e.plan()
	for _, n := range e.g.Nodes {
		if e.skip[n] {
			continue
		}
		if e.allConst(n) {
			continue
		}
		w, ok := writers[n.Op.Kind()]
		if !ok {
			if why, ok := lacks[n.Op.Kind()]; ok {
				return nodeErr(n, "TFLite cannot express %s: %s", n.Op.Kind(), why)
			}
			return nodeErr(n, "no TFLite equivalent for canonical op %s (see `modelbridge ops`)", n.Op.Kind())
		}
		if err := w.fn(e, n); err != nil {
			return err
		}
	}
	return e.declareOutputs()
}

// allConst reports whether every output of n is known at conversion time:
// its consumers read the constants instead.
func (e *exporter) allConst(n *canon.Node) bool {
	for _, o := range n.Outputs {
		if o == "" {
			continue
		}
		if e.isOutput[o] || e.constOf(o) == nil {
			return false
		}
	}
	return len(n.Outputs) > 0
}

// constOf returns the value's content when it is known before running.
func (e *exporter) constOf(name string) *canon.Tensor {
	if t, ok := e.consts[name]; ok {
		return t
	}
	if v, ok := e.vals.Lookup(name); ok && v.Const != nil && !e.isInput[name] {
		return v.Const
	}
	return nil
}

// shape returns a value's static canonical shape.
func (e *exporter) shape(name string) ([]int64, error) {
	if c := e.constOf(name); c != nil {
		return c.Shape, nil
	}
	v, ok := e.vals.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("value %q has no inferred type", name)
	}
	s, ok := v.StaticShape()
	if !ok {
		return nil, fmt.Errorf("value %q has a dynamic shape; a TFLite model needs static shapes (give --input-shape)", name)
	}
	return s, nil
}

func (e *exporter) dtype(name string) canon.DType {
	if c := e.constOf(name); c != nil {
		return c.DType
	}
	return e.vals.Get(name).DType
}

// natural is the layout a value of the given rank takes inside the file.
func natural(rank int) []int {
	if rank == 4 {
		return nhwc
	}
	return nil
}

func permOrIdentity(p []int, rank int) []int {
	if p != nil {
		return p
	}
	id := make([]int, rank)
	for i := range id {
		id[i] = i
	}
	return id
}

func samePerm(a, b []int, rank int) bool {
	a, b = permOrIdentity(a, rank), permOrIdentity(b, rank)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameOrder reports whether shape held in layouts a and b has its
// elements in the same memory order: then one is a RESHAPE of the other.
func sameOrder(shape []int64, a, b []int) bool {
	walk := func(p []int) []int {
		var out []int
		for _, ax := range permOrIdentity(p, len(shape)) {
			if shape[ax] != 1 {
				out = append(out, ax)
			}
		}
		return out
	}
	x, y := walk(a), walk(b)
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

func fileShape(shape []int64, perm []int) []int32 {
	out := make([]int32, len(shape))
	for i, ax := range permOrIdentity(perm, len(shape)) {
		out[i] = int32(shape[ax])
	}
	return out
}

// fresh returns an unused tensor name built from base.
func (e *exporter) fresh(base string) string {
	if !e.taken[base] {
		e.taken[base] = true
		return base
	}
	for i := 1; ; i++ {
		n := base + "_" + strconv.Itoa(i)
		if !e.taken[n] {
			e.taken[n] = true
			return n
		}
	}
}

func (e *exporter) addTensor(name string, shape []int32, dt canon.DType, data []byte) (int32, error) {
	typ, err := fileType(dt)
	if err != nil {
		return 0, fmt.Errorf("tensor %q: %w", name, err)
	}
	e.m.tensors = append(e.m.tensors, fileTensor{name: e.fresh(name), shape: shape, typ: typ, data: data})
	return int32(len(e.m.tensors) - 1), nil
}

// define makes the file tensor of canonical value name in layout perm.
func (e *exporter) define(name string, perm []int) (int32, error) {
	s, err := e.shape(name)
	if err != nil {
		return 0, err
	}
	idx, err := e.addTensor(name, fileShape(s, perm), e.dtype(name), nil)
	if err != nil {
		return 0, err
	}
	e.held[name] = append(e.held[name], held{idx: idx, perm: perm})
	return idx, nil
}

// scratch makes an intermediate tensor of an expansion.
func (e *exporter) scratch(name string, shape []int32, dt canon.DType) (int32, error) {
	return e.addTensor(name, shape, dt, nil)
}

func (e *exporter) emit(code tflitefb.BuiltinOperator, in, out []int32, ot tflitefb.BuiltinOptions, opts func(*flatbuffers.Builder) flatbuffers.UOffsetT) {
	e.m.ops = append(e.m.ops, fileOp{code: code, inputs: in, outputs: out, optsType: ot, opts: opts})
}

// input returns a file tensor holding value name in layout want, adding a
// RESHAPE (when only unit axes move) or a TRANSPOSE when it is held in
// another layout.
func (e *exporter) input(name string, want []int) (int32, error) {
	if c := e.constOf(name); c != nil {
		return e.constTensor(name, c, want)
	}
	hs := e.held[name]
	var src *held
	for i := range hs {
		if hs[i].flatCHW != nil {
			continue
		}
		if samePerm(hs[i].perm, want, len(fileShapeOf(e, hs[i].idx))) {
			return hs[i].idx, nil
		}
		if src == nil {
			src = &hs[i]
		}
	}
	if src == nil {
		if len(hs) > 0 {
			return 0, fmt.Errorf("value %q is flattened from NHWC for a fully connected layer and cannot be read by another op", name)
		}
		return 0, fmt.Errorf("value %q is not computed before it is read", name)
	}
	s, err := e.shape(name)
	if err != nil {
		return 0, err
	}
	from := *src
	suffix := "/nchw"
	if want != nil {
		suffix = "/nhwc"
	}
	idx, err := e.addTensor(name+suffix, fileShape(s, want), e.dtype(name), nil)
	if err != nil {
		return 0, err
	}
	if sameOrder(s, from.perm, want) {
		if err := e.reshapeInto(from.idx, idx, fileShape(s, want)); err != nil {
			return 0, err
		}
	} else {
		fp := permOrIdentity(from.perm, len(s))
		t := make([]int32, len(s))
		for i, ax := range permOrIdentity(want, len(s)) {
			for j, a := range fp {
				if a == ax {
					t[i] = int32(j)
				}
			}
		}
		pt, err := e.constI32(name+"/perm", []int32{int32(len(t))}, t)
		if err != nil {
			return 0, err
		}
		e.emit(tflitefb.BuiltinOperatorTRANSPOSE, []int32{from.idx, pt}, []int32{idx}, tflitefb.BuiltinOptionsTransposeOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			tflitefb.TransposeOptionsStart(b)
			return tflitefb.TransposeOptionsEnd(b)
		})
		e.report.transposes = append(e.report.transposes, transposeAt{value: name, edge: e.isInput[name]})
	}
	e.held[name] = append(e.held[name], held{idx: idx, perm: want})
	return idx, nil
}

func fileShapeOf(e *exporter, idx int32) []int32 { return e.m.tensors[idx].shape }

// reshapeInto writes RESHAPE from tensor src into tensor dst of shape.
func (e *exporter) reshapeInto(src, dst int32, shape []int32) error {
	st, err := e.constI32(e.m.tensors[dst].name+"/shape", []int32{int32(len(shape))}, shape)
	if err != nil {
		return err
	}
	e.emit(tflitefb.BuiltinOperatorRESHAPE, []int32{src, st}, []int32{dst}, tflitefb.BuiltinOptionsReshapeOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		b.StartVector(4, len(shape), 4)
		for i := len(shape) - 1; i >= 0; i-- {
			b.PrependInt32(shape[i])
		}
		v := b.EndVector(len(shape))
		tflitefb.ReshapeOptionsStart(b)
		tflitefb.ReshapeOptionsAddNewShape(b, v)
		return tflitefb.ReshapeOptionsEnd(b)
	})
	return nil
}

// inputRank returns value name broadcast to rank (leading unit axes, as
// NumPy broadcasting aligns trailing axes) in layout want.
func (e *exporter) inputRank(name string, rank int, want []int) (int32, error) {
	s, err := e.shape(name)
	if err != nil {
		return 0, err
	}
	if len(s) == rank {
		return e.input(name, want)
	}
	if len(s) > rank {
		return 0, fmt.Errorf("value %q has rank %d, more than %d", name, len(s), rank)
	}
	padded := make([]int64, rank)
	for i := range padded {
		padded[i] = 1
	}
	copy(padded[rank-len(s):], s)
	if c := e.constOf(name); c != nil {
		t := *c
		t.Shape = padded
		return e.constTensor(name+"/"+strconv.Itoa(rank)+"d", &t, want)
	}
	src, err := e.input(name, nil)
	if err != nil {
		return 0, err
	}
	if sameOrder(padded, nil, want) {
		dst, err := e.scratch(name+"/"+strconv.Itoa(rank)+"d", fileShape(padded, want), e.dtype(name))
		if err != nil {
			return 0, err
		}
		return dst, e.reshapeInto(src, dst, fileShape(padded, want))
	}
	return 0, fmt.Errorf("value %q of shape %v broadcast against a %d-D NHWC value would need a TRANSPOSE; TFLite export supports this broadcast for constants only", name, s, rank)
}

func (e *exporter) declareInputs() error {
	for _, in := range e.g.Inputs {
		if _, ok := e.consts[in.Name]; ok {
			continue
		}
		s, ok := in.StaticShape()
		if !ok {
			return fmt.Errorf("tflite: input %q has a dynamic shape %v; a TFLite model needs static shapes (give --input-shape)", in.Name, in.Shape)
		}
		var perm []int
		if e.o.NHWCIO && len(s) == 4 {
			perm = nhwc
		}
		idx, err := e.define(in.Name, perm)
		if err != nil {
			return fmt.Errorf("tflite: input %q: %w", in.Name, err)
		}
		e.m.inputs = append(e.m.inputs, idx)
		e.m.sigInputs = append(e.m.sigInputs, in.Name)
	}
	return nil
}

func (e *exporter) declareOutputs() error {
	for _, out := range e.g.Outputs {
		s, err := e.shape(out.Name)
		if err != nil {
			return fmt.Errorf("tflite: output %q: %w", out.Name, err)
		}
		var want []int
		if e.o.NHWCIO && len(s) == 4 {
			want = nhwc
		}
		before := len(e.report.transposes)
		idx, err := e.input(out.Name, want)
		if err != nil {
			return fmt.Errorf("tflite: output %q: %w", out.Name, err)
		}
		if len(e.report.transposes) > before {
			e.report.transposes[len(e.report.transposes)-1].edge = true
		}
		// The output tensor carries the model's name for the value.
		if e.m.tensors[idx].name != out.Name {
			for i := range e.m.tensors {
				if e.m.tensors[i].name == out.Name {
					e.m.tensors[i].name = e.fresh(out.Name + "/inner")
				}
			}
			e.m.tensors[idx].name = out.Name
		}
		e.m.outputs = append(e.m.outputs, idx)
		e.m.sigOutputs = append(e.m.sigOutputs, out.Name)
	}
	return nil
}
