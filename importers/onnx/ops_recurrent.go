package onnximport

import (
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	// Opset 7 gave the recurrent ops their current inputs (opset 1's
	// output_sequence attribute went away); 14 added layout, 22 bfloat16.
	// ONNX's weights are already the canonical ones (gate orders iofc and
	// zrh), so they pass through unchanged.
	optable.Add(&ops, map[string]opEntry{
		"LSTM": {func(c *nodeCtx) error {
			return convRecurrent(c, &canon.LSTM{InputForget: c.int("input_forget", 0) != 0})
		}, 7, []string{"LSTM"}},
		"GRU": {func(c *nodeCtx) error {
			return convRecurrent(c, &canon.GRU{LinearBeforeReset: c.int("linear_before_reset", 0) != 0})
		}, 7, []string{"GRU"}},
		"RNN": {func(c *nodeCtx) error { return convRecurrent(c, &canon.RNN{}) }, 7, []string{"RNN"}},
	})
}

// rnnActDefaults are the alpha and beta an activation takes when
// activation_alpha/beta run out: ONNX Runtime's (LeakyRelu 0.01,
// HardSigmoid 0.2 and 0.5, Elu 1; 0 otherwise).
var rnnActDefaults = map[canon.RNNActFn][2]float32{
	canon.ActLeakyRelu: {0.01, 0}, canon.ActHardSigmoid: {0.2, 0.5}, canon.ActElu: {1, 0},
}

func convRecurrent(c *nodeCtx, op canon.RecurrentOp) error {
	r := op.Rec()
	switch d := c.str("direction", "forward"); d {
	case "forward":
		r.Direction = canon.Forward
	case "reverse":
		r.Direction = canon.Reverse
	case "bidirectional":
		r.Direction = canon.Bidirectional
	default:
		return c.errf("direction %q is not forward, reverse or bidirectional", d)
	}
	dirs := r.Direction.NumDirections()
	r.HiddenSize = c.int("hidden_size", 0)
	if !c.has("hidden_size") {
		// R is (num_directions, gates·hidden, hidden).
		if v := c.info(2); v.RankKnown && len(v.Shape) == 3 && v.Shape[2].Known() {
			r.HiddenSize = v.Shape[2].Size
		} else {
			return c.errf("has no hidden_size attribute and R's shape is unknown; give the model's weights or the attribute")
		}
	}
	if r.HiddenSize < 1 {
		return c.errf("hidden_size %d must be >= 1", r.HiddenSize)
	}
	switch l := c.int("layout", 0); l {
	case 0:
	case 1:
		r.BatchFirst = true
	default:
		return c.errf("layout %d is not 0 (sequence first) or 1 (batch first)", l)
	}
	if c.has("clip") {
		r.Clip = c.float("clip", 0)
		if !(r.Clip > 0) {
			return c.errf("clip %g must be positive", r.Clip)
		}
	}
	acts, err := c.rnnActivations(op, dirs)
	if err != nil {
		return err
	}
	r.Activations = acts
	ins := make([]string, len(op.Signature().Inputs))
	for i := range ins {
		ins[i] = c.in(i)
	}
	if len(c.n.Input) > len(ins) {
		return c.errf("has %d inputs, %s takes at most %d", len(c.n.Input), c.op, len(ins))
	}
	outs := append([]string{}, c.n.Output...)
	for len(outs) > 0 && outs[len(outs)-1] == "" {
		outs = outs[:len(outs)-1]
	}
	if max := op.Signature().MaxOutputs; len(outs) > max {
		return c.errf("has %d outputs, %s has %d", len(outs), c.op, max)
	}
	if len(outs) == 0 {
		return c.errf("node has no output")
	}
	return c.emit(op, ins, outs)
}

// rnnActivations reads activations, activation_alpha and activation_beta.
// The alpha (beta) list holds values only for the activations that take
// one, in order, as ONNX Runtime reads it. A bidirectional node listing one
// direction's activations uses them for both.
func (c *nodeCtx) rnnActivations(op canon.RecurrentOp, dirs int) ([]canon.RNNActivation, error) {
	slots := op.ActivationSlots()
	a := c.attr("activations", onnxpb.AttributeProto_STRINGS)
	if a == nil {
		return canon.DefaultActivations(op, dirs), nil
	}
	names := a.Strings
	if len(names) == slots && dirs == 2 {
		names = append(append([][]byte{}, names...), names...)
	}
	if len(names) != slots*dirs {
		return nil, c.errf("lists %d activations; a %d-direction %s needs %d", len(a.Strings), dirs, c.op, slots*dirs)
	}
	alphas, betas := c.floats("activation_alpha"), c.floats("activation_beta")
	out := make([]canon.RNNActivation, len(names))
	for i, nm := range names {
		fn, ok := rnnActByName(string(nm))
		if !ok {
			return nil, c.errf("activation %q is not one ONNX allows (%s)", nm, strings.Join(canon.RNNActNames[:], ", "))
		}
		act := canon.RNNActivation{Fn: fn}
		def := rnnActDefaults[fn]
		if fn.UsesAlpha() {
			act.Alpha = def[0]
			if len(alphas) > 0 {
				act.Alpha, alphas = alphas[0], alphas[1:]
			}
		}
		if fn.UsesBeta() {
			act.Beta = def[1]
			if len(betas) > 0 {
				act.Beta, betas = betas[0], betas[1:]
			}
		}
		out[i] = act
	}
	return out, nil
}

// rnnActByName matches ONNX's names without regard to case, as ONNX
// Runtime does.
func rnnActByName(s string) (canon.RNNActFn, bool) {
	for i, n := range canon.RNNActNames {
		if strings.EqualFold(n, s) {
			return canon.RNNActFn(i), true
		}
	}
	return 0, false
}
