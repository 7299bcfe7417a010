package canon

import (
	"fmt"
	"math"
	"strings"
)

// The recurrent family: one layer of LSTM, GRU or a simple RNN over a
// whole sequence, in one or both directions (ONNX LSTM/GRU/RNN, aten::lstm,
// aten::gru, aten::rnn_tanh/rnn_relu, MXNet's fused RNN).
//
// The canonical weights are ONNX's, and their layouts say so: W (DGI) is
// (num_directions, gates·hidden, input), R (DGI) is (num_directions,
// gates·hidden, hidden), B (DG) is (num_directions, 2·gates·hidden) holding
// the W biases then the R biases, and LSTM's peephole P (DG) is
// (num_directions, 3·hidden). The gate rows are in ONNX's order: i, o, f, c
// for LSTM; z, r, h for GRU. PyTorch (i, f, g, o and r, z, n) and MXNet
// (PyTorch's orders, in one flat vector) are reordered at import and
// export with ReorderGates; nothing after an importer sees their order.

func init() {
	for _, d := range recurrentOps() {
		Register(withReason(d, recurrentWithout))
	}
}

// Gate orders, one letter per block of hidden rows, in ONNX's names.
const (
	LSTMGates = "iofc" // canonical (ONNX) LSTM order
	GRUGates  = "zrh"  // canonical (ONNX) GRU order
	RNNGates  = "i"
	// TorchLSTMGates is PyTorch's and MXNet's LSTM order (i, f, g, o) in
	// ONNX's letters (g is ONNX's cell gate c).
	TorchLSTMGates = "ifco"
	// TorchGRUGates is PyTorch's and MXNet's GRU order (r, z, n) in ONNX's
	// letters (n is ONNX's hidden gate h).
	TorchGRUGates = "rzh"
)

// RNNDirection is the direction a recurrent layer reads its sequence in.
type RNNDirection uint8

const (
	Forward RNNDirection = iota
	Reverse
	Bidirectional
)

var directionNames = [...]string{Forward: "forward", Reverse: "reverse", Bidirectional: "bidirectional"}

func (d RNNDirection) String() string {
	if int(d) < len(directionNames) {
		return directionNames[d]
	}
	return fmt.Sprintf("direction(%d)", d)
}

// NumDirections is 2 for a bidirectional layer, else 1.
func (d RNNDirection) NumDirections() int {
	if d == Bidirectional {
		return 2
	}
	return 1
}

// RNNActFn is one of the activation functions ONNX's recurrent ops accept.
type RNNActFn uint8

const (
	ActRelu RNNActFn = iota
	ActTanh
	ActSigmoid
	ActAffine          // Alpha·x + Beta
	ActLeakyRelu       // x if x >= 0 else Alpha·x
	ActThresholdedRelu // x if x > Alpha else 0
	ActScaledTanh      // Alpha·tanh(Beta·x)
	ActHardSigmoid     // min(max(Alpha·x + Beta, 0), 1)
	ActElu             // x if x >= 0 else Alpha·(exp(x) - 1)
	ActSoftsign        // x / (1 + |x|)
	ActSoftplus        // log(1 + exp(x))
)

// RNNActNames are the ONNX spellings, indexed by RNNActFn.
var RNNActNames = [...]string{ActRelu: "Relu", ActTanh: "Tanh", ActSigmoid: "Sigmoid", ActAffine: "Affine",
	ActLeakyRelu: "LeakyRelu", ActThresholdedRelu: "ThresholdedRelu", ActScaledTanh: "ScaledTanh",
	ActHardSigmoid: "HardSigmoid", ActElu: "Elu", ActSoftsign: "Softsign", ActSoftplus: "Softplus"}

func (f RNNActFn) String() string {
	if int(f) < len(RNNActNames) {
		return RNNActNames[f]
	}
	return fmt.Sprintf("activation(%d)", f)
}

// UsesAlpha and UsesBeta say which parameters the function reads; ONNX's
// activation_alpha and activation_beta lists hold values only for those.
func (f RNNActFn) UsesAlpha() bool {
	switch f {
	case ActAffine, ActLeakyRelu, ActThresholdedRelu, ActScaledTanh, ActHardSigmoid, ActElu:
		return true
	}
	return false
}

func (f RNNActFn) UsesBeta() bool {
	return f == ActAffine || f == ActScaledTanh || f == ActHardSigmoid
}

// RNNActivation is one activation with its parameters, always explicit
// (the importer applies the defaults).
type RNNActivation struct {
	Fn    RNNActFn
	Alpha float32
	Beta  float32
}

// Apply evaluates the activation at x.
func (a RNNActivation) Apply(x float64) float64 {
	al, be := float64(a.Alpha), float64(a.Beta)
	switch a.Fn {
	case ActRelu:
		return math.Max(x, 0)
	case ActTanh:
		return math.Tanh(x)
	case ActSigmoid:
		return 1 / (1 + math.Exp(-x))
	case ActAffine:
		return al*x + be
	case ActLeakyRelu:
		if x >= 0 {
			return x
		}
		return al * x
	case ActThresholdedRelu:
		if x > al {
			return x
		}
		return 0
	case ActScaledTanh:
		return al * math.Tanh(be*x)
	case ActHardSigmoid:
		return math.Min(math.Max(al*x+be, 0), 1)
	case ActElu:
		if x >= 0 {
			return x
		}
		return al * (math.Exp(x) - 1)
	case ActSoftsign:
		return x / (1 + math.Abs(x))
	case ActSoftplus:
		if x > 30 {
			return x
		}
		return math.Log1p(math.Exp(x))
	}
	return math.NaN()
}

// Recurrent holds the attributes the three recurrent kinds share.
type Recurrent struct {
	HiddenSize int64
	Direction  RNNDirection
	// Activations has one entry per activation slot (f, g, h for LSTM; f,
	// g for GRU; f for RNN) per direction, forward first.
	Activations []RNNActivation
	// Clip bounds every gate's pre-activation to [-Clip, Clip]; 0: no clip.
	Clip float32
	// BatchFirst is ONNX's layout=1: X (batch, seq, input), Y (batch, seq,
	// num_directions, hidden), states (batch, num_directions, hidden).
	// Otherwise X is (seq, batch, input), Y (seq, num_directions, batch,
	// hidden) and states (num_directions, batch, hidden).
	BatchFirst bool
}

// Rec returns the shared attributes.
func (r *Recurrent) Rec() *Recurrent { return r }

// RecurrentOp is implemented by LSTM, GRU and RNN.
type RecurrentOp interface {
	Op
	Rec() *Recurrent
	// Gates is the canonical gate order, one letter per block of rows.
	Gates() string
	// ActivationSlots is the number of activations per direction.
	ActivationSlots() int
}

// Recurrent input slots.
const (
	RecX = iota
	RecW
	RecR
	RecB
	RecSequenceLens
	RecInitialH
	RecInitialC // LSTM only
	RecP        // LSTM only
)

func recurrentInputs(lstm bool) []InputSpec {
	in := []InputSpec{inX, {Name: "W", Role: RoleGateWeight}, {Name: "R", Role: RoleGateWeight},
		{Name: "B", Role: RoleGateVector, Optional: true}, {Name: "sequence_lens", Optional: true},
		{Name: "initial_h", Optional: true}}
	if lstm {
		in = append(in, InputSpec{Name: "initial_c", Optional: true}, InputSpec{Name: "P", Role: RoleGateVector, Optional: true})
	}
	return in
}

// LSTM is one LSTM layer (ONNX LSTM): outputs Y (every step's hidden
// state), Y_h (the last hidden state) and Y_c (the last cell state), each
// optional. InputForget couples the forget gate to the input gate
// (f = 1 - i).
type LSTM struct {
	Recurrent
	InputForget bool
}

func (*LSTM) Kind() string         { return "LSTM" }
func (*LSTM) Gates() string        { return LSTMGates }
func (*LSTM) ActivationSlots() int { return 3 }
func (*LSTM) Signature() Signature {
	return Signature{Inputs: recurrentInputs(true), MinOutputs: 1, MaxOutputs: 3}
}
func (*GRU) Kind() string         { return "GRU" }
func (*GRU) Gates() string        { return GRUGates }
func (*GRU) ActivationSlots() int { return 2 }
func (*GRU) Signature() Signature {
	return Signature{Inputs: recurrentInputs(false), MinOutputs: 1, MaxOutputs: 2}
}
func (*RNN) Kind() string         { return "RNN" }
func (*RNN) Gates() string        { return RNNGates }
func (*RNN) ActivationSlots() int { return 1 }
func (*RNN) Signature() Signature {
	return Signature{Inputs: recurrentInputs(false), MinOutputs: 1, MaxOutputs: 2}
}
func (o *LSTM) String() string       { return recString(o) }
func (o *GRU) String() string        { return recString(o) }
func (o *RNN) String() string        { return recString(o) }
func recString(o RecurrentOp) string { return fmt.Sprintf("%s(%s)", o.Kind(), o.Rec().Direction) }
func defaultActs(fns ...RNNActFn) []RNNActivation {
	out := make([]RNNActivation, len(fns))
	for i, f := range fns {
		out[i] = RNNActivation{Fn: f}
	}
	return out
}

// GRU is one GRU layer (ONNX GRU): outputs Y and Y_h. LinearBeforeReset
// applies the reset gate after the recurrent product and its bias, as
// PyTorch and cuDNN do; otherwise before it (ONNX's default).
type GRU struct {
	Recurrent
	LinearBeforeReset bool
}

// RNN is one simple recurrent layer (ONNX RNN): H = f(X·Wᵀ + H·Rᵀ + Wb +
// Rb); outputs Y and Y_h.
type RNN struct {
	Recurrent
}

// DefaultActivations is ONNX's default activation list for op, for the
// given number of directions.
func DefaultActivations(op RecurrentOp, dirs int) []RNNActivation {
	var one []RNNActivation
	switch op.(type) {
	case *LSTM:
		one = defaultActs(ActSigmoid, ActTanh, ActTanh)
	case *GRU:
		one = defaultActs(ActSigmoid, ActTanh)
	default:
		one = defaultActs(ActTanh)
	}
	var out []RNNActivation
	for range dirs {
		out = append(out, one...)
	}
	return out
}

func recurrentOps() []*OpDef {
	mk := func(kind, summary string, newOp func() RecurrentOp, example func() Example) *OpDef {
		return &OpDef{Kind: kind, Summary: summary,
			New: func() Op {
				op := newOp()
				op.Rec().Activations = DefaultActivations(op, 1)
				return op
			},
			Infer:              func(c *InferCtx) ([]ValueInfo, error) { return c.recurrent(c.n.Op.(RecurrentOp)) },
			Check:              func(c *CheckCtx) error { return checkRecurrent(c, c.N.Op.(RecurrentOp)) },
			Example:            example,
			AccumulationLength: recurrentSum,
		}
	}
	return []*OpDef{
		mk("LSTM", "one LSTM layer over a sequence (forward, reverse or bidirectional; peepholes, clip, sequence lengths)",
			func() RecurrentOp { return &LSTM{} }, func() Example {
				op := &LSTM{Recurrent: Recurrent{HiddenSize: 3, Direction: Bidirectional}}
				op.Activations = DefaultActivations(op, 2)
				return Example{Op: op, Outputs: 3, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{4, 2, 5}},
					exampleF32(2, 12, 5), exampleF32(2, 12, 3), exampleF32(2, 24)}}
			}),
		mk("GRU", "one GRU layer over a sequence (linear_before_reset selects PyTorch's form)",
			func() RecurrentOp { return &GRU{} }, func() Example {
				op := &GRU{Recurrent: Recurrent{HiddenSize: 3, Direction: Reverse}, LinearBeforeReset: true}
				op.Activations = DefaultActivations(op, 1)
				return Example{Op: op, Outputs: 2, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{4, 2, 5}},
					exampleF32(1, 9, 5), exampleF32(1, 9, 3), exampleF32(1, 18)}}
			}),
		mk("RNN", "one simple recurrent layer over a sequence: H = f(X·Wᵀ + H·Rᵀ + b)",
			func() RecurrentOp { return &RNN{} }, func() Example {
				op := &RNN{Recurrent: Recurrent{HiddenSize: 3}}
				op.Activations = DefaultActivations(op, 1)
				return Example{Op: op, Outputs: 2, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{4, 2, 5}},
					exampleF32(1, 3, 5), exampleF32(1, 3, 3), exampleF32(1, 6)}}
			}),
	}
}

func checkRecurrent(c *CheckCtx, op RecurrentOp) error {
	r := op.Rec()
	if r.HiddenSize < 1 || r.HiddenSize > 1<<30 {
		return c.Errorf("HiddenSize %d must be between 1 and 2^30", r.HiddenSize)
	}
	if r.Direction > Bidirectional {
		return c.Errorf("unknown direction %d", r.Direction)
	}
	if want := op.ActivationSlots() * r.Direction.NumDirections(); len(r.Activations) != want {
		return c.Errorf("has %d activations; a %s %s needs %d (%d per direction)", len(r.Activations), r.Direction, op.Kind(), want, op.ActivationSlots())
	}
	for _, a := range r.Activations {
		if int(a.Fn) >= len(RNNActNames) {
			return c.Errorf("unknown activation %d", a.Fn)
		}
	}
	if r.Clip < 0 || math.IsNaN(float64(r.Clip)) {
		return c.Errorf("Clip %g must be positive (0: no clip)", r.Clip)
	}
	return nil
}

// recurrent infers Y, Y_h (and Y_c) and checks every input's shape
// against X and the hidden size.
func (c *InferCtx) recurrent(op RecurrentOp) ([]ValueInfo, error) {
	r := op.Rec()
	x := c.in[RecX]
	if dt := x.DType; dt != Undefined && !dt.IsFloat() {
		return nil, c.errf("input X is %s: %s takes floating-point tensors", dt, op.Kind())
	}
	if err := c.needRank(RecX, 3, op.Kind()); err != nil {
		return nil, err
	}
	dirs := int64(r.Direction.NumDirections())
	gates := int64(len(op.Gates()))
	h := r.HiddenSize
	seq, batch, input := dimAt(x, 0), dimAt(x, 1), dimAt(x, 2)
	if r.BatchFirst {
		seq, batch = batch, seq
	}
	want := func(i int, what string, dims ...Dim) error {
		if !c.present(i) {
			return nil
		}
		v := c.in[i]
		if err := c.needRank(i, len(dims), op.Kind()); err != nil {
			return err
		}
		if !v.RankKnown {
			return nil
		}
		for k, d := range dims {
			if d.Known() && v.Shape[k].Known() && v.Shape[k].Size != d.Size {
				return c.errf("%s has shape %s; %s needs %s (%s)", c.slot(i), fmtShape(v), op.Kind(), fmtDims(dims), what)
			}
		}
		return nil
	}
	rows := knownDim(gates * h)
	state := []Dim{knownDim(dirs), batch, knownDim(h)}
	if r.BatchFirst {
		state = []Dim{batch, knownDim(dirs), knownDim(h)}
	}
	checks := []error{
		want(RecW, "num_directions, gates·hidden, input", knownDim(dirs), rows, input),
		want(RecR, "num_directions, gates·hidden, hidden", knownDim(dirs), rows, knownDim(h)),
		want(RecB, "num_directions, 2·gates·hidden", knownDim(dirs), knownDim(2*gates*h)),
		want(RecSequenceLens, "batch", batch),
		want(RecInitialH, "initial hidden state", state...),
	}
	if _, ok := op.(*LSTM); ok {
		checks = append(checks, want(RecInitialC, "initial cell state", state...),
			want(RecP, "num_directions, 3·hidden", knownDim(dirs), knownDim(3*h)))
	}
	for _, err := range checks {
		if err != nil {
			return nil, err
		}
	}
	if c.present(RecSequenceLens) {
		if dt := c.in[RecSequenceLens].DType; dt != Undefined && dt != Int32 && dt != Int64 {
			return nil, c.errf("sequence_lens is %s, want int32", dt)
		}
	}
	for i := RecW; i < len(c.in); i++ {
		if i != RecSequenceLens && c.present(i) {
			if err := c.sameDType(RecX, i); err != nil {
				return nil, err
			}
		}
	}
	y := []Dim{seq, knownDim(dirs), batch, knownDim(h)}
	if r.BatchFirst {
		y = []Dim{batch, seq, knownDim(dirs), knownDim(h)}
	}
	outs := []ValueInfo{shaped(x.DType, y), shaped(x.DType, state)}
	if _, ok := op.(*LSTM); ok {
		outs = append(outs, shaped(x.DType, cloneDims(state)))
	}
	return outs[:max(len(c.n.Outputs), 1)], nil
}

// ReorderGates returns a copy of t with the gate blocks along axis
// reordered from order from to order to (strings of the same gate letters,
// e.g. TorchLSTMGates to LSTMGates). The axis holds sets consecutive gate
// sets (2 for a bias holding the W biases then the R biases), each of
// len(from) equal blocks, each set reordered alike.
func ReorderGates(t *Tensor, axis, sets int, from, to string) (*Tensor, error) {
	if len(from) != len(to) || len(from) == 0 {
		return nil, fmt.Errorf("gate orders %q and %q differ in length", from, to)
	}
	perm := make([]int64, len(to))
	for i, g := range to {
		j := strings.IndexRune(from, g)
		if j < 0 {
			return nil, fmt.Errorf("gate %q of order %q is missing from order %q", g, to, from)
		}
		perm[i] = int64(j)
	}
	if axis < 0 || axis >= len(t.Shape) || sets < 1 {
		return nil, fmt.Errorf("tensor %q: axis %d out of range for shape %v", t.Name, axis, t.Shape)
	}
	if err := t.CheckData(); err != nil {
		return nil, err
	}
	n := int64(len(from)) * int64(sets)
	if t.Shape[axis]%n != 0 {
		return nil, fmt.Errorf("tensor %q: axis %d has %d rows, not %d sets of %d gates of equal size", t.Name, axis, t.Shape[axis], sets, len(from))
	}
	block := t.Shape[axis] / n * NumElements(t.Shape[axis+1:]) * int64(t.DType.Size()) // bytes of one gate block
	setBytes := block * int64(len(from))
	out := *t
	out.Data = make([]byte, len(t.Data))
	for base := int64(0); base < int64(len(t.Data)); base += setBytes {
		for i, j := range perm {
			copy(out.Data[base+int64(i)*block:base+int64(i+1)*block], t.Data[base+j*block:base+(j+1)*block])
		}
	}
	return &out, nil
}

// recurrentWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var recurrentWithout = Without{Accumulation: SumsNothing, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
