package mxnetimport

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// converter turns one MXNet node into canonical nodes and returns the
// canonical values of its visible outputs.
type converter func(b *builder, c *nodeCtx) ([]string, error)

// nodeCtx is the node being converted.
type nodeCtx struct {
	idx int
	n   *node
	a   attrs
}

func (c *nodeCtx) errf(format string, args ...any) error {
	return fmt.Errorf("node %s (%s): %s", c.n.Name, c.n.Op, fmt.Sprintf(format, args...))
}

// mxOp is one entry of the importer's op table: how an MXNet op is read,
// and the canonical kinds it is read as (the coverage reports them).
type mxOp struct {
	conv  converter
	kinds []string
}

// converters is the importer's op table, keyed by MXNet op name (every
// spelling the three symbol generations use).
var converters map[string]mxOp

// lacks names the canonical kinds no MXNet op is read as, with the reason.
var lacks = map[string]string{
	"HardSwish": "MXNet 1.x has no hard_swish op (x·hard_sigmoid(x) is read as HardSigmoid and Mul)",
	"Constant":  "MXNet symbols hold constants as parameters, which are read as initializers, not as nodes",
}

// activations are Activation's act_types.
var activations = map[string]canon.UnaryFn{
	"relu": canon.Relu, "sigmoid": canon.Sigmoid, "tanh": canon.Tanh,
	"softrelu": canon.Softplus, "softsign": canon.Softsign,
}

// unsupported explains MXNet ops and act_types the importer refuses
// (log_sigmoid and mish are MXNet 2.x Activation types).
var unsupported = map[string]string{
	"log_sigmoid": "log_sigmoid has no canonical op yet",
	"mish":        "mish has no canonical op yet",
}

func init() {
	bin := func(fn canon.BinaryFn) mxOp {
		return mxOp{func(b *builder, c *nodeCtx) ([]string, error) { return convBinary(b, c, fn) }, []string{fn.String()}}
	}
	scalar := func(fn canon.BinaryFn, reversed bool) mxOp {
		return mxOp{func(b *builder, c *nodeCtx) ([]string, error) { return convScalar(b, c, fn, reversed) }, []string{fn.String()}}
	}
	unary := func(fn canon.UnaryFn) mxOp {
		return mxOp{func(b *builder, c *nodeCtx) ([]string, error) { return single(b, c, &canon.Unary{Fn: fn}) }, []string{fn.String()}}
	}
	identity := mxOp{func(b *builder, c *nodeCtx) ([]string, error) { return single(b, c, &canon.Identity{}) }, []string{"Identity"}}
	var actKinds []string
	for _, fn := range activations {
		actKinds = append(actKinds, fn.String())
	}
	leakyKinds := map[string]bool{}
	for _, lt := range leakyTypes {
		leakyKinds[lt.kind] = true
	}
	softmax := []string{"Softmax"}
	optable.Add(&converters, map[string]mxOp{
		"Convolution":              {convConv, []string{"Conv"}},
		"Deconvolution":            {convDeconv, []string{"ConvTranspose"}},
		"BatchNorm":                {convBatchNorm, []string{"BatchNormalization"}},
		"Activation":               {convActivation, actKinds},
		"LeakyReLU":                {convLeakyReLU, sortedKeys(leakyKinds)},
		"Pooling":                  {convPooling, []string{"MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool", "LpPool", "GlobalLpPool"}},
		"FullyConnected":           {convFC, []string{"Linear"}},
		"Flatten":                  {convFlatten, []string{"Flatten"}},
		"flatten":                  {convFlatten, []string{"Flatten"}},
		"Concat":                   {convConcat, []string{"Concat"}},
		"concat":                   {convConcat, []string{"Concat"}},
		"SliceChannel":             {convSplit, []string{"Split"}},
		"split":                    {convSplit, []string{"Split"}},
		"Reshape":                  {convReshape, []string{"Reshape"}},
		"reshape":                  {convReshape, []string{"Reshape"}},
		"transpose":                {convTranspose, []string{"Transpose"}},
		"expand_dims":              {convExpandDims, []string{"Unsqueeze"}},
		"squeeze":                  {convSqueeze, []string{"Squeeze"}},
		"softmax":                  {convSoftmax, softmax},
		"SoftmaxOutput":            {convSoftmaxOutput, softmax},
		"Softmax":                  {convSoftmaxOutput, softmax}, // the pre-0.9 name of SoftmaxOutput
		"SoftmaxActivation":        {convSoftmaxActivation, softmax},
		"Dropout":                  {convDropout, []string{"Dropout"}},
		"clip":                     {convClip, []string{"Clip"}},
		"UpSampling":               {convUpSampling, []string{"Resize", "ConvTranspose"}},
		"Pad":                      {convPad, []string{"Pad"}},
		"pad":                      {convPad, []string{"Pad"}},
		"hard_sigmoid":             {convHardSigmoid, []string{"HardSigmoid"}},
		"mean":                     {convMean, []string{"ReduceMean"}},
		"slice_axis":               {convSliceAxis, []string{"Slice"}},
		"slice":                    {convSlice, []string{"Slice"}},
		"take":                     {convTake, []string{"Gather"}},
		"shape_array":              {convShapeArray, []string{"Shape"}},
		"dot":                      {convDot, []string{"MatMul"}},
		"batch_dot":                {convDot, []string{"MatMul"}},
		"add_n":                    {convAddN, []string{"Sum", "Identity"}},
		"ElementWiseSum":           {convAddN, []string{"Sum", "Identity"}},
		"relu":                     unary(canon.Relu),
		"sigmoid":                  unary(canon.Sigmoid),
		"tanh":                     unary(canon.Tanh),
		"LogisticRegressionOutput": unary(canon.Sigmoid),
		"LinearRegressionOutput":   identity,
		"MAERegressionOutput":      identity,
		"SVMOutput":                identity,
		"_copy":                    identity,
		"identity":                 identity,
		"BlockGrad":                identity,
		"stop_gradient":            identity,
	})
	for _, name := range []string{"elemwise_add", "_Plus", "_plus", "_add", "broadcast_add", "broadcast_plus"} {
		converters[name] = bin(canon.Add)
	}
	for _, name := range []string{"elemwise_sub", "_Minus", "_minus", "_sub", "broadcast_sub", "broadcast_minus"} {
		converters[name] = bin(canon.Sub)
	}
	for _, name := range []string{"elemwise_mul", "_Mul", "_mul", "broadcast_mul"} {
		converters[name] = bin(canon.Mul)
	}
	for _, name := range []string{"elemwise_div", "_Div", "_div", "broadcast_div"} {
		converters[name] = bin(canon.Div)
	}
	for name, s := range map[string]struct {
		fn  canon.BinaryFn
		rev bool
	}{
		"_plus_scalar": {canon.Add, false}, "_PlusScalar": {canon.Add, false},
		"_minus_scalar": {canon.Sub, false}, "_MinusScalar": {canon.Sub, false},
		"_rminus_scalar": {canon.Sub, true}, "_RMinusScalar": {canon.Sub, true},
		"_mul_scalar": {canon.Mul, false}, "_MulScalar": {canon.Mul, false},
		"_div_scalar": {canon.Div, false}, "_DivScalar": {canon.Div, false},
		"_rdiv_scalar": {canon.Div, true}, "_RDivScalar": {canon.Div, true},
	} {
		converters[name] = scalar(s.fn, s.rev)
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Ops is the importer's coverage, derived from converters and lacks: each
// canonical kind with the MXNet ops read as it, or why none is.
func Ops() canon.Coverage {
	byKind := map[string][]string{}
	for name, op := range converters {
		for _, k := range op.kinds {
			byKind[k] = append(byKind[k], name)
		}
	}
	cov := canon.Coverage{}
	for k, names := range byKind {
		sort.Strings(names)
		cov[k] = canon.Handles(strings.Join(names, ", "))
	}
	for k, why := range lacks {
		cov[k] = canon.Lacks(why)
	}
	return cov
}

// MXNet's fixed SELU constants (src/operator/leaky_relu-inl.h); as float32
// they equal canon.SeluAlpha and canon.SeluGamma.
const (
	mxnetSeluAlpha  = 1.6732632423543772848170429916717
	mxnetSeluLambda = 1.0507009873554804934193349852946
)

func (b *builder) convertNode(idx int, n *node) ([]string, error) {
	c := &nodeCtx{idx: idx, n: n, a: attrs{m: n.merged, node: n.Name, op: n.Op}}
	op, ok := converters[n.Op]
	if !ok {
		if why, ok := unsupported[n.Op]; ok {
			return nil, fmt.Errorf("node %s: MXNet op %q is not supported: %s (see `modelbridge ops`)", n.Name, n.Op, why)
		}
		return nil, fmt.Errorf("node %s: MXNet op %q is not supported by the importer (see `modelbridge ops`)", n.Name, n.Op)
	}
	return op.conv(b, c)
}

// in returns the value of data input k.
func (b *builder) in(c *nodeCtx, k int) (string, error) {
	return b.param(c, k, canon.RoleData, nil)
}

// param returns input k, typed as a weight in role when it is a variable.
func (b *builder) param(c *nodeCtx, k int, role canon.Role, want []int64) (string, error) {
	if k >= len(c.n.Inputs) {
		return "", c.errf("has %d inputs, input %d is missing", len(c.n.Inputs), k)
	}
	e := c.n.Inputs[k]
	if b.sym.Nodes[e.Node].Op == "null" {
		if e.Index != 0 {
			return "", c.errf("input %d refers to output %d of variable %s", k, e.Index, b.sym.Nodes[e.Node].Name)
		}
		return b.variable(e.Node, role, want, c.n.Name)
	}
	return b.output(e)
}

// single emits one op over data input 0 under the MXNet node's name.
func single(b *builder, c *nodeCtx, op canon.Op) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, op, []string{x}, out)
}

func ones(n int, v int64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// spatialAttrs reads kernel/stride/dilate/pad with MXNet's defaults (stride
// and dilation 1, no padding), checking that each matches the kernel rank.
func spatialAttrs(c *nodeCtx, kernelRequired bool) (kernel, stride, dilate, pad []int64, err error) {
	if kernelRequired {
		if err = c.a.required("kernel"); err != nil {
			return
		}
	}
	if kernel, err = c.a.ints("kernel", nil); err != nil {
		return
	}
	nd := len(kernel)
	if kernelRequired && (nd < 1 || nd > 3) {
		err = c.errf("kernel %v must have 1 to 3 dimensions", kernel)
		return
	}
	get := func(key string, def int64) ([]int64, error) {
		v, err := c.a.ints(key, nil)
		if err != nil {
			return nil, err
		}
		if len(v) == 0 {
			return ones(nd, def), nil
		}
		if len(v) != nd {
			return nil, c.errf("%s %v has %d values for a %d-D kernel", key, v, len(v), nd)
		}
		for _, x := range v {
			if x < 0 || (def == 1 && x == 0) {
				return nil, c.errf("%s %v has an invalid value", key, v)
			}
		}
		return v, nil
	}
	if stride, err = get("stride", 1); err != nil {
		return
	}
	if dilate, err = get("dilate", 1); err != nil {
		return
	}
	pad, err = get("pad", 0)
	for _, k := range kernel {
		if k <= 0 && err == nil {
			err = c.errf("kernel %v has a non-positive size", kernel)
		}
	}
	return
}

// dataLayout returns the node's layout attribute and the canonical
// channels-first layout for nd spatial axes; the two differ for NHWC etc.
func dataLayout(c *nodeCtx, nd int) (from, to string, err error) {
	to = "NC" + canon.SpatialLetters(nd)
	from = c.a.str("layout", to)
	if len(from) != len(to) {
		return "", "", c.errf("layout %s does not fit a %d-D kernel", from, nd)
	}
	if _, err := canon.Permutation(canon.Layout(from), canon.Layout(to)); err != nil {
		return "", "", c.errf("layout %s: %v", from, err)
	}
	return from, to, nil
}

// toChannelsFirst inserts a Transpose from layout from to to, if needed.
func (b *builder) transposeLayout(c *nodeCtx, x, from, to, suffix string) (string, error) {
	if from == to {
		return x, nil
	}
	perm, err := canon.Permutation(canon.Layout(from), canon.Layout(to))
	if err != nil {
		return "", c.errf("%v", err)
	}
	out := b.fresh(c.n.Name + suffix)
	return out, b.emit(out, &canon.Transpose{Perm: toInt64(perm)}, []string{x}, out)
}

func toInt64(p []int) []int64 {
	out := make([]int64, len(p))
	for i, v := range p {
		out[i] = int64(v)
	}
	return out
}

// weight fetches a weight stored in MXNet layout fileLayout and returns it
// in canonical layout canonLayout: initializers are permuted, computed
// weights get a Transpose node.
func (b *builder) weight(c *nodeCtx, k int, role canon.Role, wantCanon []int64, fileLayout, canonLayout string) (string, error) {
	perm, err := canon.Permutation(canon.Layout(canonLayout), canon.Layout(fileLayout))
	if err != nil {
		return "", c.errf("%v", err)
	}
	wantFile := make([]int64, len(wantCanon))
	for i, p := range perm {
		wantFile[i] = wantCanon[p]
	}
	w, err := b.param(c, k, role, wantFile)
	if err != nil || fileLayout == canonLayout {
		return w, err
	}
	back, _ := canon.Permutation(canon.Layout(fileLayout), canon.Layout(canonLayout))
	if u, ok := b.inits[w]; ok {
		if u.node != c.n.Name {
			return "", c.errf("weight %s in layout %s is shared with node %s; cannot permute it for both", w, fileLayout, u.node)
		}
		inFile := *u.t
		inFile.Layout = canon.Layout(fileLayout)
		nt, err := canon.PermuteTensor(&inFile, canon.Layout(canonLayout))
		if err != nil {
			return "", c.errf("%v", err)
		}
		*u.t = *nt
		vi := b.vals[w]
		vi.Shape = canon.DimsOf(nt.Shape...)
		vi.Const = u.t
		b.vals[w] = vi
		return w, nil
	}
	out := b.fresh(c.n.Name + "_weight_" + strings.ToLower(canonLayout))
	return out, b.emit(out, &canon.Transpose{Perm: toInt64(back)}, []string{w}, out)
}

func dimAt(s []int64, ok bool, axis int) int64 {
	if !ok || axis < 0 || axis >= len(s) {
		return -1
	}
	return s[axis]
}

// filterAttrs reads the num_filter, num_group and no_bias attributes that
// Convolution and Deconvolution share; only no_bias's default differs.
func filterAttrs(c *nodeCtx, noBiasDefault bool) (nf, group int64, noBias bool, err error) {
	if err = c.a.required("num_filter"); err != nil {
		return
	}
	if nf, err = c.a.int("num_filter", 0); err != nil {
		return
	}
	if group, err = c.a.int("num_group", 1); err != nil {
		return
	}
	if noBias, err = c.a.bool("no_bias", noBiasDefault); err != nil {
		return
	}
	if nf <= 0 || group <= 0 || nf%group != 0 {
		err = c.errf("num_filter %d must be a positive multiple of num_group %d", nf, group)
	}
	return
}

func convConv(b *builder, c *nodeCtx) ([]string, error) {
	kernel, stride, dilate, pad, err := spatialAttrs(c, true)
	if err != nil {
		return nil, err
	}
	nd := len(kernel)
	nf, group, noBias, err := filterAttrs(c, false)
	if err != nil {
		return nil, err
	}
	from, to, err := dataLayout(c, nd)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	cin := dimAt(xs, ok, strings.IndexByte(from, 'C'))
	if cin > 0 {
		if cin%group != 0 {
			return nil, c.errf("input has %d channels, not a multiple of num_group %d", cin, group)
		}
		cin /= group
	}
	xc, err := b.transposeLayout(c, x, from, to, "_nchw_in")
	if err != nil {
		return nil, err
	}
	wantW := append([]int64{nf, cin}, kernel...)
	// MXNet keeps the weight in the data layout's letter order (O for N,
	// I for C): NHWC data means an OHWI weight.
	fileW := strings.NewReplacer("N", "O", "C", "I").Replace(from)
	canonW, _ := canon.LayoutFor(canon.RoleConvWeight, nd+2)
	w, err := b.weight(c, 1, canon.RoleConvWeight, wantW, fileW, string(canonW))
	if err != nil {
		return nil, err
	}
	bias := ""
	if !noBias {
		if bias, err = b.param(c, 2, canon.RoleBias, []int64{nf}); err != nil {
			return nil, err
		}
	}
	op := &canon.Conv{Strides: stride, Dilations: dilate, PadsBegin: pad, PadsEnd: append([]int64(nil), pad...), Group: group}
	if from == to {
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, op, []string{xc, w, bias}, out)
	}
	mid := b.fresh(c.n.Name + "_nchw")
	if err := b.emit(mid, op, []string{xc, w, bias}, mid); err != nil {
		return nil, err
	}
	out, err := b.transposeLayout(c, mid, to, from, "")
	return []string{out}, err
}

func convDeconv(b *builder, c *nodeCtx) ([]string, error) {
	kernel, stride, dilate, pad, err := spatialAttrs(c, true)
	if err != nil {
		return nil, err
	}
	nd := len(kernel)
	// Unlike Convolution, Deconvolution has no bias unless asked.
	nf, group, noBias, err := filterAttrs(c, true)
	if err != nil {
		return nil, err
	}
	adj, err := c.a.ints("adj", nil)
	if err != nil {
		return nil, err
	}
	if len(adj) == 0 {
		adj = ones(nd, 0)
	}
	target, err := c.a.ints("target_shape", nil)
	if err != nil {
		return nil, err
	}
	if len(adj) != nd || (len(target) != 0 && len(target) != nd) {
		return nil, c.errf("adj %v / target_shape %v do not match the %d-D kernel", adj, target, nd)
	}
	if from, to, err := dataLayout(c, nd); err != nil {
		return nil, err
	} else if from != to {
		return nil, c.errf("Deconvolution with layout %s is not supported (only %s)", from, to)
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	cin := dimAt(xs, ok, 1)
	pb, pe := append([]int64(nil), pad...), append([]int64(nil), pad...)
	useTarget := false
	for _, t := range target {
		useTarget = useTarget || t != 0
	}
	if useTarget {
		// MXNet's InferPad: total = full - target; pad = ceil(total/2) on
		// both sides, adj = total % 2 added back at the end.
		s, err := b.staticShape(x, c.n.Name, "Deconvolution with target_shape")
		if err != nil {
			return nil, err
		}
		if len(s) != nd+2 {
			return nil, c.errf("input rank %d does not fit a %d-D kernel", len(s), nd)
		}
		for i := 0; i < nd; i++ {
			full := stride[i]*(s[2+i]-1) + dilate[i]*(kernel[i]-1) + 1
			total := full - target[i]
			if total < 0 {
				return nil, c.errf("target_shape %v is larger than the full output %d on axis %d", target, full, i)
			}
			adj[i] = total % 2
			pb[i] = (total + 1) / 2
			pe[i] = pb[i]
		}
	}
	w, err := b.param(c, 1, canon.RoleDeconvWeight, append([]int64{cin, nf / group}, kernel...))
	if err != nil {
		return nil, err
	}
	bias := ""
	if !noBias {
		if bias, err = b.param(c, 2, canon.RoleBias, []int64{nf}); err != nil {
			return nil, err
		}
	}
	op := &canon.ConvTranspose{Strides: stride, Dilations: dilate, PadsBegin: pb, PadsEnd: pe, OutputPadding: adj, Group: group}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, op, []string{x, w, bias}, out)
}

func convBatchNorm(b *builder, c *nodeCtx) ([]string, error) {
	eps, err := c.a.float("eps", 1e-3)
	if err != nil {
		return nil, err
	}
	fixGamma, err := c.a.bool("fix_gamma", true)
	if err != nil {
		return nil, err
	}
	axis, err := c.a.int("axis", 1)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	if axis != 1 {
		if !ok {
			return nil, c.errf("BatchNorm over axis %d needs the input rank; pass the input shapes", axis)
		}
		if axis < 0 {
			axis += int64(len(xs))
		}
		if axis < 0 || axis >= int64(len(xs)) {
			return nil, c.errf("axis %d is out of range for rank %d", axis, len(xs))
		}
		if len(xs) < 2 {
			return nil, c.errf("BatchNorm over axis %d needs an input of rank 2 or more, the input has rank %d", axis, len(xs))
		}
	}
	ch := dimAt(xs, ok, int(axis))
	want := []int64{ch}
	var gamma string
	if fixGamma {
		// fix_gamma: MXNet multiplies by 1 whatever the file holds.
		if len(c.n.Inputs) > 1 && b.sym.Nodes[c.n.Inputs[1].Node].Op == "null" {
			b.used[b.sym.Nodes[c.n.Inputs[1].Node].Name] = true
		}
		if ch < 0 {
			return nil, c.errf("fix_gamma=True needs the channel count to build the unit scale; pass the input shapes")
		}
		dt := b.vals[x].DType
		if a, ok := b.params[nameOfInput(b, c, 2)]; ok {
			dt = a.Tensor.DType
		}
		name := c.n.Name + "_gamma"
		if len(c.n.Inputs) > 1 {
			if v := b.sym.Nodes[c.n.Inputs[1].Node]; v.Op == "null" && !b.taken[v.Name] {
				name = v.Name
			}
		}
		if err := b.reserve(c, "unit scale of fix_gamma", dt, []int64{ch}); err != nil {
			return nil, err
		}
		t, err := filled(name, dt, []int64{ch}, 1)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		gamma = b.constant(t) // labelled by canon.AssignLayouts
	} else if gamma, err = b.param(c, 1, canon.RoleChannel, want); err != nil {
		return nil, err
	}
	beta, err := b.param(c, 2, canon.RoleChannel, want)
	if err != nil {
		return nil, err
	}
	mean, err := b.param(c, 3, canon.RoleChannel, want)
	if err != nil {
		return nil, err
	}
	variance, err := b.param(c, 4, canon.RoleChannel, want)
	if err != nil {
		return nil, err
	}
	op := &canon.BatchNorm{Epsilon: float32(eps)}
	if axis == 1 {
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, op, []string{x, gamma, beta, mean, variance}, out)
	}
	// Move axis to position 1, keeping the other axes in order (axis 0
	// swaps with axis 1).
	var others []int64
	for i := int64(0); i < int64(len(xs)); i++ {
		if i != axis {
			others = append(others, i)
		}
	}
	perm := append([]int64{others[0], axis}, others[1:]...)
	inv := make([]int64, len(xs))
	for i, p := range perm {
		inv[p] = int64(i)
	}
	t1 := b.fresh(c.n.Name + "_axis_in")
	if err := b.emit(t1, &canon.Transpose{Perm: perm}, []string{x}, t1); err != nil {
		return nil, err
	}
	mid := b.fresh(c.n.Name + "_axis1")
	if err := b.emit(mid, op, []string{t1, gamma, beta, mean, variance}, mid); err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Transpose{Perm: inv}, []string{mid}, out)
}

func nameOfInput(b *builder, c *nodeCtx, k int) string {
	if k >= len(c.n.Inputs) {
		return ""
	}
	return b.sym.Nodes[c.n.Inputs[k].Node].Name
}

// filled builds a tensor of shape filled with v in dtype dt.
func filled(name string, dt canon.DType, shape []int64, v float64) (*canon.Tensor, error) {
	one, err := encodeScalar(dt, v)
	if err != nil {
		return nil, err
	}
	n := canon.NumElements(shape)
	data := make([]byte, 0, n*int64(len(one)))
	for i := int64(0); i < n; i++ {
		data = append(data, one...)
	}
	return &canon.Tensor{Name: name, DType: dt, Shape: shape, Data: data}, nil
}

// encodeScalar stores v in dtype dt, the way MXNet casts a scalar
// attribute to the input's type.
func encodeScalar(dt canon.DType, v float64) ([]byte, error) {
	le := binary.LittleEndian
	switch dt {
	case canon.Float32:
		return le.AppendUint32(nil, math.Float32bits(float32(v))), nil
	case canon.Float64:
		return le.AppendUint64(nil, math.Float64bits(v)), nil
	case canon.Float16:
		return le.AppendUint16(nil, FloatToHalf(float32(v))), nil
	case canon.BFloat16:
		return le.AppendUint16(nil, uint16(math.Float32bits(float32(v))>>16)), nil
	case canon.Int8, canon.Uint8, canon.Bool:
		return []byte{byte(int64(v))}, nil
	case canon.Int16, canon.Uint16:
		return le.AppendUint16(nil, uint16(int64(v))), nil
	case canon.Int32, canon.Uint32:
		return le.AppendUint32(nil, uint32(int64(v))), nil
	case canon.Int64, canon.Uint64:
		return le.AppendUint64(nil, uint64(int64(v))), nil
	}
	return nil, fmt.Errorf("cannot make a %s constant", dt)
}

// FloatToHalf converts to IEEE binary16, rounding to nearest even.
func FloatToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff == 0:
		return sign
	case b>>23&0xff == 0xff: // inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		h := mant >> shift
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // may carry into the exponent, which is still correct
	}
	return sign | uint16(h)
}

func convActivation(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("act_type"); err != nil {
		return nil, err
	}
	t := c.a.str("act_type", "")
	if fn, ok := activations[t]; ok {
		return single(b, c, &canon.Unary{Fn: fn})
	}
	if why, ok := unsupported[t]; ok {
		return nil, c.errf("act_type=%s is not supported: %s", t, why)
	}
	return nil, c.errf("unknown act_type %q", t)
}

// leakyType is one of LeakyReLU's act_types: the canonical kind it is read
// as, and how (nil for prelu, whose slope is a learned input: convPRelu).
type leakyType struct {
	kind string
	op   func(c *nodeCtx) (canon.Op, error)
}

// leakyTypes are LeakyReLU's act_types (gelu_erf and gelu_tanh are MXNet
// 2.x's names).
var leakyTypes = map[string]leakyType{
	"leaky": {"LeakyRelu", func(c *nodeCtx) (canon.Op, error) {
		slope, err := c.a.float("slope", 0.25)
		return &canon.LeakyRelu{Alpha: float32(slope)}, err
	}},
	"rrelu": {"LeakyRelu", func(c *nodeCtx) (canon.Op, error) {
		// At inference RReLU uses the mean of its random slope range.
		lo, err := c.a.float("lower_bound", 0.125)
		if err != nil {
			return nil, err
		}
		hi, err := c.a.float("upper_bound", 0.334)
		return &canon.LeakyRelu{Alpha: float32((lo + hi) / 2)}, err
	}},
	"prelu": {"PRelu", nil},
	"elu": {"Elu", func(c *nodeCtx) (canon.Op, error) {
		slope, err := c.a.float("slope", 0.25)
		return &canon.Elu{Alpha: float32(slope)}, err
	}},
	"selu": {"Selu", func(c *nodeCtx) (canon.Op, error) {
		// SELU ignores slope: its constants are fixed.
		return &canon.Selu{Alpha: mxnetSeluAlpha, Gamma: mxnetSeluLambda}, nil
	}},
	// MXNet 1.x's gelu is the erf form (mshadow_op::gelu).
	"gelu":      {"Gelu", func(*nodeCtx) (canon.Op, error) { return &canon.Gelu{Approximate: canon.GeluExact}, nil }},
	"gelu_erf":  {"Gelu", func(*nodeCtx) (canon.Op, error) { return &canon.Gelu{Approximate: canon.GeluExact}, nil }},
	"gelu_tanh": {"Gelu", func(*nodeCtx) (canon.Op, error) { return &canon.Gelu{Approximate: canon.GeluTanh}, nil }},
}

func convLeakyReLU(b *builder, c *nodeCtx) ([]string, error) {
	t := c.a.str("act_type", "leaky")
	// slope is parsed whatever the type, as MXNet does.
	if _, err := c.a.float("slope", 0.25); err != nil {
		return nil, err
	}
	lt, ok := leakyTypes[t]
	switch {
	case ok && lt.op == nil:
		return convPRelu(b, c)
	case ok:
		op, err := lt.op(c)
		if err != nil {
			return nil, err
		}
		return single(b, c, op)
	}
	if why, ok := unsupported[t]; ok {
		return nil, c.errf("act_type=%s is not supported: %s", t, why)
	}
	return nil, c.errf("unknown act_type %q", t)
}

// convPRelu reshapes MXNet's per-channel gamma (C,) to (C, 1, ...) so that
// NumPy broadcasting applies it along axis 1, as MXNet does.
func convPRelu(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	if !ok {
		return nil, c.errf("PReLU needs the input rank to place its slope on the channel axis; pass the input shapes")
	}
	if len(xs) < 2 {
		return nil, c.errf("PReLU input has rank %d, want at least 2", len(xs))
	}
	ch := xs[1]
	g, err := b.param(c, 1, canon.RoleWeight, nil)
	if err != nil {
		return nil, err
	}
	gs, gok := b.shapeOf(g)
	if gok && len(gs) == 1 && (gs[0] == 1 || ch < 0 || gs[0] == ch) {
		ch = gs[0]
	} else if gok && len(gs) != len(xs)-1 {
		return nil, c.errf("PReLU gamma %s has shape %v; want (%d,)", g, gs, ch)
	}
	target := append([]int64{ch}, ones(len(xs)-2, 1)...)
	if u, ok := b.inits[g]; ok && len(u.t.Shape) == 1 {
		if u.node != c.n.Name {
			// Shared by several nodes: reshape a copy.
			if err := b.reserve(c, "reshaped copy of the shared slope "+g, u.t.DType, u.t.Shape); err != nil {
				return nil, err
			}
			t := *u.t
			t.Name = g + "_" + c.n.Name
			t.Shape = target
			g = b.constant(&t)
		} else {
			u.t.Shape = target
			vi := b.vals[g]
			vi.Shape = canon.DimsOf(target...)
			b.vals[g] = vi
		}
	} else if !ok && gok && len(gs) == 1 {
		if _, isInput := b.inputOrder[g]; isInput && b.params == nil {
			// Symbol-only: declare the input in its canonical shape.
			for i := range b.g.Inputs {
				if b.g.Inputs[i].Name == g {
					b.g.Inputs[i].Shape = canon.DimsOf(target...)
					b.g.Inputs[i].Shape[0] = canon.Dim{Size: ch}
					b.vals[g] = b.g.Inputs[i]
				}
			}
		} else {
			out := b.fresh(c.n.Name + "_slope")
			if err := b.emit(out, &canon.Reshape{Shape: target}, []string{g}, out); err != nil {
				return nil, err
			}
			g = out
		}
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.PRelu{}, []string{x, g}, out)
}

func convPooling(b *builder, c *nodeCtx) ([]string, error) {
	global, err := c.a.bool("global_pool", false)
	if err != nil {
		return nil, err
	}
	kernel, stride, _, pad, err := spatialAttrs(c, !global)
	if err != nil {
		return nil, err
	}
	if c.a.has("dilate") {
		return nil, c.errf("Pooling has no dilate attribute")
	}
	ptype := c.a.str("pool_type", "max")
	conv := c.a.str("pooling_convention", "valid")
	countPad, err := c.a.bool("count_include_pad", true)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	nd := len(kernel)
	if global && ok {
		if len(xs) < 3 {
			return nil, c.errf("global pooling needs an input of rank 3 or more (N, C, spatial...), the input has rank %d", len(xs))
		}
		nd = len(xs) - 2
	}
	from, to := "", ""
	if nd >= 1 && nd <= 3 {
		if from, to, err = dataLayout(c, nd); err != nil {
			return nil, err
		}
	} else if c.a.has("layout") {
		return nil, c.errf("layout needs the input rank; pass the input shapes")
	}
	xc, err := b.transposeLayout(c, x, from, to, "_nchw_in")
	if err != nil {
		return nil, err
	}
	var op canon.Op
	var scale float64 // sum pooling = average * window size
	switch {
	case global && ptype == "max":
		op = &canon.GlobalMaxPool{}
	case global && (ptype == "avg" || ptype == "sum"):
		op = &canon.GlobalAveragePool{}
		if ptype == "sum" {
			s, err := b.staticShape(x, c.n.Name, "global sum pooling")
			if err != nil {
				return nil, err
			}
			if len(s) < 3 {
				return nil, c.errf("global sum pooling needs an input of rank 3 or more, the input has rank %d", len(s))
			}
			scale = float64(canon.NumElements(s[2:]))
		}
	case global && ptype == "lp":
		if err := lpPValue(c); err != nil {
			return nil, err
		}
		op = &canon.GlobalLpPool{P: 2}
	case global:
		return nil, c.errf("pool_type=%s is not supported", ptype)
	default:
		ceil := false
		padEnd := append([]int64(nil), pad...)
		switch conv {
		case "valid":
		case "full":
			ceil = true
		case "same":
			if padEnd, err = samePoolingPads(c, xs, ok, kernel, stride, pad, ptype); err != nil {
				return nil, err
			}
		default:
			return nil, c.errf("pooling_convention=%s is not supported (only valid, full and same)", conv)
		}
		if ceil && ok {
			if err := checkFullPooling(c, xs, kernel, stride, pad); err != nil {
				return nil, err
			}
		}
		switch ptype {
		case "max":
			op = &canon.MaxPool{Kernel: kernel, Strides: stride, Dilations: ones(nd, 1), PadsBegin: pad, PadsEnd: padEnd, CeilMode: ceil}
		case "lp":
			if op, err = lpPooling(c, kernel, stride, pad, padEnd, ceil); err != nil {
				return nil, err
			}
		case "avg", "sum":
			if conv == "same" {
				return nil, c.errf("pooling_convention=same is read for max and lp pooling only")
			}
			if ptype == "sum" {
				if ceil {
					return nil, c.errf("sum pooling with pooling_convention=full is not supported (edge windows are clipped)")
				}
				countPad = true
				scale = float64(canon.NumElements(kernel))
			}
			op = &canon.AveragePool{Kernel: kernel, Strides: stride, Dilations: ones(nd, 1), PadsBegin: pad, PadsEnd: append([]int64(nil), pad...), CeilMode: ceil, CountIncludePad: countPad}
		default:
			return nil, c.errf("pool_type=%s is not supported", ptype)
		}
	}
	var outs []string
	cur := xc
	steps := []func(string) (canon.Op, []string){func(v string) (canon.Op, []string) { return op, []string{v} }}
	if scale != 0 {
		k, err := filled(c.n.Name+"_window", b.vals[x].DType, []int64{}, scale)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		kv := b.constant(k)
		steps = append(steps, func(v string) (canon.Op, []string) { return &canon.Binary{Fn: canon.Mul}, []string{v, kv} })
	}
	if from != to {
		perm, _ := canon.Permutation(canon.Layout(to), canon.Layout(from))
		steps = append(steps, func(v string) (canon.Op, []string) { return &canon.Transpose{Perm: toInt64(perm)}, []string{v} })
	}
	for i, step := range steps {
		name := c.n.Name
		if i < len(steps)-1 {
			name = fmt.Sprintf("%s_step%d", c.n.Name, i)
		}
		name = b.fresh(name)
		o, ins := step(cur)
		if err := b.emit(name, o, ins, name); err != nil {
			return nil, err
		}
		cur = name
	}
	outs = append(outs, cur)
	return outs, nil
}

// checkFullPooling refuses a "full" (ceil) pooling whose last window would
// start inside the end padding: MXNet keeps such a window, PyTorch and ONNX
// Runtime drop it, so the canonical CeilMode cannot say which is meant.
func checkFullPooling(c *nodeCtx, xs, kernel, stride, pad []int64) error {
	if len(xs) != len(kernel)+2 {
		return nil
	}
	for i, k := range kernel {
		in := xs[2+i]
		if in < 0 || pad[i] == 0 {
			continue
		}
		span := in + 2*pad[i] - k
		if span < 0 {
			continue
		}
		out := 1 + (span+stride[i]-1)/stride[i]
		if (out-1)*stride[i] >= in+pad[i] {
			return c.errf("with pooling_convention=full, pad %v and input size %d the last window lies entirely in the padding; MXNet keeps it but the canonical ceil mode drops it", pad, in)
		}
	}
	return nil
}

func convFC(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("num_hidden"); err != nil {
		return nil, err
	}
	nh, err := c.a.int("num_hidden", 0)
	if err != nil {
		return nil, err
	}
	if nh <= 0 {
		return nil, c.errf("num_hidden %d must be positive", nh)
	}
	noBias, err := c.a.bool("no_bias", false)
	if err != nil {
		return nil, err
	}
	flatten, err := c.a.bool("flatten", true)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	if ok && len(xs) == 0 {
		return nil, c.errf("FullyConnected needs an input of rank 1 or more, the input %s is a scalar", x)
	}
	k := int64(-1)
	var restore []int64
	switch {
	case ok && len(xs) == 2:
		k = xs[1]
	case flatten:
		// FullyConnected flattens (N, d1, d2, ...) to (N, d1*d2*...).
		if ok {
			k = canon.NumElements(xs[1:])
			for _, d := range xs[1:] {
				if d < 0 {
					k = -1
				}
			}
		}
		f := b.fresh(c.n.Name + "_flatten")
		if err := b.emit(f, &canon.Flatten{Axis: 1}, []string{x}, f); err != nil {
			return nil, err
		}
		x = f
	default:
		// flatten=False applies the layer to the last axis.
		s, err := b.staticShape(x, c.n.Name, "FullyConnected with flatten=False on a rank > 2 input")
		if err != nil {
			return nil, err
		}
		if len(s) == 0 {
			return nil, c.errf("FullyConnected needs an input of rank 1 or more, the input %s is a scalar", x)
		}
		k = s[len(s)-1]
		f := b.fresh(c.n.Name + "_2d")
		if err := b.emit(f, &canon.Reshape{Shape: []int64{-1, k}}, []string{x}, f); err != nil {
			return nil, err
		}
		x = f
		restore = append(append([]int64(nil), s[:len(s)-1]...), nh)
	}
	w, err := b.param(c, 1, canon.RoleLinearWeight, []int64{nh, k})
	if err != nil {
		return nil, err
	}
	bias := ""
	if !noBias {
		if bias, err = b.param(c, 2, canon.RoleWeight, []int64{nh}); err != nil {
			return nil, err
		}
	}
	op := &canon.Linear{Alpha: 1, Beta: 1}
	if restore == nil {
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, op, []string{x, w, bias}, out)
	}
	mid := b.fresh(c.n.Name + "_linear")
	if err := b.emit(mid, op, []string{x, w, bias}, mid); err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Reshape{Shape: restore}, []string{mid}, out)
}

func convFlatten(b *builder, c *nodeCtx) ([]string, error) {
	return single(b, c, &canon.Flatten{Axis: 1})
}

func convConcat(b *builder, c *nodeCtx) ([]string, error) {
	dim, err := c.a.int("dim", 1)
	if err != nil {
		return nil, err
	}
	if len(c.n.Inputs) == 0 {
		return nil, c.errf("Concat has no inputs")
	}
	ins := make([]string, len(c.n.Inputs))
	for i := range ins {
		if ins[i], err = b.in(c, i); err != nil {
			return nil, err
		}
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Concat{Axis: dim}, ins, out)
}

func normAxis(c *nodeCtx, axis int64, rank int) (int64, error) {
	if axis < 0 {
		axis += int64(rank)
	}
	if axis < 0 || axis >= int64(rank) {
		return 0, c.errf("axis %d is out of range for rank %d", axis, rank)
	}
	return axis, nil
}

func convSplit(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("num_outputs"); err != nil {
		return nil, err
	}
	num, err := c.a.int("num_outputs", 1)
	if err != nil {
		return nil, err
	}
	axis, err := c.a.int("axis", 1)
	if err != nil {
		return nil, err
	}
	squeeze, err := c.a.bool("squeeze_axis", false)
	if err != nil {
		return nil, err
	}
	if num < 1 || num > 1<<16 {
		return nil, c.errf("num_outputs %d is out of range", num)
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	if !ok {
		return nil, c.errf("splitting needs the input shape; pass the input shapes")
	}
	if axis, err = normAxis(c, axis, len(xs)); err != nil {
		return nil, err
	}
	d := xs[axis]
	if d < 0 || d%num != 0 {
		return nil, c.errf("axis %d of size %d cannot be split into %d equal parts", axis, d, num)
	}
	sizes := ones(int(num), d/num)
	name := b.fresh(c.n.Name)
	if squeeze {
		name = b.fresh(c.n.Name + "_split")
	}
	outs := make([]string, num)
	for i := range outs {
		outs[i] = b.fresh(fmt.Sprintf("%s_output%d", name, i))
		if !squeeze {
			outs[i] = b.fresh(fmt.Sprintf("%s_output%d", c.n.Name, i))
		}
	}
	if err := b.emit(name, &canon.Split{Axis: axis, Sizes: sizes}, []string{x}, outs...); err != nil {
		return nil, err
	}
	if !squeeze {
		return outs, nil
	}
	if d/num != 1 {
		return nil, c.errf("squeeze_axis=True needs parts of size 1, the parts have size %d", d/num)
	}
	res := make([]string, num)
	for i, o := range outs {
		res[i] = b.fresh(fmt.Sprintf("%s_output%d", c.n.Name, i))
		if err := b.emit(res[i], &canon.Squeeze{Axes: []int64{axis}}, []string{o}, res[i]); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func convTranspose(b *builder, c *nodeCtx) ([]string, error) {
	axes, err := c.a.ints("axes", nil)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	if len(axes) == 0 {
		xs, ok := b.shapeOf(x)
		if !ok {
			return nil, c.errf("transpose without axes reverses all axes and needs the input rank; pass the input shapes")
		}
		for i := len(xs) - 1; i >= 0; i-- {
			axes = append(axes, int64(i))
		}
	}
	for i, a := range axes {
		if a < 0 {
			axes[i] = a + int64(len(axes))
		}
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Transpose{Perm: axes}, []string{x}, out)
}

func convExpandDims(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("axis"); err != nil {
		return nil, err
	}
	axis, err := c.a.int("axis", 0)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	if axis < 0 {
		xs, ok := b.shapeOf(x)
		if !ok {
			return nil, c.errf("a negative axis needs the input rank; pass the input shapes")
		}
		axis += int64(len(xs)) + 1
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Unsqueeze{Axes: []int64{axis}}, []string{x}, out)
}

func convSqueeze(b *builder, c *nodeCtx) ([]string, error) {
	axes, err := c.a.ints("axis", nil)
	if err != nil {
		return nil, err
	}
	if len(axes) == 0 {
		axes = nil
	}
	return single(b, c, &canon.Squeeze{Axes: axes})
}

func convSoftmax(b *builder, c *nodeCtx) ([]string, error) {
	axis, err := c.a.int("axis", -1)
	if err != nil {
		return nil, err
	}
	if t, err := c.a.float("temperature", 1); err != nil || t != 1 {
		if err != nil {
			return nil, err
		}
		return nil, c.errf("softmax with temperature %g is not supported", t)
	}
	if l, err := c.a.bool("use_length", false); err != nil || l {
		if err != nil {
			return nil, err
		}
		return nil, c.errf("softmax with use_length=True is not supported")
	}
	return single(b, c, &canon.Softmax{Axis: axis})
}

// softmaxFlat is MXNet's "instance" softmax: over all axes but the first,
// i.e. on the input reshaped to (N, -1), keeping the input's shape.
func softmaxFlat(b *builder, c *nodeCtx) ([]string, error) {
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	xs, ok := b.shapeOf(x)
	if ok && len(xs) == 2 {
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, &canon.Softmax{Axis: 1}, []string{x}, out)
	}
	s, err := b.staticShape(x, c.n.Name, "softmax over a rank > 2 input")
	if err != nil {
		return nil, err
	}
	f := b.fresh(c.n.Name + "_flat")
	if err := b.emit(f, &canon.Flatten{Axis: 1}, []string{x}, f); err != nil {
		return nil, err
	}
	sm := b.fresh(c.n.Name + "_softmax")
	if err := b.emit(sm, &canon.Softmax{Axis: 1}, []string{f}, sm); err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Reshape{Shape: s}, []string{sm}, out)
}

func convSoftmaxOutput(b *builder, c *nodeCtx) ([]string, error) {
	multi, err := c.a.bool("multi_output", false)
	if err != nil {
		return nil, err
	}
	preserve, err := c.a.bool("preserve_shape", false)
	if err != nil {
		return nil, err
	}
	switch {
	case multi:
		return single(b, c, &canon.Softmax{Axis: 1})
	case preserve:
		return single(b, c, &canon.Softmax{Axis: -1})
	}
	return softmaxFlat(b, c)
}

func convSoftmaxActivation(b *builder, c *nodeCtx) ([]string, error) {
	switch m := c.a.str("mode", "instance"); m {
	case "channel":
		return single(b, c, &canon.Softmax{Axis: 1})
	case "instance":
		return softmaxFlat(b, c)
	default:
		return nil, c.errf("unknown mode %q", m)
	}
}

func convDropout(b *builder, c *nodeCtx) ([]string, error) {
	p, err := c.a.float("p", 0.5)
	if err != nil {
		return nil, err
	}
	// mode=always drops at inference too; that randomness is not kept.
	return single(b, c, &canon.Dropout{Ratio: float32(p)})
}

// boundF32 maps MXNet's float bound to float32, reading a bound at or past
// the float32 range as unbounded.
func boundF32(v float64) float32 {
	if v >= math.MaxFloat32 {
		return float32(math.Inf(1))
	}
	if v <= -math.MaxFloat32 {
		return float32(math.Inf(-1))
	}
	return float32(v)
}

func convClip(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("a_min"); err != nil {
		return nil, err
	}
	if err := c.a.required("a_max"); err != nil {
		return nil, err
	}
	lo, err := c.a.float("a_min", 0)
	if err != nil {
		return nil, err
	}
	hi, err := c.a.float("a_max", 0)
	if err != nil {
		return nil, err
	}
	return single(b, c, &canon.Clip{Min: boundF32(lo), Max: boundF32(hi)})
}

func convUpSampling(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("scale"); err != nil {
		return nil, err
	}
	scale, err := c.a.int("scale", 1)
	if err != nil {
		return nil, err
	}
	if t := c.a.str("sample_type", ""); t == "bilinear" {
		return convUpSamplingBilinear(b, c, scale)
	} else if t != "nearest" {
		return nil, c.errf("sample_type=%q is not supported (only nearest and bilinear)", t)
	}
	if n, _ := c.a.int("num_args", 1); n != 1 || len(c.n.Inputs) != 1 {
		return nil, c.errf("UpSampling of %d inputs is not supported (only one)", len(c.n.Inputs))
	}
	if scale < 1 {
		return nil, c.errf("scale %d must be positive", scale)
	}
	// Nearest upsampling by an integer factor is out[i] = in[floor(i/s)],
	// which is the asymmetric transform with floor rounding.
	s := float32(scale)
	return single(b, c, &canon.Resize{Scales: []float32{1, 1, s, s}, CoordTransform: canon.Asymmetric, Nearest: canon.Floor})
}

func convPad(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("pad_width"); err != nil {
		return nil, err
	}
	pw, err := c.a.ints("pad_width", nil)
	if err != nil {
		return nil, err
	}
	if len(pw) == 0 || len(pw)%2 != 0 {
		return nil, c.errf("pad_width %v must hold a (before, after) pair per axis", pw)
	}
	val, err := c.a.float("constant_value", 0)
	if err != nil {
		return nil, err
	}
	op := &canon.Pad{Value: float32(val)}
	switch m := c.a.str("mode", "constant"); m {
	case "constant":
		op.Mode = canon.PadConstant
	case "edge":
		op.Mode = canon.PadEdge
	case "reflect":
		op.Mode = canon.PadReflect
	default:
		return nil, c.errf("unknown mode %q", m)
	}
	for i := 0; i < len(pw); i += 2 {
		if pw[i] < 0 || pw[i+1] < 0 {
			return nil, c.errf("pad_width %v has a negative value", pw)
		}
		op.PadsBegin = append(op.PadsBegin, pw[i])
		op.PadsEnd = append(op.PadsEnd, pw[i+1])
	}
	return single(b, c, op)
}

func convHardSigmoid(b *builder, c *nodeCtx) ([]string, error) {
	alpha, err := c.a.float("alpha", 0.2)
	if err != nil {
		return nil, err
	}
	beta, err := c.a.float("beta", 0.5)
	if err != nil {
		return nil, err
	}
	return single(b, c, &canon.HardSigmoid{Alpha: float32(alpha), Beta: float32(beta)})
}

func convMean(b *builder, c *nodeCtx) ([]string, error) {
	axes, err := c.a.ints("axis", nil)
	if err != nil {
		return nil, err
	}
	keep, err := c.a.bool("keepdims", false)
	if err != nil {
		return nil, err
	}
	if ex, err := c.a.bool("exclude", false); err != nil || ex {
		if err != nil {
			return nil, err
		}
		return nil, c.errf("mean with exclude=True is not supported")
	}
	if len(axes) == 0 {
		axes = nil
	}
	return single(b, c, &canon.Reduce{Fn: canon.ReduceMean, Axes: axes, KeepDims: keep})
}

func convSliceAxis(b *builder, c *nodeCtx) ([]string, error) {
	axis, err := c.a.int("axis", 0)
	if err != nil {
		return nil, err
	}
	begin, err := c.a.int("begin", 0)
	if err != nil {
		return nil, err
	}
	end := int64(math.MaxInt64)
	if c.a.has("end") {
		if end, err = c.a.int("end", 0); err != nil {
			return nil, err
		}
	}
	return single(b, c, &canon.Slice{Starts: []int64{begin}, Ends: []int64{end}, Axes: []int64{axis}, Steps: []int64{1}})
}

// optInts reads a tuple whose entries may be None (slice's begin, end
// and step); given[i] is false for a None entry.
func (c *nodeCtx) optInts(key string) (vals []int64, given []bool, err error) {
	if !c.a.has(key) {
		return nil, nil, nil
	}
	s := strings.TrimSpace(c.a.m[key])
	if len(s) >= 2 && (s[0] == '(' && s[len(s)-1] == ')' || s[0] == '[' && s[len(s)-1] == ']') {
		s = s[1 : len(s)-1]
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" && i == len(parts)-1 {
			break // trailing comma, or an empty tuple
		}
		if p == "None" {
			vals, given = append(vals, 0), append(given, false)
			continue
		}
		v, err := parseInt(p)
		if err != nil {
			return nil, nil, c.a.errf(key, "%q is not an integer or None", p)
		}
		vals, given = append(vals, v), append(given, true)
	}
	return vals, given, nil
}

// convSlice reads slice(begin, end, step) over the leading axes. None
// bounds are the whole axis; negative steps are refused (MXNet's rules for
// their bounds differ from the canonical clamping).
func convSlice(b *builder, c *nodeCtx) ([]string, error) {
	if err := c.a.required("begin"); err != nil {
		return nil, err
	}
	if err := c.a.required("end"); err != nil {
		return nil, err
	}
	begin, bg, err := c.optInts("begin")
	if err != nil {
		return nil, err
	}
	end, eg, err := c.optInts("end")
	if err != nil {
		return nil, err
	}
	step, sg, err := c.optInts("step")
	if err != nil {
		return nil, err
	}
	if len(begin) != len(end) || (len(step) != 0 && len(step) != len(begin)) {
		return nil, c.errf("begin %v, end %v and step %v must have the same length", begin, end, step)
	}
	op := &canon.Slice{}
	for i := range begin {
		st := int64(1)
		if i < len(step) && sg[i] {
			st = step[i]
		}
		if st <= 0 {
			return nil, c.errf("step %d on axis %d is not supported (only positive steps)", st, i)
		}
		lo, hi := int64(0), int64(math.MaxInt64)
		if bg[i] {
			lo = begin[i]
		}
		if eg[i] {
			hi = end[i]
		}
		op.Starts = append(op.Starts, lo)
		op.Ends = append(op.Ends, hi)
		op.Axes = append(op.Axes, int64(i))
		op.Steps = append(op.Steps, st)
	}
	return single(b, c, op)
}

// convTake reads take(a, indices, axis, mode) as Gather. mode=wrap agrees
// with Gather on every index Gather accepts (negative ones count from the
// end); clip and raise agree only for indices already in range, so those
// modes are read only with constant in-range indices.
func convTake(b *builder, c *nodeCtx) ([]string, error) {
	axis, err := c.a.int("axis", 0)
	if err != nil {
		return nil, err
	}
	mode := c.a.str("mode", "clip")
	if mode != "clip" && mode != "wrap" && mode != "raise" {
		return nil, c.errf("unknown mode %q", mode)
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	idx, err := b.in(c, 1)
	if err != nil {
		return nil, err
	}
	if dt := b.vals[idx].DType; dt != canon.Int64 && dt != canon.Int32 {
		return nil, c.errf("indices %s have dtype %s; Gather needs int32 or int64 indices", idx, dt)
	}
	if mode != "wrap" {
		xs, ok := b.shapeOf(x)
		k := b.vals[idx].Const
		if !ok || k == nil {
			return nil, c.errf("take with mode=%s clamps indices, which Gather does not; only constant indices on an input of known shape can be read (or use mode=wrap)", mode)
		}
		a, err := normAxis(c, axis, len(xs))
		if err != nil {
			return nil, err
		}
		vals, err := k.Int64s()
		if err != nil {
			return nil, c.errf("indices %s: %v", idx, err)
		}
		for _, v := range vals {
			if v < 0 || xs[a] < 0 || v >= xs[a] {
				return nil, c.errf("take with mode=%s has index %d outside [0, %d), which Gather would read differently", mode, v, xs[a])
			}
		}
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Gather{Axis: axis}, []string{x, idx}, out)
}

func convShapeArray(b *builder, c *nodeCtx) ([]string, error) {
	return single(b, c, canon.NewShapeOf())
}

func convDot(b *builder, c *nodeCtx) ([]string, error) {
	for _, k := range []string{"transpose_a", "transpose_b"} {
		if t, err := c.a.bool(k, false); err != nil || t {
			if err != nil {
				return nil, err
			}
			return nil, c.errf("%s=True is not supported", k)
		}
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	y, err := b.in(c, 1)
	if err != nil {
		return nil, err
	}
	xs, ok1 := b.shapeOf(x)
	ys, ok2 := b.shapeOf(y)
	if !ok1 || !ok2 {
		return nil, c.errf("%s needs the ranks of its inputs; pass the input shapes", c.n.Op)
	}
	if c.n.Op == "batch_dot" {
		if len(xs) != 3 || len(ys) != 3 {
			return nil, c.errf("batch_dot is supported on 3-D inputs only, the inputs have ranks %d and %d", len(xs), len(ys))
		}
	} else if len(xs) < 1 || len(ys) < 1 || len(ys) > 2 || len(xs) == 1 && len(ys) == 1 {
		// dot contracts x's last axis with y's first: NumPy's matmul
		// agrees when y has rank 1 or 2 (and not both are vectors).
		return nil, c.errf("dot is supported when the second input has rank 1 or 2 (not both vectors), the inputs have ranks %d and %d", len(xs), len(ys))
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.MatMul{}, []string{x, y}, out)
}

// convAddN reads add_n (ElementWiseSum) as one variadic Sum: its inputs
// have one shape, so Sum's broadcasting changes nothing.
func convAddN(b *builder, c *nodeCtx) ([]string, error) {
	if len(c.n.Inputs) == 0 {
		return nil, c.errf("no inputs")
	}
	ins := make([]string, len(c.n.Inputs))
	for i := range ins {
		v, err := b.in(c, i)
		if err != nil {
			return nil, err
		}
		ins[i] = v
	}
	out := b.fresh(c.n.Name)
	if len(ins) == 1 {
		return []string{out}, b.emit(out, &canon.Identity{}, ins, out)
	}
	return []string{out}, b.emit(out, &canon.Variadic{Fn: canon.VarSum}, ins, out)
}

func convBinary(b *builder, c *nodeCtx, fn canon.BinaryFn) ([]string, error) {
	if len(c.n.Inputs) != 2 {
		return nil, c.errf("has %d inputs, want 2", len(c.n.Inputs))
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	y, err := b.in(c, 1)
	if err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Binary{Fn: fn}, []string{x, y}, out)
}

// convScalar turns x op scalar (or scalar op x) into a Binary with a 0-D
// constant of the input's dtype.
func convScalar(b *builder, c *nodeCtx, fn canon.BinaryFn, reversed bool) ([]string, error) {
	if err := c.a.required("scalar"); err != nil {
		return nil, err
	}
	s, err := c.a.float("scalar", 0)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	t, err := filled(c.n.Name+"_scalar", b.vals[x].DType, []int64{}, s)
	if err != nil {
		return nil, c.errf("%v", err)
	}
	k := b.constant(t)
	ins := []string{x, k}
	if reversed {
		ins = []string{k, x}
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Binary{Fn: fn}, ins, out)
}

// SourceOps maps each MXNet operator the importer reads to the canonical
// kinds it becomes.
func SourceOps() map[string][]string {
	out := map[string][]string{}
	for name, op := range converters {
		out[name] = op.kinds
	}
	return out
}
