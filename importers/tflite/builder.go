package tfliteimport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/databudget"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// form is how a 4-D activation is held in the canonical graph: in the
// file's NHWC order, or permuted to canonical NCHW. Values of other ranks
// are always in file order.
type form uint8

const (
	fileForm form = iota
	nchwForm
	// flatForm is a 2-D (N, C·H·W) value flattened from an NCHW one: the
	// file's (N, H·W·C) in another column order, which a FULLY_CONNECTED
	// layer absorbs by permuting its weight columns (flatSrc).
	flatForm
)

// nhwcToNCHW permutes NHWC axes to NCHW; nchwAxis maps an NHWC axis to
// its NCHW position.
var (
	nhwcToNCHW = []int64{0, 3, 1, 2}
	nchwToNHWC = []int64{0, 2, 3, 1}
	nchwAxis   = []int{0, 2, 3, 1}
)

// held is the canonical value of one TFLite tensor in one form.
type held struct {
	name string
	form form
}

// builder turns the main subgraph into canonical nodes.
type builder struct {
	path  string
	m     *model
	s     *subgraph
	g     *canon.Graph
	taken map[string]bool
	// vals holds, per tensor, the canonical values made for it so far (at
	// most one per form).
	vals map[int][]held
	// graphInput marks canonical values that are graph inputs, so that a
	// Transpose of one counts as at the graph's edge.
	graphInput map[string]bool
	// innerTransposes counts Transposes placed between two ops.
	innerTransposes []string
	bytes           int64 // weight bytes made by the import (transposed copies)
	// dequantOf maps the output of a DEQUANTIZE of a constant float16
	// tensor to that tensor: weights keep their float16 data.
	dequantOf map[int]int
	// weights caches permuted weights by tensor, layout and permutation.
	weights map[string]string
	// flatSrc maps a tensor held in flatForm to the 4-D tensor it
	// flattens.
	flatSrc map[int]int
	// budget bounds the tensor data the import makes (permuted copies,
	// per-channel constants), which a hostile file's shapes could inflate.
	budget databudget.Budget
}

// take counts n bytes of data about to be made, refusing what the file's
// size cannot justify.
func (b *builder) take(n int64, what string) error {
	if !b.budget.Take(n) {
		return b.errf("%s would need %d bytes, more than a %d-byte file justifies: its shapes are corrupt", what, n, (b.budget.Limit-databudget.SlackBytes)/databudget.PerInputByte)
	}
	return nil
}

func (b *builder) errf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", b.path, fmt.Sprintf(format, args...))
}

// fresh returns an unused value name built from base.
func (b *builder) fresh(base string) string {
	if base == "" {
		base = "t"
	}
	if !b.taken[base] {
		b.taken[base] = true
		return base
	}
	for i := 1; ; i++ {
		n := base + "_" + strconv.Itoa(i)
		if !b.taken[n] {
			b.taken[n] = true
			return n
		}
	}
}

func (b *builder) emit(name string, op canon.Op, ins []string, outs ...string) {
	b.g.Nodes = append(b.g.Nodes, &canon.Node{Name: b.fresh("node:" + name), Op: op, Inputs: ins, Outputs: outs})
}

// node emits op with a fresh output named after base and returns it.
func (b *builder) node(base string, op canon.Op, ins ...string) string {
	out := b.fresh(base)
	b.emit(base, op, ins, out)
	return out
}

// addConst adds an initializer and returns its name.
func (b *builder) addConst(t *canon.Tensor) string {
	t.Name = b.fresh(t.Name)
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

func (b *builder) constI64(base string, shape []int64, v []int64) string {
	return b.addConst(canon.NewInt64Tensor(base, shape, v))
}

func (b *builder) constF32(base string, shape []int64, v []float32) string {
	return b.addConst(canon.NewFloat32Tensor(base, shape, v))
}

func (b *builder) tensor(i int) *tensorDef { return &b.s.tensors[i] }

// tensorTitle names tensor i for messages.
func (b *builder) tensorTitle(i int) string {
	t := b.tensor(i)
	return fmt.Sprintf("tensor %d %q", i, t.name)
}

// constData returns the bytes of a constant tensor, nil for an activation.
func (b *builder) constData(i int) []byte {
	t := b.tensor(i)
	if t.buffer <= 0 || t.variable {
		return nil
	}
	return b.m.buffers[t.buffer].data
}

// isConst reports whether tensor i has data in the file.
func (b *builder) isConst(i int) bool { return b.constData(i) != nil }

// fileTensor is constant tensor i as a canonical tensor in file order,
// its data a view into the file.
func (b *builder) fileTensor(i int) (*canon.Tensor, error) {
	t := b.tensor(i)
	data := b.constData(i)
	if data == nil {
		return nil, b.errf("%s has no data; a constant is needed here", b.tensorTitle(i))
	}
	if t.sparse {
		return nil, b.errf("%s is sparse; sparse TFLite tensors are not supported (densify the model with TensorFlow first)", b.tensorTitle(i))
	}
	dt, err := dtypeOf(t.dtype)
	if err != nil {
		return nil, b.errf("%s: %v", b.tensorTitle(i), err)
	}
	n := canon.NumElements(t.shape)
	if n < 0 || n*int64(dt.Size()) != int64(len(data)) {
		return nil, b.errf("%s has shape %v of %s (%d bytes) but its buffer holds %d bytes", b.tensorTitle(i), t.shape, dt, n*int64(dt.Size()), len(data))
	}
	return &canon.Tensor{Name: t.name, DType: dt, Shape: append([]int64{}, t.shape...), Data: data}, nil
}

// dtypeOf maps a TFLite element type to canon's.
func dtypeOf(t tflitefb.TensorType) (canon.DType, error) {
	switch t {
	case tflitefb.TensorTypeFLOAT32:
		return canon.Float32, nil
	case tflitefb.TensorTypeFLOAT16:
		return canon.Float16, nil
	case tflitefb.TensorTypeFLOAT64:
		return canon.Float64, nil
	case tflitefb.TensorTypeINT8:
		return canon.Int8, nil
	case tflitefb.TensorTypeUINT8:
		return canon.Uint8, nil
	case tflitefb.TensorTypeINT16:
		return canon.Int16, nil
	case tflitefb.TensorTypeUINT16:
		return canon.Uint16, nil
	case tflitefb.TensorTypeINT32:
		return canon.Int32, nil
	case tflitefb.TensorTypeUINT32:
		return canon.Uint32, nil
	case tflitefb.TensorTypeINT64:
		return canon.Int64, nil
	case tflitefb.TensorTypeUINT64:
		return canon.Uint64, nil
	case tflitefb.TensorTypeBOOL:
		return canon.Bool, nil
	case tflitefb.TensorTypeBFLOAT16:
		return canon.BFloat16, nil
	}
	name, ok := tflitefb.EnumNamesTensorType[t]
	if !ok {
		name = fmt.Sprintf("TensorType(%d)", t)
	}
	return canon.Undefined, fmt.Errorf("element type %s is not supported", name)
}

// rank4 reports whether tensor i is a 4-D tensor (NHWC in the file).
func (b *builder) rank4(i int) bool { return len(b.tensor(i).shape) == 4 }

// value returns tensor i's canonical value in form f, adding a Transpose
// (or, for a constant, a permuted copy) when it is only held in the other.
func (b *builder) value(i int, f form) (string, error) {
	if src, ok := b.flatSrc[i]; ok && f != flatForm {
		// The file's order: the source back in NHWC, flattened.
		for _, h := range b.vals[i] {
			if h.form == fileForm {
				return h.name, nil
			}
		}
		v, err := b.value(src, fileForm)
		if err != nil {
			return "", err
		}
		name := b.node(b.tensor(i).name+"/nhwc", &canon.Reshape{Shape: append([]int64{}, b.tensor(i).shape...)}, v)
		b.vals[i] = append(b.vals[i], held{name, fileForm})
		return name, nil
	}
	if !b.rank4(i) && f != flatForm {
		f = fileForm
	}
	for _, h := range b.vals[i] {
		if h.form == f {
			return h.name, nil
		}
	}
	t := b.tensor(i)
	if src, ok := b.dequantOf[i]; ok {
		h, err := b.value(src, f)
		if err != nil {
			return "", err
		}
		name := b.node(t.name, &canon.Cast{To: canon.Float32}, h)
		b.vals[i] = append(b.vals[i], held{name, f})
		return name, nil
	}
	if b.isConst(i) {
		ct, err := b.fileTensor(i)
		if err != nil {
			return "", err
		}
		if f == nchwForm {
			if err := b.take(int64(len(ct.Data)), b.tensorTitle(i)); err != nil {
				return "", err
			}
			if ct, err = permuteTensor(ct, nhwcToNCHW); err != nil {
				return "", b.errf("%s: %v", b.tensorTitle(i), err)
			}
			b.bytes += int64(len(ct.Data))
		}
		name := b.addConst(ct)
		b.vals[i] = append(b.vals[i], held{name, f})
		return name, nil
	}
	if len(b.vals[i]) == 0 {
		return "", b.errf("%s is read before any operator writes it (the operators are not in topological order, or it is an undeclared input)", b.tensorTitle(i))
	}
	src := b.vals[i][0]
	perm := nhwcToNCHW
	if f == fileForm {
		perm = nchwToNHWC
	}
	if !b.graphInput[src.name] && !b.isOutput(i) {
		b.innerTransposes = append(b.innerTransposes, t.name)
	}
	name := b.node(t.name+"/"+map[form]string{fileForm: "nhwc", nchwForm: "nchw"}[f], &canon.Transpose{Perm: perm}, src.name)
	b.vals[i] = append(b.vals[i], held{name, f})
	return name, nil
}

func (b *builder) isOutput(i int) bool {
	for _, o := range b.s.outputs {
		if o == i {
			return true
		}
	}
	return false
}

// heldForm is the form tensor i is first held in (file for constants).
// A flattened NCHW value reads as file order here: only FULLY_CONNECTED
// consumes flatForm, through flatSrc.
func (b *builder) heldForm(i int) form {
	if v := b.vals[i]; len(v) > 0 && v[0].form != flatForm {
		return v[0].form
	}
	return fileForm
}

// define records name as tensor i's value in form f.
func (b *builder) define(i int, name string, f form) {
	if !b.rank4(i) && f != flatForm {
		f = fileForm
	}
	// The value takes the tensor's own name when the last node wrote it
	// and the name is free (helper nodes are named after the tensor too).
	if want := b.tensor(i).name; want != "" && want != name && !b.taken[want] && len(b.g.Nodes) > 0 {
		last := b.g.Nodes[len(b.g.Nodes)-1]
		for k, o := range last.Outputs {
			if o == name {
				last.Outputs[k] = want
				b.taken[want] = true
				name = want
			}
		}
	}
	b.vals[i] = append(b.vals[i][:0], held{name, f})
}

// outName is a fresh canonical name for tensor i.
func (b *builder) outName(i int) string {
	n := b.tensor(i).name
	if n == "" {
		n = "t" + strconv.Itoa(i)
	}
	return b.fresh(n)
}

// permuteTensor returns t with its axes reordered by perm (out axis k is
// in axis perm[k]).
func permuteTensor(t *canon.Tensor, perm []int64) (*canon.Tensor, error) {
	if len(t.Shape) != len(perm) {
		return nil, fmt.Errorf("cannot permute shape %v by %v", t.Shape, perm)
	}
	es := t.DType.Size()
	if es <= 0 {
		return nil, fmt.Errorf("cannot permute %s data", t.DType)
	}
	rank := len(perm)
	outShape := make([]int64, rank)
	for k, p := range perm {
		outShape[k] = t.Shape[p]
	}
	inStrides := make([]int64, rank)
	s := int64(1)
	for a := rank - 1; a >= 0; a-- {
		inStrides[a] = s
		s *= t.Shape[a]
	}
	n := canon.NumElements(t.Shape)
	if n*int64(es) != int64(len(t.Data)) {
		return nil, fmt.Errorf("shape %v does not match %d bytes of data", t.Shape, len(t.Data))
	}
	out := make([]byte, len(t.Data))
	idx := make([]int64, rank)
	for o := int64(0); o < n; o++ {
		var src int64
		for k := range rank {
			src += idx[k] * inStrides[perm[k]]
		}
		copy(out[o*int64(es):(o+1)*int64(es)], t.Data[src*int64(es):(src+1)*int64(es)])
		for k := rank - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < outShape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return &canon.Tensor{Name: t.Name, DType: t.DType, Shape: outShape, Layout: t.Layout, Data: out}, nil
}

// orderKept reports whether moving a tensor of NHWC shape between NHWC and
// NCHW leaves its elements in the same order (every axis that moves has
// size 1 or is the only axis of size > 1 among those it passes), so that a
// reshape may read either form.
func orderKept(nhwc []int64) bool {
	if len(nhwc) != 4 {
		return true
	}
	var big []int
	for _, a := range nhwcToNCHW {
		if nhwc[a] != 1 {
			big = append(big, int(a))
		}
	}
	for k := 1; k < len(big); k++ {
		if big[k] < big[k-1] {
			return false
		}
	}
	return true
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// safeProduct multiplies non-negative sizes, giving -1 (which no budget
// accepts) on overflow or a negative factor.
func safeProduct(v ...int64) int64 {
	p := int64(1)
	for _, x := range v {
		if x < 0 || (x != 0 && p > (1<<62)/x) {
			return -1
		}
		p *= x
	}
	return p
}

// base is a short prefix for the helper values and nodes of the op that
// writes tensor i: TFLite names often join several source names with ';',
// of which the first is kept. The op's result still takes the full name
// (define).
func (b *builder) base(i int) string {
	n := b.tensor(i).name
	if k := strings.IndexByte(n, ';'); k > 0 {
		n = n[:k]
	}
	if n == "" {
		n = "t" + strconv.Itoa(i)
	}
	return n
}
