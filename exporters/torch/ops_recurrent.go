package torchexport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	detail := "nn.LSTM/nn.GRU/nn.RNN with the weights in PyTorch's gate order (i,f,g,o; r,z,n) when PyTorch's cell is the same; " +
		"otherwise an exact step loop in forward() (peepholes, clip, every ONNX activation, sequence lengths, reverse, GRU without linear_before_reset, input_forget)"
	w := opWriter{write: writeRecurrent, floatOnly: "recurrent layers", detail: detail}
	optable.Add(&opWriters, map[string]opWriter{"LSTM": w, "GRU": w, "RNN": w})
}

func (gen *generator) given(i int) bool {
	return i < len(gen.node.Inputs) && gen.node.Inputs[i] != ""
}

func writeRecurrent(gen *generator, n *canon.Node) error {
	op := n.Op.(canon.RecurrentOp)
	if gen.torchModule(op) {
		return gen.recurrentModule(op)
	}
	return gen.recurrentLoop(op)
}

// torchModule reports whether nn.LSTM/GRU/RNN computes exactly the node:
// PyTorch's cells, no clip, no sequence lengths, forward or bidirectional,
// and float32 weights the layer can own.
func (gen *generator) torchModule(op canon.RecurrentOp) bool {
	r := op.Rec()
	if r.Clip != 0 || gen.given(canon.RecSequenceLens) || r.Direction == canon.Reverse {
		return false
	}
	if !gen.ownedInits(canon.Float32, canon.RecW, canon.RecR, canon.RecB) || gen.inits[gen.node.Inputs[canon.RecW]] == nil ||
		gen.inits[gen.node.Inputs[canon.RecR]] == nil {
		return false
	}
	same := func(fns ...canon.RNNActFn) bool {
		for i, a := range r.Activations {
			if a.Fn != fns[i%len(fns)] {
				return false
			}
		}
		return true
	}
	switch o := op.(type) {
	case *canon.LSTM:
		return !o.InputForget && !gen.given(canon.RecP) && same(canon.ActSigmoid, canon.ActTanh, canon.ActTanh)
	case *canon.GRU:
		return o.LinearBeforeReset && same(canon.ActSigmoid, canon.ActTanh)
	default:
		return same(canon.ActTanh) || same(canon.ActRelu)
	}
}

// torchGates is PyTorch's gate order for op, in canonical letters.
func torchGates(op canon.RecurrentOp) string {
	switch op.(type) {
	case *canon.LSTM:
		return canon.TorchLSTMGates
	case *canon.GRU:
		return canon.TorchGRUGates
	}
	return canon.RNNGates
}

// direction returns slice d of a (dirs, ...) weight as its own tensor.
func direction(t *canon.Tensor, d int) *canon.Tensor {
	per := int64(len(t.Data)) / t.Shape[0]
	return &canon.Tensor{DType: t.DType, Shape: append([]int64{}, t.Shape[1:]...), Data: t.Data[int64(d)*per : int64(d+1)*per]}
}

// recurrentModule writes an nn.LSTM/GRU/RNN whose state dict holds the
// canonical weights split per direction and reordered into PyTorch's gate
// order.
func (gen *generator) recurrentModule(op canon.RecurrentOp) error {
	r := op.Rec()
	dirs := r.Direction.NumDirections()
	H := r.HiddenSize
	wt := gen.inits[gen.node.Inputs[canon.RecW]]
	rt := gen.inits[gen.node.Inputs[canon.RecR]]
	var bt *canon.Tensor
	if gen.given(canon.RecB) {
		bt = gen.inits[gen.node.Inputs[canon.RecB]]
	}
	kind := map[string]string{"LSTM": "nn.LSTM", "GRU": "nn.GRU", "RNN": "nn.RNN"}[op.Kind()]
	args := []string{strconv.FormatInt(wt.Shape[2], 10), strconv.FormatInt(H, 10)}
	if _, ok := op.(*canon.RNN); ok && r.Activations[0].Fn == canon.ActRelu {
		args = append(args, `nonlinearity="relu"`)
	}
	args = append(args, "bias="+pyBool(bt != nil), "batch_first="+pyBool(r.BatchFirst), "bidirectional="+pyBool(dirs == 2))
	path := gen.claimPath(nil, gen.node.Name, strings.ToLower(op.Kind()))
	gen.layers[path] = true
	gen.register(path, kind+"("+strings.Join(args, ", ")+")", false)
	from, to := op.Gates(), torchGates(op)
	for d := 0; d < dirs; d++ {
		sfx := "_l0"
		if d == 1 {
			sfx += "_reverse"
		}
		add := func(key string, t *canon.Tensor, sets int) error {
			q, err := canon.ReorderGates(t, 0, sets, from, to)
			if err != nil {
				return gen.fail("%v", err)
			}
			gen.paths[path+"."+key] = true
			gen.addEntry(path+"."+key, "", q)
			return nil
		}
		if err := add("weight_ih"+sfx, direction(wt, d), 1); err != nil {
			return err
		}
		if err := add("weight_hh"+sfx, direction(rt, d), 1); err != nil {
			return err
		}
		if bt != nil {
			b := direction(bt, d)
			half := int64(len(b.Data)) / 2
			wb := &canon.Tensor{DType: b.DType, Shape: []int64{b.Shape[0] / 2}, Data: b.Data[:half]}
			rb := &canon.Tensor{DType: b.DType, Shape: []int64{b.Shape[0] / 2}, Data: b.Data[half:]}
			if err := add("bias_ih"+sfx, wb, 1); err != nil {
				return err
			}
			if err := add("bias_hh"+sfx, rb, 1); err != nil {
				return err
			}
		}
	}
	x, err := gen.in(canon.RecX)
	if err != nil {
		return err
	}
	// PyTorch's states are (dirs, batch, hidden) even with batch_first.
	state := func(i int) (string, error) {
		if !gen.given(i) {
			return "", nil
		}
		s, err := gen.in(i)
		if err != nil {
			return "", err
		}
		if r.BatchFirst {
			s += ".permute(1, 0, 2).contiguous()"
		}
		return s, nil
	}
	h0, err := state(canon.RecInitialH)
	if err != nil {
		return err
	}
	call := gen.access(path) + "(" + x
	yv, hv := gen.genName("y"), gen.genName("h")
	lhs := yv + ", " + hv
	if _, lstm := op.(*canon.LSTM); lstm {
		c0, err := state(canon.RecInitialC)
		if err != nil {
			return err
		}
		if h0 != "" || c0 != "" {
			if h0 == "" {
				h0 = "torch.zeros_like(" + c0 + ")"
			}
			if c0 == "" {
				c0 = "torch.zeros_like(" + h0 + ")"
			}
			call += ", (" + h0 + ", " + c0 + ")"
		}
		cv := gen.genName("c")
		lhs = yv + ", (" + hv + ", " + cv + ")"
		gen.forward = append(gen.forward, lhs+" = "+call+")")
		return gen.recurrentOutputs(op, yv, hv, cv)
	}
	if h0 != "" {
		call += ", " + h0
	}
	gen.forward = append(gen.forward, lhs+" = "+call+")")
	return gen.recurrentOutputs(op, yv, hv, "")
}

// recurrentOutputs turns PyTorch's (output, h_n[, c_n]) into the canonical
// Y (seq, dirs, batch, hidden) or, batch first, (batch, seq, dirs, hidden),
// and states (dirs, batch, hidden) or (batch, dirs, hidden).
func (gen *generator) recurrentOutputs(op canon.RecurrentOp, y, h, c string) error {
	r := op.Rec()
	dirs, H := r.Direction.NumDirections(), r.HiddenSize
	outs := gen.node.Outputs
	if len(outs) > 0 && outs[0] != "" {
		e := fmt.Sprintf("%s.reshape(%s.shape[0], %s.shape[1], %d, %d)", y, y, y, dirs, H)
		if !r.BatchFirst {
			e += ".permute(0, 2, 1, 3)"
		}
		gen.forward = append(gen.forward, gen.out(0)+" = "+e)
	}
	for i, s := range []string{h, c} {
		if i+1 >= len(outs) || outs[i+1] == "" || s == "" {
			continue
		}
		if r.BatchFirst {
			s += ".permute(1, 0, 2)"
		}
		gen.forward = append(gen.forward, gen.out(i+1)+" = "+s)
	}
	return nil
}

// actExpr is the PyTorch expression of an ONNX recurrent activation.
func actExpr(a canon.RNNActivation, v string) string {
	al, be := pyFloat(a.Alpha), pyFloat(a.Beta)
	v = "(" + v + ")"
	switch a.Fn {
	case canon.ActRelu:
		return "torch.relu(" + v + ")"
	case canon.ActTanh:
		return "torch.tanh(" + v + ")"
	case canon.ActSigmoid:
		return "torch.sigmoid(" + v + ")"
	case canon.ActAffine:
		return "(" + al + " * " + v + " + " + be + ")"
	case canon.ActLeakyRelu:
		return "F.leaky_relu(" + v + ", " + al + ")"
	case canon.ActThresholdedRelu:
		return "torch.where(" + v + " > " + al + ", " + v + ", torch.zeros_like(" + v + "))"
	case canon.ActScaledTanh:
		return "(" + al + " * torch.tanh(" + be + " * " + v + "))"
	case canon.ActHardSigmoid:
		return "torch.clamp(" + al + " * " + v + " + " + be + ", 0.0, 1.0)"
	case canon.ActElu:
		return "F.elu(" + v + ", " + al + ")"
	case canon.ActSoftsign:
		return "F.softsign(" + v + ")"
	case canon.ActSoftplus:
		return "F.softplus(" + v + ")"
	}
	return "None"
}

// recurrentLoop writes the layer as ONNX defines it, one time step per
// iteration, every batch entry at once: entry b reads step t (reverse:
// len_b-1-s) and keeps its state once past its length.
func (gen *generator) recurrentLoop(op canon.RecurrentOp) error {
	r := op.Rec()
	dirs, H := r.Direction.NumDirections(), r.HiddenSize
	G := int64(len(op.Gates())) * H
	slots := op.ActivationSlots()
	code := func(format string, args ...any) { gen.forward = append(gen.forward, fmt.Sprintf(format, args...)) }
	x, err := gen.in(canon.RecX)
	if err != nil {
		return err
	}
	ins := map[int]string{}
	for i := canon.RecW; i < len(gen.node.Inputs); i++ {
		if gen.given(i) {
			if ins[i], err = gen.in(i); err != nil {
				return err
			}
		}
	}
	xs := gen.genTemp("x", x)
	if r.BatchFirst {
		code("%s = %s.transpose(0, 1)", xs, xs)
	}
	lens := gen.genName("lens")
	if s, ok := ins[canon.RecSequenceLens]; ok {
		code("%s = %s.long()", lens, s)
	} else {
		code("%s = torch.full((%s.shape[1],), %s.shape[0], dtype=torch.long)", lens, xs, xs)
	}
	ar := gen.genTemp("batch", "torch.arange("+xs+".shape[1])")
	y := gen.genTemp("y", fmt.Sprintf("%s.new_zeros((%s.shape[0], %d, %s.shape[1], %d))", xs, xs, dirs, xs, H))
	clip := func(v string) string {
		if r.Clip > 0 {
			c := pyFloat(r.Clip)
			return "torch.clamp(" + v + ", -" + c + ", " + c + ")"
		}
		return v
	}
	state := func(i, d int) string {
		s, ok := ins[i]
		if !ok {
			return fmt.Sprintf("%s.new_zeros((%s.shape[1], %d))", xs, xs, H)
		}
		if r.BatchFirst {
			return fmt.Sprintf("%s[:, %d]", s, d)
		}
		return fmt.Sprintf("%s[%d]", s, d)
	}
	_, lstm := op.(*canon.LSTM)
	var hs, cs []string
	for d := 0; d < dirs; d++ {
		act := func(slot int, v string) string { return actExpr(r.Activations[d*slots+slot], v) }
		reverse := r.Direction == canon.Reverse || d == 1
		w := gen.genTemp("w", fmt.Sprintf("%s[%d]", ins[canon.RecW], d))
		rr := gen.genTemp("r", fmt.Sprintf("%s[%d]", ins[canon.RecR], d))
		wb, rb := "0", "0"
		if b, ok := ins[canon.RecB]; ok {
			wb = gen.genTemp("wb", fmt.Sprintf("%s[%d, :%d]", b, d, G))
			rb = gen.genTemp("rb", fmt.Sprintf("%s[%d, %d:]", b, d, G))
		}
		h := gen.genTemp("h", state(canon.RecInitialH, d))
		var c string
		if lstm {
			c = gen.genTemp("c", state(canon.RecInitialC, d))
		}
		s, t := gen.genName("s"), gen.genName("t")
		code("for %s in range(%s.shape[0]):", s, xs)
		in := func(format string, args ...any) { code("    "+format, args...) }
		if reverse {
			in("%s = (%s - 1 - %s).clamp(min=0)", t, lens, s)
		} else {
			in("%s = torch.full_like(%s, %s)", t, lens, s)
		}
		valid := gen.genName("valid")
		in("%s = (%s < %s).unsqueeze(1)", valid, s, lens)
		gw, gr := gen.genName("gw"), gen.genName("gr")
		in("%s = %s[%s, %s] @ %s.t() + %s", gw, xs, t, ar, w, wb)
		in("%s = %s @ %s.t() + %s", gr, h, rr, rb)
		hn := gen.genName("hn")
		blk := func(v string, k int64) string { return fmt.Sprintf("%s[:, %d:%d]", v, k*H, (k+1)*H) }
		switch o := op.(type) {
		case *canon.LSTM:
			peep := func(k int64, cell string) string {
				p, ok := ins[canon.RecP]
				if !ok {
					return ""
				}
				return fmt.Sprintf(" + %s[%d, %d:%d] * %s", p, d, k*H, (k+1)*H, cell)
			}
			g := gen.genName("g")
			in("%s = %s + %s", g, gw, gr)
			gi, gf, cn := gen.genName("i"), gen.genName("f"), gen.genName("cn")
			in("%s = %s", gi, act(0, clip(blk(g, 0)+peep(0, c))))
			if o.InputForget {
				in("%s = 1 - %s", gf, gi)
			} else {
				in("%s = %s", gf, act(0, clip(blk(g, 2)+peep(2, c))))
			}
			in("%s = %s * %s + %s * %s", cn, gf, c, gi, act(1, clip(blk(g, 3))))
			in("%s = %s * %s", hn, act(0, clip(blk(g, 1)+peep(1, cn))), act(2, cn))
			in("%s = torch.where(%s, %s, %s)", c, valid, cn, c)
		case *canon.GRU:
			z, rg, hh := gen.genName("z"), gen.genName("rg"), gen.genName("hh")
			in("%s = %s", z, act(0, clip(blk(gw, 0)+" + "+blk(gr, 0))))
			in("%s = %s", rg, act(0, clip(blk(gw, 1)+" + "+blk(gr, 1))))
			if o.LinearBeforeReset {
				in("%s = %s", hh, act(1, clip(blk(gw, 2)+" + "+rg+" * "+blk(gr, 2))))
			} else {
				rbh := "0"
				if ins[canon.RecB] != "" {
					rbh = fmt.Sprintf("%s[%d:]", rb, 2*H)
				}
				in("%s = %s", hh, act(1, clip(fmt.Sprintf("%s + (%s * %s) @ %s[%d:].t() + %s", blk(gw, 2), rg, h, rr, 2*H, rbh))))
			}
			in("%s = (1 - %s) * %s + %s * %s", hn, z, hh, z, h)
		default:
			in("%s = %s", hn, act(0, clip(gw+" + "+gr)))
		}
		in("%s = torch.where(%s, %s, %s)", h, valid, hn, h)
		in("%s[%s, %d, %s] = torch.where(%s, %s, %s[%s, %d, %s])", y, t, d, ar, valid, hn, y, t, d, ar)
		hs = append(hs, h)
		cs = append(cs, c)
	}
	outs := gen.node.Outputs
	if outs[0] != "" {
		e := y
		if r.BatchFirst {
			e += ".permute(2, 0, 1, 3)"
		}
		code("%s = %s", gen.out(0), e)
	}
	dim := "0"
	if r.BatchFirst {
		dim = "1"
	}
	if len(outs) > 1 && outs[1] != "" {
		code("%s = torch.stack([%s], dim=%s)", gen.out(1), strings.Join(hs, ", "), dim)
	}
	if len(outs) > 2 && outs[2] != "" {
		code("%s = torch.stack([%s], dim=%s)", gen.out(2), strings.Join(cs, ", "), dim)
	}
	return nil
}
