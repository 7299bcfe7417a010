package interp

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// The gates in float32 lanes: when every activation of a layer is Sigmoid
// or Tanh (ONNX's defaults), a step's gates, cell and state are float32,
// as ONNX Runtime computes them: the pre-activations gathered from X·Wᵀ
// (the biases folded in once a run) and the panels' products, each gate's
// run of units activated by one vec.Sigmoid32 or vec.Tanh32 call (within
// 2.40 and 1.12 ulp of the correctly rounded results), the cell and state
// updated in plain float32 loops, each product rounded on its own so that
// no build fuses them. Any other activation keeps the float64 path.

// recurrentFloat64 makes every layer take the float64 gate path: the
// tests' oracle for the float32 lanes.
var recurrentFloat64 = false

// recurrentLanes is what the float32 gate path keeps.
type recurrentLanes struct {
	lanes bool
	c32   []float32 // LSTM's cell state
	lg32  []float32 // LSTM: a run of units' i, f, o, g and tanh(c), 5 a unit
	z32   []float32 // GRU's update gate, a unit each
	r32   []float32 // GRU's reset gate
	hh32  []float32 // GRU's candidate
	rbh   []float32 // GRU with linear_before_reset: Rb of the candidate, per direction
}

// useLanes decides the gate path and makes its buffers.
func (k *recurrentRun) useLanes() {
	if recurrentFloat64 {
		return
	}
	for _, a := range k.rec.Activations {
		if a.Fn != canon.ActSigmoid && a.Fn != canon.ActTanh {
			return
		}
	}
	H := k.hid
	k.lanes = true
	switch {
	case k.lstm != nil:
		k.c32, k.lg32 = make([]float32, H), make([]float32, 5*H)
	case k.gru != nil:
		k.z32, k.r32, k.hh32 = make([]float32, H), make([]float32, H), make([]float32, H)
	}
}

// foldBiases adds direction d's biases to every row of X·Wᵀ: Wb + Rb of
// each gate, but for a GRU with linear_before_reset only Wb of the
// candidate, whose Rb is added to R·H before r multiplies it (rbh).
func (k *recurrentRun) foldBiases(d int) {
	if k.b == nil {
		k.rbh = nil
		return
	}
	gh := k.gates * k.hid
	wb, rb := k.b[d*2*gh:][:gh], k.b[d*2*gh+gh:][:gh]
	sum := make([]float32, gh)
	for i := range sum {
		sum[i] = wb[i] + rb[i]
	}
	k.rbh = nil
	if k.gru != nil && k.gru.LinearBeforeReset {
		H := k.hid
		copy(sum[2*H:], wb[2*H:])
		k.rbh = rb[2*H:]
	}
	for row := 0; row+gh <= len(k.xw); row += gh {
		xw := k.xw[row : row+gh]
		for i, v := range sum {
			xw[i] += v
		}
	}
}

// act32 applies activation slot of direction d to v in place.
func (k *recurrentRun) act32(slot int, v []float32) {
	if k.rec.Activations[k.d*k.op.ActivationSlots()+slot].Fn == canon.ActSigmoid {
		vec.Sigmoid32(v, v)
		return
	}
	vec.Tanh32(v, v)
}

// clip32 clips a run of pre-activations when the layer has a clip.
func (k *recurrentRun) clip32(v []float32) {
	c := k.rec.Clip
	if c <= 0 {
		return
	}
	for i, x := range v {
		if x > c {
			v[i] = c
		} else if x < -c {
			v[i] = -c
		}
	}
}

// startState32 loads direction d's initial state of batch entry b.
func (k *recurrentRun) startState32(so int) {
	h := k.h32[0]
	clear(h)
	if k.h0 != nil {
		copy(h, k.h0[so:so+k.hid])
	}
	if k.c32 != nil {
		clear(k.c32)
		if k.c0 != nil {
			copy(k.c32, k.c0[so:so+k.hid])
		}
	}
}

// endState32 writes the last state of a sequence to Y_h and Y_c.
func (k *recurrentRun) endState32(so int) {
	copy(k.yh[so:so+k.hid], k.h32[k.in])
	if k.yc != nil {
		copy(k.yc[so:so+k.hid], k.c32)
	}
}

// lstmUnits32 runs panels [plo, phi) of an LSTM step: their products,
// then units [lo, hi)'s gates (ONNX blocks i, o, f, c), cell and state.
func (k *recurrentRun) lstmUnits32(plo, phi int) {
	pk := k.packs[0]
	pr, h := k.pr[0], k.h32[k.in]
	pk.products(pr, h, plo, phi)
	H, u := k.hid, pk.units
	lo, hi := plo*u, min(phi*u, H)
	n := hi - lo
	buf := k.lg32[5*lo : 5*hi]
	gi, gf, og, gg, th := buf[:n], buf[n:2*n], buf[2*n:3*n], buf[3*n:4*n], buf[4*n:]
	xw := k.xwRow
	xi, xo, xf, xc := xw[lo:hi], xw[H+lo:H+hi], xw[2*H+lo:2*H+hi], xw[3*H+lo:3*H+hi]
	for q := range n {
		j := lo + q
		at := j/u*vec.PanelRows + j%u // gate 0's product; gate g's is u·g further
		gi[q] = xi[q] + pr[at]
		og[q] = xo[q] + pr[at+u]
		gf[q] = xf[q] + pr[at+2*u]
		gg[q] = xc[q] + pr[at+3*u]
	}
	c := k.c32[lo:hi]
	var po []float32
	if k.p != nil {
		d := k.d
		pi, pf := k.p[d*3*H+lo:][:n], k.p[d*3*H+2*H+lo:][:n]
		po = k.p[d*3*H+H+lo:][:n]
		for q := range n {
			gi[q] += float32(pi[q] * c[q])
			gf[q] += float32(pf[q] * c[q])
		}
	}
	if po == nil {
		k.clip32(buf[:4*n])
		k.act32(0, buf[:3*n]) // i, f, o
	} else {
		k.clip32(buf[:2*n])
		k.clip32(gg)
		k.act32(0, buf[:2*n])
	}
	k.act32(1, gg)
	if k.lstm.InputForget {
		for q, i := range gi {
			gf[q] = 1 - i
		}
	}
	for q := range n {
		cq := float32(gf[q]*c[q]) + float32(gi[q]*gg[q])
		c[q], th[q] = cq, cq
	}
	if po != nil {
		for q := range n {
			og[q] += float32(po[q] * c[q])
		}
		k.clip32(og)
		k.act32(0, og)
	}
	k.act32(2, th)
	next, y := k.h32[k.in^1][lo:hi], k.y[k.yo+lo:k.yo+hi]
	for q := range n {
		v := og[q] * th[q]
		next[q], y[q] = v, v
	}
}

// rnnUnits32 runs panels [plo, phi) of a plain RNN step.
func (k *recurrentRun) rnnUnits32(plo, phi int) {
	pk := k.packs[0]
	pr := k.pr[0]
	pk.products(pr, k.h32[k.in], plo, phi)
	lo, hi := plo*pk.units, min(phi*pk.units, k.hid)
	next := k.h32[k.in^1][lo:hi]
	for q := range next {
		next[q] = k.xwRow[lo+q] + pr[pk.at(0, lo+q)]
	}
	k.clip32(next)
	k.act32(0, next)
	copy(k.y[k.yo+lo:k.yo+hi], next)
}

// gruGates32 runs blocks [blo, bhi) of a GRU step (16 units a block, gate
// blocks z, r, h): the z and r gates, then with linear_before_reset the
// candidate and the state; without it r ⊙ H for gruState32's product.
func (k *recurrentRun) gruGates32(blo, bhi int) {
	zr := k.packs[0]
	pr, h := k.pr[0], k.h32[k.in]
	zr.products(pr, h, 2*blo, min(2*bhi, zr.panelCount()))
	lo, hi := k.gruBlock(blo, bhi)
	H, u := k.hid, zr.units
	z, r := k.z32[lo:hi], k.r32[lo:hi]
	for q := range z {
		j := lo + q
		at := j/u*vec.PanelRows + j%u
		z[q] = k.xwRow[j] + pr[at]
		r[q] = k.xwRow[H+j] + pr[at+u]
	}
	k.clip32(z)
	k.clip32(r)
	k.act32(0, z)
	k.act32(0, r)
	if !k.gru.LinearBeforeReset {
		rh := k.rh[lo:hi]
		for q, v := range r {
			rh[q] = v * h[lo+q]
		}
		return
	}
	k.packs[1].products(k.pr[1], h, blo, bhi)
	k.gruCandidate32(lo, hi)
}

// gruState32 runs blocks [blo, bhi) of a GRU step without
// linear_before_reset: the candidate's product with r ⊙ H, the candidate
// and the state.
func (k *recurrentRun) gruState32(blo, bhi int) {
	k.packs[1].products(k.pr[1], k.rh, blo, bhi)
	k.gruCandidate32(k.gruBlock(blo, bhi))
}

// gruCandidate32 sets units [lo, hi)'s candidate and new state.
func (k *recurrentRun) gruCandidate32(lo, hi int) {
	H := k.hid
	hp, pr := k.packs[1], k.pr[1]
	hh, xw := k.hh32[lo:hi], k.xwRow[2*H+lo:2*H+hi]
	if k.gru.LinearBeforeReset {
		r := k.r32[lo:hi]
		for q := range hh {
			rr := pr[hp.at(0, lo+q)]
			if k.rbh != nil {
				rr += k.rbh[lo+q]
			}
			hh[q] = xw[q] + float32(r[q]*rr)
		}
	} else {
		for q := range hh {
			hh[q] = xw[q] + pr[hp.at(0, lo+q)]
		}
	}
	k.clip32(hh)
	k.act32(1, hh)
	z, prev := k.z32[lo:hi], k.h32[k.in][lo:hi]
	next, y := k.h32[k.in^1][lo:hi], k.y[k.yo+lo:k.yo+hi]
	for q := range hh {
		v := float32((1-z[q])*hh[q]) + float32(z[q]*prev[q])
		next[q], y[q] = v, v
	}
}
