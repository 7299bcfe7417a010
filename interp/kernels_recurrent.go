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
	op                     canon.RecurrentOp
	rec                    *canon.Recurrent
	seq, batch, input, hid int
	dirs, gates            int
	x, w, r, b, p, h0, c0  []float32
	lens                   []int
	y, yh, yc              []float32
	lstm                   *canon.LSTM
	gru                    *canon.GRU
	hPrev, cPrev           []float64 // the state
	z, rg, hh              []float64 // GRU's update and reset gates and candidate
	lg                     []float64 // LSTM's i, f, c, o gates and tanh(c), a run of hid each
	xw                     []float32 // X·Wᵀ of one direction, every step at once
	recurrentStep                    // what one step reads and writes
	recurrentLanes                   // the float32 gate path (recurrent_lanes.go)
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
	k.hPrev, k.cPrev = make([]float64, k.hid), make([]float64, k.hid)
	if k.gru != nil {
		k.z, k.rg, k.hh = make([]float64, k.hid), make([]float64, k.hid), make([]float64, k.hid)
		k.rh = make([]float32, k.hid)
	}
	if k.lstm != nil {
		k.lg = make([]float64, 5*k.hid)
	}
	k.h32 = [2][]float32{make([]float32, k.hid), make([]float32, k.hid)}
	k.useLanes()
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
		if k.lanes {
			k.foldBiases(d)
		}
		reverse := rec.Direction == canon.Reverse || d == 1
		packs, release := x.recurrentPanels(k.r[d*gh*k.hid:(d+1)*gh*k.hid], k.hid, d, k.gateGroups())
		k.usePanels(packs)
		k.sequences(d, reverse)
		release()
	}
	x.set(0, y)
	x.set(1, yh)
	if yc != nil {
		x.set(2, yc)
	}
	return nil
}

// stateAt is the offset of (direction d, batch b) in a state tensor.
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
