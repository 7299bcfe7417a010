package interp

import (
	"fmt"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"LSTM": float32Only(withOp(func(x *exec, op *canon.LSTM) error { return runRecurrent(x, op) })),
		"GRU":  float32Only(withOp(func(x *exec, op *canon.GRU) error { return runRecurrent(x, op) })),
		"RNN":  float32Only(withOp(func(x *exec, op *canon.RNN) error { return runRecurrent(x, op) })),
	})
}

// recurrentRun holds one recurrent node's inputs as plain slices, with the
// sizes every index computation needs.
type recurrentRun struct {
	op                      canon.RecurrentOp
	rec                     *canon.Recurrent
	seq, batch, input, hid  int
	dirs, gates             int
	x, w, r, b, p, h0, c0   []float32
	lens                    []int
	y, yh, yc               []float32
	lstm                    *canon.LSTM
	gru                     *canon.GRU
	gw, gr, hPrev, cPrev, t []float64 // per-step scratch
	rg, hh                  []float64 // GRU's reset gate and candidate
	lg                      []float64 // LSTM's i, f, c, o gates and tanh(c), a run of hid each
	h32                     []float32 // the state (or r ⊙ state) the recurrent products read
	xw                      []float32 // X·Wᵀ of one direction, every step at once
}

// runRecurrent runs an LSTM, GRU or RNN layer step by step, in float64,
// following ONNX's equations (and ONNX Runtime where ONNX is silent: the
// clip applies to every gate's pre-activation, peepholes included).
func runRecurrent(x *exec, op canon.RecurrentOp) error {
	rec := op.Rec()
	xin := x.in(canon.RecX)
	if err := needFloat(xin, "X"); err != nil {
		return err
	}
	if len(xin.shape) != 3 {
		return fmt.Errorf("X has shape %v, want rank 3", xin.shape)
	}
	k := &recurrentRun{op: op, rec: rec, seq: xin.shape[0], batch: xin.shape[1], input: xin.shape[2],
		hid: int(rec.HiddenSize), dirs: rec.Direction.NumDirections(), gates: len(op.Gates())}
	if rec.BatchFirst {
		k.seq, k.batch = k.batch, k.seq
	}
	k.lstm, _ = op.(*canon.LSTM)
	k.gru, _ = op.(*canon.GRU)
	if want := k.gates * k.dirs; len(rec.Activations) != op.ActivationSlots()*k.dirs || want == 0 {
		return fmt.Errorf("%d activations for %d directions", len(rec.Activations), k.dirs)
	}
	k.x = xin.f
	gh := k.gates * k.hid
	need := func(slot int, name string, shape ...int) ([]float32, error) {
		t := x.in(slot)
		if t == nil {
			return nil, nil
		}
		if err := needFloat(t, name); err != nil {
			return nil, err
		}
		if len(t.shape) != len(shape) || numel(t.shape) != numel(shape) {
			return nil, fmt.Errorf("%s has shape %v, want %v", name, t.shape, shape)
		}
		for i := range shape {
			if t.shape[i] != shape[i] {
				return nil, fmt.Errorf("%s has shape %v, want %v", name, t.shape, shape)
			}
		}
		return t.f, nil
	}
	state := []int{k.dirs, k.batch, k.hid}
	if rec.BatchFirst {
		state = []int{k.batch, k.dirs, k.hid}
	}
	var err error
	check := func(v []float32, e error) []float32 {
		if err == nil {
			err = e
		}
		return v
	}
	k.w = check(need(canon.RecW, "W", k.dirs, gh, k.input))
	k.r = check(need(canon.RecR, "R", k.dirs, gh, k.hid))
	k.b = check(need(canon.RecB, "B", k.dirs, 2*gh))
	k.h0 = check(need(canon.RecInitialH, "initial_h", state...))
	if k.lstm != nil {
		k.c0 = check(need(canon.RecInitialC, "initial_c", state...))
		k.p = check(need(canon.RecP, "P", k.dirs, 3*k.hid))
	}
	if err != nil {
		return err
	}
	if k.w == nil || k.r == nil {
		return fmt.Errorf("W and R are required")
	}
	k.lens = make([]int, k.batch)
	for i := range k.lens {
		k.lens[i] = k.seq
	}
	if t := x.in(canon.RecSequenceLens); t != nil {
		if t.isFloat() || len(t.shape) != 1 || t.shape[0] != k.batch {
			return fmt.Errorf("sequence_lens is %s%v, want int32 of shape [%d]", t.dt, t.shape, k.batch)
		}
		for i, v := range t.i {
			if v < 0 || v > int64(k.seq) {
				return fmt.Errorf("sequence_lens[%d] is %d; it must be between 0 and the sequence length %d", i, v, k.seq)
			}
			k.lens[i] = int(v)
		}
	}
	yShape := []int{k.seq, k.dirs, k.batch, k.hid}
	if rec.BatchFirst {
		yShape = []int{k.batch, k.seq, k.dirs, k.hid}
	}
	y, yh := x.newZF(yShape), x.newZF(state)
	k.y, k.yh = y.f, yh.f
	var yc *tensor
	if k.lstm != nil {
		yc = x.newZF(state)
		k.yc = yc.f
	}
	k.gw, k.gr = make([]float64, gh), make([]float64, gh)
	k.hPrev, k.cPrev, k.t = make([]float64, k.hid), make([]float64, k.hid), make([]float64, k.hid)
	k.rg, k.hh = make([]float64, k.hid), make([]float64, k.hid)
	if k.lstm != nil {
		k.lg = make([]float64, 5*k.hid)
	}
	k.h32 = make([]float32, k.hid)
	// The input products of every step are one GEMM per direction (rows
	// of X in memory order); only the recurrent products are step by step.
	rows := k.seq * k.batch
	k.xw = x.scratch(rows * gh)
	defer x.release(k.xw)
	for d := 0; d < k.dirs; d++ {
		if rows > 0 {
			w := k.w[d*gh*k.input : (d+1)*gh*k.input]
			if pb := x.constPackedB(canon.RecW, d, true, w, k.input, gh); pb != nil {
				gemmConstB(rows, gh, k.input, k.x, k.input, pb, k.xw, gh)
			} else {
				gemm(false, true, rows, gh, k.input, 1, k.x, k.input, w, k.input, k.xw, gh, 0)
			}
		}
		reverse := rec.Direction == canon.Reverse || d == 1
		for b := 0; b < k.batch; b++ {
			k.sequence(d, b, reverse)
		}
	}
	x.set(0, y)
	x.set(1, yh)
	if yc != nil {
		x.set(2, yc)
	}
	return nil
}

// stateAt is the offset of (direction d, batch b) in a state tensor.
// recurrentDot computes the recurrent products, and recurrentDot4 four
// rows of them at a time (dot32's sums, the state read once for the four);
// tests swap in dotGo, the plain float64 loop, and no recurrentDot4, to
// check the vector paths against it.
var (
	recurrentDot  = dot32
	recurrentDot4 = dot32x4
)

func (k *recurrentRun) stateAt(d, b int) int {
	if k.rec.BatchFirst {
		return (b*k.dirs + d) * k.hid
	}
	return (d*k.batch + b) * k.hid
}

func (k *recurrentRun) yAt(t, d, b int) int {
	if k.rec.BatchFirst {
		return ((b*k.seq+t)*k.dirs + d) * k.hid
	}
	return ((t*k.dirs+d)*k.batch + b) * k.hid
}

// xRow is the row of X (and of X·Wᵀ) holding step t of batch entry b.
func (k *recurrentRun) xRow(t, b int) int {
	if k.rec.BatchFirst {
		return b*k.seq + t
	}
	return t*k.batch + b
}

func (k *recurrentRun) clip(v float64) float64 {
	if c := float64(k.rec.Clip); c > 0 {
		return math.Min(math.Max(v, -c), c)
	}
	return v
}

// activationCost is an activation's work for parallelFor: an exponential
// costs about as much as a hundred multiply-adds.
const activationCost = 100

func (k *recurrentRun) act(d, slot int, v float64) float64 {
	return k.rec.Activations[d*k.op.ActivationSlots()+slot].Apply(v)
}

// actAll replaces every v[j] by act(d, slot, v[j]), Sigmoid and Tanh a
// vector at a time (their kernels give Apply's results bit for bit).
func (k *recurrentRun) actAll(d, slot int, v []float64) {
	a := k.rec.Activations[d*k.op.ActivationSlots()+slot]
	switch a.Fn {
	case canon.ActSigmoid:
		vec.Sigmoid64(v, v)
		return
	case canon.ActTanh:
		vec.Tanh64(v, v)
		return
	}
	for j := range v {
		v[j] = a.Apply(v[j])
	}
}

// products sets out[i] to the product of gate row first+i of r with the
// state in h32, for i in [lo, hi): four rows a call where it can.
func (k *recurrentRun) products(out []float64, r []float32, first, lo, hi int) {
	H := k.hid
	i := lo
	if recurrentDot4 != nil {
		var d [4]float32
		for ; i+4 <= hi; i += 4 {
			recurrentDot4(k.h32, r[(first+i)*H:(first+i+4)*H], H, &d)
			for q, v := range d {
				out[i+q] = float64(v)
			}
		}
	}
	for ; i < hi; i++ {
		out[i] = float64(recurrentDot(k.h32, r[(first+i)*H:(first+i+1)*H]))
	}
}

// sequence runs direction d over batch entry b's valid steps.
func (k *recurrentRun) sequence(d, b int, reverse bool) {
	H, gh := k.hid, k.gates*k.hid
	so := k.stateAt(d, b)
	for j := 0; j < H; j++ {
		k.hPrev[j], k.cPrev[j] = 0, 0
		if k.h0 != nil {
			k.hPrev[j] = float64(k.h0[so+j])
		}
		if k.c0 != nil {
			k.cPrev[j] = float64(k.c0[so+j])
		}
	}
	r := k.r[d*gh*H : (d+1)*gh*H]
	n := k.lens[b]
	for s := 0; s < n; s++ {
		t := s
		if reverse {
			t = n - 1 - s
		}
		xw := k.xw[k.xRow(t, b)*gh:]
		for j, v := range k.hPrev {
			k.h32[j] = float32(v)
		}
		if k.lstm != nil {
			// One parallel region a step: each core takes a run of units,
			// their four gate rows' products, then their gates and state.
			parallelFor(H, 8*H+5*activationCost, func(lo, hi int) {
				for g := range 4 {
					k.products(k.gr[g*H:], r, g*H, lo, hi)
					k.gatesIn(d, xw, g*H+lo, g*H+hi)
				}
				k.lstmUnits(d, lo, hi)
			})
			copy(k.hPrev, k.t)
		} else {
			// The recurrent product R·h, one dot product per gate row, rows
			// split between cores.
			parallelFor(gh, 2*H, func(lo, hi int) { k.products(k.gr, r, 0, lo, hi) })
			k.gatesIn(d, xw, 0, gh)
		}
		switch {
		case k.lstm != nil: // stepped above
		case k.gru != nil:
			k.gruStep(d, r)
		default:
			for j := 0; j < H; j++ {
				k.hPrev[j] = k.act(d, 0, k.clip(k.gw[j]+k.gr[j]))
			}
		}
		yo := k.yAt(t, d, b)
		for j := 0; j < H; j++ {
			k.y[yo+j] = float32(k.hPrev[j])
		}
	}
	for j := 0; j < H; j++ {
		k.yh[so+j] = float32(k.hPrev[j])
		if k.yc != nil {
			k.yc[so+j] = float32(k.cPrev[j])
		}
	}
}

// gatesIn sets gw to the input products of gate rows [lo, hi) plus their
// input bias, and adds the recurrent bias to gr's.
func (k *recurrentRun) gatesIn(d int, xw []float32, lo, hi int) {
	gh := k.gates * k.hid
	for row := lo; row < hi; row++ {
		k.gw[row] = float64(xw[row])
		if k.b != nil {
			k.gw[row] += float64(k.b[d*2*gh+row])
			k.gr[row] += float64(k.b[d*2*gh+gh+row])
		}
	}
}

// lstmUnits updates units [lo, hi) of cPrev and sets their new state in
// t; gate blocks are i, o, f, c and peepholes i, o, f. Each gate's
// pre-activations of the run are activated together.
func (k *recurrentRun) lstmUnits(d, lo, hi int) {
	H := k.hid
	peep := func(g, j int) float64 {
		if k.p == nil {
			return 0
		}
		return float64(k.p[d*3*H+g*H+j])
	}
	{
		gate := func(g int) []float64 { return k.lg[g*H+lo : g*H+hi] }
		gi, gf, gc, og, hc := gate(0), gate(1), gate(2), gate(3), gate(4)
		pre := func(g, j int) float64 { return k.gw[g*H+j] + k.gr[g*H+j] }
		for j := lo; j < hi; j++ {
			c := k.cPrev[j]
			gi[j-lo] = k.clip(pre(0, j) + peep(0, j)*c)
			if !k.lstm.InputForget {
				gf[j-lo] = k.clip(pre(2, j) + peep(2, j)*c)
			}
			gc[j-lo] = k.clip(pre(3, j))
		}
		k.actAll(d, 0, gi)
		if !k.lstm.InputForget {
			k.actAll(d, 0, gf)
		}
		k.actAll(d, 1, gc)
		for j := lo; j < hi; j++ {
			i, c := gi[j-lo], k.cPrev[j]
			f := gf[j-lo]
			if k.lstm.InputForget {
				f = 1 - i
			}
			c = f*c + i*gc[j-lo]
			og[j-lo] = k.clip(pre(1, j) + peep(1, j)*c)
			k.cPrev[j] = c
			hc[j-lo] = c
		}
		k.actAll(d, 0, og)
		k.actAll(d, 2, hc)
		for j := lo; j < hi; j++ {
			k.t[j] = og[j-lo] * hc[j-lo]
		}
	}
}

// gruStep updates hPrev; gate blocks are z, r, h. Without
// linear_before_reset the hidden gate's recurrent product is taken of
// r ⊙ H, which the generic product above could not know: it is redone here.
func (k *recurrentRun) gruStep(d int, r []float32) {
	H := k.hid
	z, rg, hh := k.t, k.rg, k.hh
	parallelFor(H, 2*activationCost, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			z[j] = k.clip(k.gw[j] + k.gr[j])
			rg[j] = k.clip(k.gw[H+j] + k.gr[H+j])
		}
		k.actAll(d, 0, z[lo:hi])
		k.actAll(d, 0, rg[lo:hi])
	})
	if !k.gru.LinearBeforeReset {
		for i, v := range k.hPrev {
			k.h32[i] = float32(rg[i] * v) // r ⊙ H
		}
	}
	cost := activationCost
	if !k.gru.LinearBeforeReset {
		cost += 2 * H
	}
	parallelFor(H, cost, func(lo, hi int) {
		if !k.gru.LinearBeforeReset {
			k.products(hh, r, 2*H, lo, hi)
		}
		for j := lo; j < hi; j++ {
			if k.gru.LinearBeforeReset {
				hh[j] = k.clip(k.gw[2*H+j] + rg[j]*k.gr[2*H+j])
				continue
			}
			s := hh[j]
			if k.b != nil {
				s += float64(k.b[d*2*3*H+3*H+2*H+j])
			}
			hh[j] = k.clip(k.gw[2*H+j] + s)
		}
		k.actAll(d, 1, hh[lo:hi])
	})
	for j := 0; j < H; j++ {
		k.hPrev[j] = (1-z[j])*hh[j] + z[j]*k.hPrev[j]
	}
}
