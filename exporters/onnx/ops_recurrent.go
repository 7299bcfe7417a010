package onnxexport

import (
	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	// The canonical weights are ONNX's (gate orders iofc and zrh): they
	// are written unchanged. bfloat16 needs the opset-22 schemas.
	types := func(_ canon.Op, dt canon.DType) int {
		if dt == canon.BFloat16 {
			return 22
		}
		return 0
	}
	optable.Add(&exports, map[string]exportEntry{
		"LSTM": {onnx: "LSTM", native: 7, write: writeRecurrent, typeOpset: types},
		"GRU":  {onnx: "GRU", native: 7, write: writeRecurrent, typeOpset: types},
		"RNN":  {onnx: "RNN", native: 7, write: writeRecurrent, typeOpset: types},
	})
}

// writeRecurrent writes the op with layout 0: a batch-first node gets
// Transposes around it, since ONNX Runtime implements only layout 0 (and
// opsets before 14 have no layout attribute).
func writeRecurrent(b *builder, n *canon.Node) error {
	op := n.Op.(canon.RecurrentOp)
	r := op.Rec()
	attrs := []*onnxpb.AttributeProto{attrInt("hidden_size", r.HiddenSize)}
	if r.Direction != canon.Forward {
		attrs = append(attrs, attrString("direction", r.Direction.String()))
	}
	if r.Clip > 0 {
		attrs = append(attrs, attrFloat("clip", r.Clip))
	}
	switch o := op.(type) {
	case *canon.LSTM:
		if o.InputForget {
			attrs = append(attrs, attrInt("input_forget", 1))
		}
	case *canon.GRU:
		if o.LinearBeforeReset {
			attrs = append(attrs, attrInt("linear_before_reset", 1))
		}
	}
	attrs = append(attrs, rnnActivationAttrs(op)...)
	ins := append([]string{}, n.Inputs...)
	outs := append([]string{}, n.Outputs...)
	if canon.RecSequenceLens < len(ins) && ins[canon.RecSequenceLens] != "" && b.dtype(ins[canon.RecSequenceLens]) != canon.Int32 {
		// ONNX's sequence_lens is int32 only.
		b.expanded = true
		ins[canon.RecSequenceLens] = b.castTo(n, ins[canon.RecSequenceLens], canon.Int32, "lens_i32")
	}
	if r.BatchFirst {
		b.expanded = true
		ins[canon.RecX] = b.transposed(n, ins[canon.RecX], "x_seq_first", []int64{1, 0, 2})
		for _, s := range []int{canon.RecInitialH, canon.RecInitialC} {
			if s < len(ins) && ins[s] != "" {
				ins[s] = b.transposed(n, ins[s], "state_dir_first", []int64{1, 0, 2})
			}
		}
		// Y (seq, dirs, batch, hidden) -> (batch, seq, dirs, hidden); the
		// states (dirs, batch, hidden) -> (batch, dirs, hidden).
		inner := make([]string, len(outs))
		for i, o := range outs {
			if o != "" {
				inner[i] = b.unique(prefix(n) + "_layout0_" + o)
			}
		}
		b.emit(n.Name, op.Kind(), ins, inner, attrs...)
		for i, o := range outs {
			if o == "" {
				continue
			}
			perm := []int64{1, 0, 2}
			if i == 0 {
				perm = []int64{2, 0, 1, 3}
			}
			b.emit(b.unique(prefix(n)+"_to_batch_first"), "Transpose", []string{inner[i]}, []string{o}, attrInts("perm", perm))
		}
		return nil
	}
	b.emit(n.Name, op.Kind(), ins, outs, attrs...)
	return nil
}

func attrFloats(name string, v []float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: v}
}

func attrStrings(name string, v []string) *onnxpb.AttributeProto {
	a := &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRINGS.Enum()}
	for _, s := range v {
		a.Strings = append(a.Strings, []byte(s))
	}
	return a
}

// transposed emits a Transpose of value v and returns its output.
func (b *builder) transposed(n *canon.Node, v, suffix string, perm []int64) string {
	out := b.unique(prefix(n) + "_" + suffix)
	b.emit(b.unique(prefix(n)+"_"+suffix), "Transpose", []string{v}, []string{out}, attrInts("perm", perm))
	return out
}

// rnnActivationAttrs writes the activation list when it differs from
// ONNX's default, with every alpha and beta spelled out.
func rnnActivationAttrs(op canon.RecurrentOp) []*onnxpb.AttributeProto {
	r := op.Rec()
	def := canon.DefaultActivations(op, r.Direction.NumDirections())
	same := len(def) == len(r.Activations)
	for i := range def {
		if same && r.Activations[i] != def[i] {
			same = false
		}
	}
	if same {
		return nil
	}
	var names []string
	var alphas, betas []float32
	for _, a := range r.Activations {
		names = append(names, a.Fn.String())
		if a.Fn.UsesAlpha() {
			alphas = append(alphas, a.Alpha)
		}
		if a.Fn.UsesBeta() {
			betas = append(betas, a.Beta)
		}
	}
	out := []*onnxpb.AttributeProto{attrStrings("activations", names)}
	if len(alphas) > 0 {
		out = append(out, attrFloats("activation_alpha", alphas))
	}
	if len(betas) > 0 {
		out = append(out, attrFloats("activation_beta", betas))
	}
	return out
}
