package optimize

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/modelbridge/modelbridge/canon"
)

// Float16Options tune ToFloat16.
type Float16Options struct {
	// KeepIOTypes leaves float32 graph inputs and outputs float32, with
	// Casts to and from float16 at the boundary.
	KeepIOTypes bool
	// KeepFloat32 adds op kinds to compute in float32 (besides those
	// whose OpDef says HalfUnsafe).
	KeepFloat32 []string
}

// Float16Report says what ToFloat16 did.
type Float16Report struct {
	WeightsConverted int
	WeightsClamped   int64 // elements beyond float16's range, clamped to ±65504
	CastsInserted    int
	// KeptFloat32 counts the nodes left in float32, by op kind.
	KeptFloat32 map[string]int
}

const maxHalf = 65504

// ToFloat16 returns g with its float32 weights stored and its float32
// compute done in float16, except for the ops float16 breaks (their
// OpDef's HalfUnsafe: accumulating reductions, normalizations, softmax,
// ops whose ONNX parameters are float32; after onnxconverter-common's block
// list) and the kinds of opts.KeepFloat32, which read float32 through Casts. A node whose types
// do not allow float16 stays float32 too. The result shares g's unchanged
// weights: keep g open while it is used.
func ToFloat16(g *canon.Graph, opts Float16Options) (*canon.Graph, Float16Report, error) {
	rep := Float16Report{KeptFloat32: map[string]int{}}
	keepKinds := map[string]bool{}
	for _, d := range canon.Ops() {
		if d.HalfUnsafe != "" {
			keepKinds[d.Kind] = true
		}
	}
	for _, k := range opts.KeepFloat32 {
		keepKinds[k] = true
	}
	h := &halver{
		g: g, rep: &rep,
		vals:  map[string]canon.ValueInfo{},
		casts: map[castKey]string{},
		inits: g.InitializerIndex(),
		used:  map[string]bool{},
		names: map[string]bool{},
	}
	out := &canon.Graph{Name: g.Name, Meta: g.Meta}
	h.out = out
	for name := range g.Values.All() {
		h.names[name] = true
	}
	for _, n := range g.Nodes {
		h.names[n.Name] = true
	}
	inputSet := map[string]bool{}
	for _, v := range g.Inputs {
		inputSet[v.Name] = true
		if v.DType == canon.Float32 && !opts.KeepIOTypes {
			v.DType = canon.Float16
		}
		out.Inputs = append(out.Inputs, v)
		h.vals[v.Name] = v
	}
	for _, t := range g.Initializers {
		if !inputSet[t.Name] {
			h.vals[t.Name] = canon.ValueInfo{Name: t.Name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true, Const: t}
		}
	}
	for _, n := range g.Nodes {
		if err := h.node(n, !keepKinds[n.Op.Kind()]); err != nil {
			return nil, rep, err
		}
	}
	for _, o := range g.Outputs {
		v := h.vals[o.Name]
		if opts.KeepIOTypes && o.DType == canon.Float32 && v.DType == canon.Float16 {
			h.renameValue(o.Name)
			h.addCast(h.renamed[o.Name], o.Name, canon.Float32)
			v.DType = canon.Float32
		}
		o.DType = v.DType
		out.Outputs = append(out.Outputs, o)
	}
	for _, t := range g.Initializers {
		if h.used[t.Name] {
			out.Initializers = append(out.Initializers, t)
		}
	}
	out.Initializers = append(out.Initializers, h.halves...)
	h.nameHalvesLikeOriginals()
	if err := out.Validate(); err != nil {
		return nil, rep, fmt.Errorf("the float16 graph is not valid: %w", err)
	}
	return out, rep, nil
}

type castKey struct {
	value string
	to    canon.DType
}

type halver struct {
	g, out  *canon.Graph
	rep     *Float16Report
	vals    map[string]canon.ValueInfo // types in the new graph
	casts   map[castKey]string         // value converted to a dtype, by name
	inits   map[string]*canon.Tensor
	used    map[string]bool // original initializers still read
	halves  []*canon.Tensor // float16 copies of float32 weights
	halfOf  map[string]*canon.Tensor
	names   map[string]bool
	renamed map[string]string
}

// node appends n (or a float32 copy of it between Casts) to the new graph.
func (h *halver) node(n *canon.Node, half bool) error {
	if half {
		if c, ok := h.tryHalf(n); ok {
			h.out.Nodes = append(h.out.Nodes, c)
			return nil
		}
	}
	h.rep.KeptFloat32[n.Op.Kind()]++
	c := &canon.Node{Name: n.Name, Op: n.Op, Outputs: n.Outputs, Inputs: make([]string, len(n.Inputs))}
	ins := make([]canon.ValueInfo, len(n.Inputs))
	for i, in := range n.Inputs {
		c.Inputs[i] = in
		if in == "" {
			continue
		}
		orig := h.g.Values.Get(in)
		if h.vals[in].DType == canon.Float16 && orig.DType == canon.Float32 {
			c.Inputs[i] = h.convert(in, canon.Float32)
		}
		ins[i] = h.vals[c.Inputs[i]]
		h.markUsed(c.Inputs[i])
	}
	outs, err := canon.InferNode(c, ins)
	if err != nil {
		return fmt.Errorf("node %q (%s) in float32: %w", n.Name, n.Op.Kind(), err)
	}
	h.out.Nodes = append(h.out.Nodes, c)
	h.record(outs)
	return nil
}

// tryHalf makes n's float32 inputs float16 and keeps the result if the op
// accepts that.
func (h *halver) tryHalf(n *canon.Node) (*canon.Node, bool) {
	op := n.Op
	switch o := op.(type) {
	case *canon.Cast:
		if o.To == canon.Float32 {
			op = &canon.Cast{To: canon.Float16}
		}
	case *canon.Constant:
		if o.Value != nil && o.Value.DType == canon.Float32 {
			op = &canon.Constant{Value: h.halfTensor(o.Value)}
		}
	}
	c := &canon.Node{Name: n.Name, Op: op, Outputs: n.Outputs, Inputs: make([]string, len(n.Inputs))}
	ins := make([]canon.ValueInfo, len(n.Inputs))
	var pending []castKey
	for i, in := range n.Inputs {
		c.Inputs[i] = in
		if in == "" {
			continue
		}
		v := h.vals[in]
		if v.DType == canon.Float32 {
			if t := h.inits[in]; t != nil && v.Const == t {
				ht := h.halfInit(t)
				c.Inputs[i] = ht.Name
				v = canon.ValueInfo{Name: ht.Name, DType: canon.Float16, Shape: v.Shape, RankKnown: true, Const: ht}
			} else {
				pending = append(pending, castKey{in, canon.Float16})
				v.DType, v.Const = canon.Float16, nil
			}
		}
		ins[i] = v
	}
	outs, err := canon.InferNode(c, ins)
	if err != nil {
		return nil, false
	}
	for _, o := range outs {
		if o.DType == canon.Float32 {
			return nil, false // the op computes float32 whatever it reads
		}
	}
	for i, in := range c.Inputs {
		for _, p := range pending {
			if p.value == in {
				c.Inputs[i] = h.convert(in, canon.Float16)
			}
		}
		h.markUsed(c.Inputs[i])
	}
	h.record(outs)
	return c, true
}

func (h *halver) record(outs []canon.ValueInfo) {
	for _, o := range outs {
		if o.Name != "" {
			h.vals[o.Name] = o
		}
	}
}

func (h *halver) markUsed(name string) {
	if h.inits[name] != nil {
		h.used[name] = true
	}
}

// convert is the name of value converted to dtype, adding a Cast once.
func (h *halver) convert(value string, to canon.DType) string {
	k := castKey{value, to}
	if name, ok := h.casts[k]; ok {
		return name
	}
	name := h.fresh(value + "/to_" + to.String())
	h.addCast(value, name, to)
	h.casts[k] = name
	return name
}

func (h *halver) addCast(from, to string, dt canon.DType) {
	v := h.vals[from]
	h.markUsed(from)
	n := &canon.Node{Name: h.fresh(to + "/cast"), Op: &canon.Cast{To: dt}, Inputs: []string{from}, Outputs: []string{to}}
	h.out.Nodes = append(h.out.Nodes, n)
	v.Name, v.DType, v.Const = to, dt, nil
	h.vals[to] = v
	h.rep.CastsInserted++
}

func (h *halver) fresh(base string) string {
	name := base
	for i := 2; h.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	h.names[name] = true
	return name
}

// halfInit is the float16 copy of weight t, made once.
func (h *halver) halfInit(t *canon.Tensor) *canon.Tensor {
	if h.halfOf == nil {
		h.halfOf = map[string]*canon.Tensor{}
	}
	if ht := h.halfOf[t.Name]; ht != nil {
		return ht
	}
	ht := h.halfTensor(t)
	ht.Name = h.fresh(t.Name + "/fp16")
	h.halfOf[t.Name] = ht
	h.halves = append(h.halves, ht)
	h.rep.WeightsConverted++
	return ht
}

// halfTensor rounds t to float16, clamping what lies beyond its range.
func (h *halver) halfTensor(t *canon.Tensor) *canon.Tensor {
	n := len(t.Data) / 4
	data := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		f := math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
		if !math.IsInf(float64(f), 0) && !math.IsNaN(float64(f)) && math.Abs(float64(f)) > maxHalf {
			f = float32(math.Copysign(maxHalf, float64(f)))
			h.rep.WeightsClamped++
		}
		binary.LittleEndian.PutUint16(data[2*i:], canon.Float32ToHalf(f))
	}
	return &canon.Tensor{Name: t.Name, DType: canon.Float16, Shape: append([]int64{}, t.Shape...), Layout: t.Layout, Data: data}
}

// renameValue gives a graph output computed in float16 a new name, so that
// the Cast back to float32 can take the output's own name.
func (h *halver) renameValue(name string) {
	if h.renamed == nil {
		h.renamed = map[string]string{}
	}
	to := h.fresh(name + "/fp16")
	h.renamed[name] = to
	for _, n := range h.out.Nodes {
		for i, o := range n.Outputs {
			if o == name {
				n.Outputs = append([]string{}, n.Outputs...)
				n.Outputs[i] = to
			}
		}
		for i, in := range n.Inputs {
			if in == name {
				n.Inputs[i] = to
			}
		}
	}
	for k, v := range h.casts {
		if v == name {
			h.casts[k] = to
		}
	}
	v := h.vals[name]
	v.Name = to
	h.vals[to] = v
}

// nameHalvesLikeOriginals gives a float16 weight its original's name when
// the float32 original is no longer read, so that weight names survive.
func (h *halver) nameHalvesLikeOriginals() {
	var names []string
	for orig := range h.halfOf {
		names = append(names, orig)
	}
	sort.Strings(names)
	for _, orig := range names {
		if h.used[orig] {
			continue
		}
		ht := h.halfOf[orig]
		old := ht.Name
		ht.Name = orig
		for _, n := range h.out.Nodes {
			for i, in := range n.Inputs {
				if in == old {
					n.Inputs[i] = orig
				}
			}
		}
	}
}
