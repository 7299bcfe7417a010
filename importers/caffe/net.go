package caffeimport

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/caffepb"
	"github.com/modelbridge/modelbridge/internal/databudget"
)

// maxLayers bounds the layers of a net (GoogLeNet has about 150; the
// deepest ResNets about 1,000).
const maxLayers = 100000

// builder turns a net's layers into canonical nodes.
type builder struct {
	file, weightsFile string
	g                 *canon.Graph
	vals              map[string]canon.ValueInfo
	taken             map[string]bool
	blobs             map[string][]*rawBlob // by layer name; nil without weights
	usedBlobs         map[string]bool
	cur               map[string]string // Caffe blob name -> its current canonical value (SSA)
	// producer names the layer (or "input") that last wrote each blob.
	producer map[string]string
	// aliasTops maps a blob whose top is its bottom's value passed through
	// (Split, Dropout) to the name reserved for it, used when it is a net
	// output (see netOutputs).
	aliasTops map[string]string
	// needsWeights is set when a layer needed a weight the net was read
	// without.
	needsWeights bool
	avail        []string // blobs produced and not yet consumed, in order
	opts         formats.ReadOptions
	budget       databudget.Budget
}

// layerCtx is one layer being converted.
type layerCtx struct {
	b    *builder
	l    *caffepb.LayerParameter
	ins  []string // canonical values of the bottoms
	outs []string // canonical names chosen for the tops
}

func (c *layerCtx) errf(format string, args ...any) error {
	return fmt.Errorf("layer %s (%s): %s", c.l.GetName(), c.l.GetType(), fmt.Sprintf(format, args...))
}

func convert(net *caffepb.NetParameter, path, textPath, weightsPath string, blobs map[string][]*rawBlob, opts formats.ReadOptions, inputBytes int64) (*canon.Graph, error) {
	name := net.GetName()
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	b := &builder{
		file: path, weightsFile: weightsPath, blobs: blobs, opts: opts,
		g:         &canon.Graph{Name: name},
		vals:      map[string]canon.ValueInfo{},
		taken:     map[string]bool{},
		usedBlobs: map[string]bool{},
		cur:       map[string]string{},
		producer:  map[string]string{},
		aliasTops: map[string]string{},
		budget:    databudget.ForInput(inputBytes),
	}
	b.g.Meta = canon.Metadata{SourceFormat: "caffe", Producer: "caffe"}
	if blobs != nil {
		b.g.Meta.Props = append(b.g.Meta.Props, canon.KeyValue{Key: "weights_file", Value: filepath.Base(weightsPath)})
	}
	layers, format, err := netLayers(net)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b.g.Meta.Props = append(b.g.Meta.Props, canon.KeyValue{Key: "layer_format", Value: format})
	if err := b.netInputs(net); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, l := range layers {
		if !inTestPhase(l) {
			continue
		}
		if err := b.layer(l); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if blobs == nil && b.needsWeights {
		// Only a net whose layers hold weights is incomplete without them.
		b.g.Meta.WeightsMissing = true
		b.g.Meta.Props = append(b.g.Meta.Props, canon.KeyValue{Key: "weights", Value: "absent"})
	}
	if err := b.netOutputs(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b.g.Outputs) == 0 {
		return nil, fmt.Errorf("%s: the net has no outputs (no layer produces a blob that is not consumed)", path)
	}
	if blobs != nil {
		unused := 0
		for n := range blobs {
			if !b.usedBlobs[n] {
				unused++
			}
		}
		if unused > 0 {
			b.g.Meta.Props = append(b.g.Meta.Props, canon.KeyValue{Key: "unused_weight_layers", Value: strconv.Itoa(unused)})
		}
	}
	canon.AssignLayouts(b.g)
	if err := b.g.Validate(); err != nil {
		return nil, fmt.Errorf("%s: imported graph is invalid: %w", path, err)
	}
	return b.g, nil
}

// netLayers returns the net's layers in the current form, upgrading V1
// `layers` entries.
func netLayers(net *caffepb.NetParameter) ([]*caffepb.LayerParameter, string, error) {
	if len(net.Layer) > 0 && len(net.Layers) > 0 {
		return nil, "", fmt.Errorf("the net has both `layer` and V1 `layers` entries; Caffe reads one form only")
	}
	if len(net.Layer)+len(net.Layers) > maxLayers {
		return nil, "", fmt.Errorf("%d layers is more than any real net (limit %d)", len(net.Layer)+len(net.Layers), maxLayers)
	}
	if len(net.Layers) == 0 {
		return net.Layer, "layer", nil
	}
	out := make([]*caffepb.LayerParameter, 0, len(net.Layers))
	for i, v1 := range net.Layers {
		l, err := upgradeV1(v1)
		if err != nil {
			return nil, "", fmt.Errorf("V1 layer %d (%s): %w", i, v1.GetName(), err)
		}
		out = append(out, l)
	}
	return out, "V1 layers", nil
}

// v1Types maps V1 layer type enums to the current type strings.
var v1Types = map[caffepb.V1LayerParameter_LayerType]string{
	caffepb.V1LayerParameter_ABSVAL: "AbsVal", caffepb.V1LayerParameter_ACCURACY: "Accuracy",
	caffepb.V1LayerParameter_ARGMAX: "ArgMax", caffepb.V1LayerParameter_BNLL: "BNLL",
	caffepb.V1LayerParameter_CONCAT: "Concat", caffepb.V1LayerParameter_CONTRASTIVE_LOSS: "ContrastiveLoss",
	caffepb.V1LayerParameter_CONVOLUTION: "Convolution", caffepb.V1LayerParameter_DATA: "Data",
	caffepb.V1LayerParameter_DECONVOLUTION: "Deconvolution", caffepb.V1LayerParameter_DROPOUT: "Dropout",
	caffepb.V1LayerParameter_DUMMY_DATA: "DummyData", caffepb.V1LayerParameter_EUCLIDEAN_LOSS: "EuclideanLoss",
	caffepb.V1LayerParameter_ELTWISE: "Eltwise", caffepb.V1LayerParameter_EXP: "Exp",
	caffepb.V1LayerParameter_FLATTEN: "Flatten", caffepb.V1LayerParameter_HDF5_DATA: "HDF5Data",
	caffepb.V1LayerParameter_HDF5_OUTPUT: "HDF5Output", caffepb.V1LayerParameter_HINGE_LOSS: "HingeLoss",
	caffepb.V1LayerParameter_IM2COL: "Im2col", caffepb.V1LayerParameter_IMAGE_DATA: "ImageData",
	caffepb.V1LayerParameter_INFOGAIN_LOSS: "InfogainLoss", caffepb.V1LayerParameter_INNER_PRODUCT: "InnerProduct",
	caffepb.V1LayerParameter_LRN: "LRN", caffepb.V1LayerParameter_MEMORY_DATA: "MemoryData",
	caffepb.V1LayerParameter_MULTINOMIAL_LOGISTIC_LOSS: "MultinomialLogisticLoss", caffepb.V1LayerParameter_MVN: "MVN",
	caffepb.V1LayerParameter_POOLING: "Pooling", caffepb.V1LayerParameter_POWER: "Power",
	caffepb.V1LayerParameter_RELU: "ReLU", caffepb.V1LayerParameter_SIGMOID: "Sigmoid",
	caffepb.V1LayerParameter_SIGMOID_CROSS_ENTROPY_LOSS: "SigmoidCrossEntropyLoss", caffepb.V1LayerParameter_SILENCE: "Silence",
	caffepb.V1LayerParameter_SOFTMAX: "Softmax", caffepb.V1LayerParameter_SOFTMAX_LOSS: "SoftmaxWithLoss",
	caffepb.V1LayerParameter_SPLIT: "Split", caffepb.V1LayerParameter_SLICE: "Slice",
	caffepb.V1LayerParameter_TANH: "TanH", caffepb.V1LayerParameter_WINDOW_DATA: "WindowData",
	caffepb.V1LayerParameter_THRESHOLD: "Threshold",
}

// upgradeV1 rewrites a V1 layer as a current one: the *_param messages
// have the same types under the same names, so they are moved across by
// reflection rather than listed.
func upgradeV1(v1 *caffepb.V1LayerParameter) (*caffepb.LayerParameter, error) {
	if v1.Layer != nil {
		return nil, fmt.Errorf("V0 layer definitions (layers { layer { ... } }) are not read; upgrade the net with Caffe's upgrade_net_proto_text")
	}
	typ, ok := v1Types[v1.GetType()]
	if !ok {
		return nil, fmt.Errorf("unknown V1 layer type %v", v1.GetType())
	}
	l := &caffepb.LayerParameter{Name: v1.Name, Type: &typ, Bottom: v1.Bottom, Top: v1.Top, Include: v1.Include, Exclude: v1.Exclude, Blobs: v1.Blobs}
	dst := l.ProtoReflect()
	fields := dst.Descriptor().Fields()
	v1.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || !strings.HasSuffix(string(fd.Name()), "_param") {
			return true
		}
		if t := fields.ByName(fd.Name()); t != nil && t.Message() != nil && t.Message().FullName() == fd.Message().FullName() && t.Cardinality() == fd.Cardinality() {
			dst.Set(t, v)
		}
		return true
	})
	return l, nil
}

// inTestPhase applies the include/exclude rules for an inference net
// (phase TEST; stages and levels are not modelled).
func inTestPhase(l *caffepb.LayerParameter) bool {
	if l.Phase != nil && l.GetPhase() != caffepb.Phase_TEST {
		return false
	}
	for _, r := range l.Exclude {
		if r.Phase != nil && r.GetPhase() == caffepb.Phase_TEST {
			return false
		}
	}
	if len(l.Include) == 0 {
		return true
	}
	for _, r := range l.Include {
		if r.Phase == nil || r.GetPhase() == caffepb.Phase_TEST {
			return true
		}
	}
	return false
}

// netInputs declares the inputs of the old net-level form: `input:` with
// `input_shape` or four `input_dim`s each.
func (b *builder) netInputs(net *caffepb.NetParameter) error {
	if len(net.InputShape) > 0 && len(net.InputDim) > 0 {
		return fmt.Errorf("the net gives both input_shape and input_dim")
	}
	if len(net.InputShape) > 0 && len(net.InputShape) != len(net.Input) {
		return fmt.Errorf("%d inputs but %d input_shape entries", len(net.Input), len(net.InputShape))
	}
	if len(net.InputDim) > 0 && len(net.InputDim) != 4*len(net.Input) {
		return fmt.Errorf("%d inputs need %d input_dim entries (4 each), have %d", len(net.Input), 4*len(net.Input), len(net.InputDim))
	}
	for i, name := range net.Input {
		var shape []int64
		switch {
		case len(net.InputShape) > 0:
			for _, d := range net.InputShape[i].Dim {
				shape = append(shape, d)
			}
		case len(net.InputDim) > 0:
			for _, d := range net.InputDim[4*i : 4*i+4] {
				shape = append(shape, int64(d))
			}
		}
		if err := b.addInput(name, shape); err != nil {
			return err
		}
	}
	return nil
}

// addInput declares Caffe blob name as a graph input; shape nil is unknown.
// --input-shape overrides the file's shape.
func (b *builder) addInput(name string, shape []int64) error {
	if _, ok := b.cur[name]; ok {
		return fmt.Errorf("input %q is declared twice", name)
	}
	if s, ok := b.opts.ShapeFor(name, len(b.g.Inputs)); ok {
		shape = s
	}
	vi := canon.ValueInfo{Name: name, DType: canon.Float32}
	if shape != nil {
		if len(shape) > 8 {
			return fmt.Errorf("input %q has rank %d; Caffe blobs have at most 8 dims here", name, len(shape))
		}
		vi.RankKnown = true
		vi.Shape = make([]canon.Dim, len(shape))
		for i, d := range shape {
			if d < 0 || d > 1<<31 {
				vi.Shape[i] = canon.Dim{Size: -1}
			} else {
				vi.Shape[i] = canon.Dim{Size: d}
			}
		}
	}
	v := b.fresh(name)
	vi.Name = v
	b.g.Inputs = append(b.g.Inputs, vi)
	b.vals[v] = vi
	b.cur[name] = v
	b.producer[name] = "the net's input " + strconv.Quote(name)
	b.avail = append(b.avail, name)
	return nil
}

func (b *builder) isInput(v string) bool {
	for _, in := range b.g.Inputs {
		if in.Name == v {
			return true
		}
	}
	return false
}

// fresh returns name, or name with a numeric suffix when it is in use.
func (b *builder) fresh(name string) string {
	if name == "" {
		name = "v"
	}
	if !b.taken[name] {
		b.taken[name] = true
		return name
	}
	for i := 1; ; i++ {
		c := fmt.Sprintf("%s_%d", name, i)
		if !b.taken[c] {
			b.taken[c] = true
			return c
		}
	}
}

// layer converts one layer: it resolves the bottoms, names the tops in
// SSA form (an in-place top gets the layer's name), and runs the layer's
// converter.
func (b *builder) layer(l *caffepb.LayerParameter) error {
	c := &layerCtx{b: b, l: l}
	typ := l.GetType()
	if typ == "Input" {
		return b.inputLayer(c)
	}
	for _, bot := range l.Bottom {
		v, ok := b.cur[bot]
		if !ok {
			return c.errf("bottom %q is not produced by any earlier layer or input", bot)
		}
		c.ins = append(c.ins, v)
	}
	conv, ok := layerTable[typ]
	if !ok {
		if why, ok := unsupported[typ]; ok {
			return c.errf("Caffe layer type %q is not supported: %s", typ, why)
		}
		return c.errf("Caffe layer type %q is not supported by the importer (see `modelbridge ops`)", typ)
	}
	if conv.tops >= 0 && len(l.Top) != conv.tops || conv.bottoms > 0 && len(l.Bottom) != conv.bottoms || len(l.Bottom) < conv.minBot {
		return c.errf("has %d bottoms and %d tops; want %s", len(l.Bottom), len(l.Top), conv.arity())
	}
	for _, top := range l.Top {
		name := top
		inPlace := false
		for _, bot := range l.Bottom {
			if bot == top {
				name = l.GetName() // in place: the new version takes the layer's name
				inPlace = true
			}
		}
		if prev, ok := b.producer[top]; ok && !inPlace {
			// Caffe refuses this ("produced by multiple sources"): which
			// version later layers should read is ambiguous.
			return c.errf("top %q is already produced by %s; a blob may be written again only in place (as its layer's bottom too); rename one of the tops", top, prev)
		}
		c.outs = append(c.outs, b.fresh(name))
	}
	vals, err := conv.fn(c)
	if err != nil {
		return err
	}
	// Consume the bottoms, then publish the tops.
	for _, bot := range l.Bottom {
		b.consume(bot)
	}
	for i, top := range l.Top {
		b.cur[top] = vals[i]
		b.producer[top] = "layer " + l.GetName()
		delete(b.aliasTops, top)
		if vals[i] != c.outs[i] {
			b.aliasTops[top] = c.outs[i]
		}
		b.consume(top)
		b.avail = append(b.avail, top)
	}
	return nil
}

// netOutputs lists the blobs no layer consumes, in the order they were
// produced, as Caffe does. A top that passes its bottom through (Split,
// Dropout) is an output under its own name, computed by an Identity: two
// Split tops are two outputs, and a Dropout of an input is one. An input
// no layer reads is not an output.
func (b *builder) netOutputs() error {
	for _, blob := range b.avail {
		v := b.cur[blob]
		if name, ok := b.aliasTops[blob]; ok {
			n := &canon.Node{Name: b.fresh(name), Op: &canon.Identity{}, Inputs: []string{v}, Outputs: []string{name}}
			b.g.Nodes = append(b.g.Nodes, n)
			vi := b.vals[v]
			vi.Name = name
			b.vals[name] = vi
			v = name
		} else if b.isInput(v) {
			continue
		}
		vi := b.vals[v]
		vi.Name, vi.Const = v, nil
		b.g.Outputs = append(b.g.Outputs, vi)
	}
	return nil
}

func (b *builder) consume(blob string) {
	for i, a := range b.avail {
		if a == blob {
			b.avail = append(b.avail[:i], b.avail[i+1:]...)
			return
		}
	}
}

// inputLayer declares an Input layer's tops: one shape for all, or one
// per top.
func (b *builder) inputLayer(c *layerCtx) error {
	shapes := c.l.GetInputParam().GetShape()
	if len(shapes) > 1 && len(shapes) != len(c.l.Top) {
		return c.errf("%d shapes for %d tops; give one shape, or one per top", len(shapes), len(c.l.Top))
	}
	for i, top := range c.l.Top {
		var shape []int64
		if len(shapes) > 0 {
			s := shapes[0]
			if len(shapes) > 1 {
				s = shapes[i]
			}
			shape = append([]int64{}, s.Dim...)
		}
		if err := b.addInput(top, shape); err != nil {
			return c.errf("%v", err)
		}
	}
	return nil
}

// emit appends a node and infers its output types.
func (c *layerCtx) emit(name string, op canon.Op, inputs []string, outputs ...string) error {
	b := c.b
	n := &canon.Node{Name: b.fresh(name), Op: op, Inputs: inputs, Outputs: outputs}
	in := make([]canon.ValueInfo, len(inputs))
	for i, v := range inputs {
		if v != "" {
			in[i] = b.vals[v]
		}
	}
	res, err := canon.InferNode(n, in)
	if err != nil {
		return c.errf("%s: %v", op.Kind(), err)
	}
	for i, o := range outputs {
		if o == "" || i >= len(res) {
			continue
		}
		r := res[i]
		r.Name = o
		b.vals[o] = r
		b.taken[o] = true
	}
	b.g.Nodes = append(b.g.Nodes, n)
	return nil
}

// unary emits a one-input op named after the layer, into the layer's top.
func (c *layerCtx) unary(op canon.Op) ([]string, error) {
	return c.outs, c.emit(c.l.GetName(), op, []string{c.ins[0]}, c.outs[0])
}

// tmp names an intermediate value of this layer.
func (c *layerCtx) tmp(what string) string {
	return c.b.fresh(c.l.GetName() + "_" + what)
}

// constant adds an initializer made by the importer, counted against the
// data budget.
func (c *layerCtx) constant(what string, shape []int64, v []float32) (string, error) {
	b := c.b
	if !b.budget.Take(4 * int64(len(v))) {
		return "", c.errf("the %s constant of %d floats needs more data than the file can justify; a shape is corrupt", what, len(v))
	}
	t := canon.NewFloat32Tensor(b.fresh(c.l.GetName()+"_"+what), shape, v)
	b.g.Initializers = append(b.g.Initializers, t)
	b.vals[t.Name] = canon.ValueInfo{Name: t.Name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true, Const: t}
	return t.Name, nil
}

func (c *layerCtx) scalar(what string, v float32) (string, error) {
	return c.constant(what, []int64{}, []float32{v})
}

// filled makes a constant of shape with every element v, checking the
// size against the budget before allocating.
func (c *layerCtx) filled(what string, shape []int64, v float32) (string, error) {
	n := canon.NumElements(shape)
	if n < 0 || !c.b.budget.Fits(4*n) {
		return "", c.errf("the %s constant of shape %v needs more data than the file can justify; a shape is corrupt", what, shape)
	}
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = v
	}
	return c.constant(what, shape, vals)
}

// weights returns the layer's blob k as a tensor of shape want: an
// initializer pointing into the caffemodel, or, when the net was read
// without weights, a graph input of that shape.
func (c *layerCtx) weights(k int, what string, role canon.Role, want []int64) (string, error) {
	b := c.b
	for _, d := range want {
		if d < 0 {
			return "", c.errf("the shape of its %s (blob %d) depends on an unknown input dim; pass the input shapes (--input-shape data=1,3,224,224)", what, k)
		}
	}
	if b.blobs == nil {
		b.needsWeights = true
		name := b.fresh(c.l.GetName() + "_" + what)
		vi := canon.ValueInfo{Name: name, DType: canon.Float32, Shape: canon.DimsOf(want...), RankKnown: true}
		b.g.Inputs = append(b.g.Inputs, vi)
		b.vals[name] = vi
		return name, nil
	}
	raw, err := c.blob(k, what)
	if err != nil {
		return "", err
	}
	if !sameShape(raw.Shape(), want) || raw.floats != canon.NumElements(want) {
		return "", c.errf("its %s (blob %d) in %s has shape %v (%d floats), but the layer needs %v", what, k, filepath.Base(b.weightsFile), raw.Shape(), raw.floats, want)
	}
	t := &canon.Tensor{Name: b.fresh(c.l.GetName() + "_" + what), DType: canon.Float32, Shape: append([]int64{}, want...), Data: raw.data}
	if lay, ok := canon.LayoutFor(role, len(want)); ok && canon.LayoutFits(role, len(want)) {
		t.Layout = lay
	}
	b.g.Initializers = append(b.g.Initializers, t)
	b.vals[t.Name] = canon.ValueInfo{Name: t.Name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true, Const: t}
	return t.Name, nil
}

// blob returns the layer's raw blob k.
func (c *layerCtx) blob(k int, what string) (*rawBlob, error) {
	b := c.b
	bl, ok := b.blobs[c.l.GetName()]
	if !ok {
		return nil, c.errf("%s holds no weights for this layer (wrong caffemodel, or a renamed layer?)", filepath.Base(b.weightsFile))
	}
	if k >= len(bl) {
		return nil, c.errf("needs its %s as blob %d, but %s holds %d blobs for it", what, k, filepath.Base(b.weightsFile), len(bl))
	}
	b.usedBlobs[c.l.GetName()] = true
	if bl[k].double {
		b.g.Meta.Notes = append(b.g.Meta.Notes, fmt.Sprintf("layer %s: blob %d was stored as double and has been narrowed to float32", c.l.GetName(), k))
	}
	return bl[k], nil
}

// blobFloats decodes a small blob's values (BatchNorm's statistics).
func (c *layerCtx) blobFloats(k int, what string, n int64) ([]float32, error) {
	raw, err := c.blob(k, what)
	if err != nil {
		return nil, err
	}
	if raw.floats != n {
		return nil, c.errf("its %s (blob %d) has %d values, want %d", what, k, raw.floats, n)
	}
	if !c.b.budget.Take(4 * n) {
		return nil, c.errf("its %s needs more data than the file can justify", what)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw.data[4*i:]))
	}
	return out, nil
}

// sameShape compares a blob's stored shape with the one a layer needs,
// ignoring leading ones (the legacy 4-D form pads InnerProduct weights to
// (1, 1, N, K) and biases to (1, 1, 1, N)).
func sameShape(have, want []int64) bool {
	trim := func(s []int64) []int64 {
		for len(s) > 0 && s[0] == 1 {
			s = s[1:]
		}
		return s
	}
	h, w := trim(have), trim(want)
	if len(h) != len(w) {
		return false
	}
	for i := range h {
		if h[i] != w[i] {
			return false
		}
	}
	return true
}

// shapeOf returns the inferred dims of a value (nil, false when the rank is
// unknown); unknown dims are -1.
func (b *builder) shapeOf(v string) ([]int64, bool) {
	vi := b.vals[v]
	if !vi.RankKnown {
		return nil, false
	}
	out := make([]int64, len(vi.Shape))
	for i, d := range vi.Shape {
		out[i] = d.Size
		if !d.Known() {
			out[i] = -1
		}
	}
	return out, true
}

// rankOf returns the rank of input k or explains that it is needed.
func (c *layerCtx) shape(k int, why string) ([]int64, error) {
	s, ok := c.b.shapeOf(c.ins[k])
	if !ok {
		return nil, c.errf("%s needs the rank of its input %s, which is unknown; pass the input shapes (--input-shape data=1,3,224,224)", why, c.l.Bottom[k])
	}
	return s, nil
}

// staticShape returns the fully known shape of input k.
func (c *layerCtx) staticShape(k int, why string) ([]int64, error) {
	s, ok := c.b.vals[c.ins[k]].StaticShape()
	if !ok {
		return nil, c.errf("%s needs the static shape of its input %s, which is unknown; pass the input shapes (--input-shape data=1,3,224,224)", why, c.l.Bottom[k])
	}
	return s, nil
}

// axis resolves a Caffe axis (negative counts from the end).
func (c *layerCtx) axis(a int32, rank int, what string) (int, error) {
	ax := int(a)
	if ax < 0 {
		ax += rank
	}
	if ax < 0 || ax >= rank {
		return 0, c.errf("%s %d is out of range for a rank-%d input", what, a, rank)
	}
	return ax, nil
}
