package interp

// One step of a recurrent layer: the recurrent products of the step's
// state with R's packed panels (recurrent_panels.go) and the gates, in one
// region a step (two for a GRU whose candidate reads r ⊙ H), each part a
// run of hidden units: their rows of every gate, their gates, their new
// state. With two cores the parts are chunks the caller and a helper
// claim (recurrent_crew.go). The state the products read is
// double-buffered (each part writes the next step's for its units while
// others may still read this step's), so nothing is left to do between
// regions.

// recurrentStep is what one step reads and writes.
type recurrentStep struct {
	d     int
	packs []*gatePanels // the direction's R: LSTM one group, GRU z+r and h, RNN one
	pr    [][]float32   // each pack's products this step
	h32   [2][]float32  // the state as the products read it: this step's (in) and the next's
	in    int
	rh    []float32 // GRU: r ⊙ state, what the candidate's product reads
	xwRow []float32 // this step's row of X·Wᵀ
	yo    int       // this step's offset in Y
	// the step's parts, made once a run: allocation-free steps
	lstmPart, rnnPart, gruGatesPart, gruStatePart func(lo, hi int)
	// crew runs the step's regions with a helper; nil: on the caller alone
	crew *stepCrew
}

// gateGroups is how R's gate blocks are packed: a GRU's candidate may read
// r ⊙ H rather than H, so its rows are a group of their own.
func (k *recurrentRun) gateGroups() [][]int {
	switch {
	case k.lstm != nil:
		return [][]int{{0, 1, 2, 3}}
	case k.gru != nil:
		return [][]int{{0, 1}, {2}}
	}
	return [][]int{{0}}
}

// usePanels makes the packed R of the next direction current.
func (k *recurrentRun) usePanels(packs []*gatePanels) {
	k.packs = packs
	for len(k.pr) < len(packs) {
		k.pr = append(k.pr, nil)
	}
	for i, g := range packs {
		if n := g.panelCount() * 16; len(k.pr[i]) < n {
			k.pr[i] = make([]float32, n)
		}
	}
	switch {
	case k.lstmPart != nil:
	case k.lanes:
		k.lstmPart, k.rnnPart = k.lstmUnits32, k.rnnUnits32
		k.gruGatesPart, k.gruStatePart = k.gruGates32, k.gruState32
	default:
		k.lstmPart, k.rnnPart = k.lstmUnits, k.rnnUnits
		k.gruGatesPart, k.gruStatePart = k.gruGates, k.gruState
	}
}

// region runs f over [0, n): with the crew when there is one.
func (k *recurrentRun) region(n int, f func(lo, hi int)) {
	if k.crew == nil {
		f(0, n)
		return
	}
	k.crew.run(f, n)
}

// recurrentTwoCores lets a layer's steps run with a crew (two cores) when
// a step streams at least recurrentCrewBytes of packed R. With the gates
// in float32 lanes the products are most of a step, and halves of them
// scale on two cores; a crew whose helper is descheduled goes on alone
// (recurrent_crew.go). Measured on a quiet machine (docs/performance.md):
// BenchmarkVsORT/LSTMh512s64 -cpu 2 (4 MB of R a step) 10.1 → 5.8 ms a
// run; the op families' LSTM of 256 units (1 MB a step, about 17 µs) 0.54
// → 0.42 ms once the crew's helper became the team's (it is running when
// the steps start). At load the crew measured no worse than one core.
var recurrentTwoCores = true

// recurrentCrewBytes is the packed R a step must stream for a crew: below
// about 1 MB a step's half is shorter than the hand-off.
var recurrentCrewBytes = 1 << 20

// recurrentCrewChunks is how many chunks a step's region is cut into:
// halves, so that each core keeps its half of R's panels in its own cache
// step after step and a step costs one claim each.
var recurrentCrewChunks = 2

// sequences runs direction d over every batch entry, with a crew when
// recurrentTwoCores allows and a step's work deserves two cores.
func (k *recurrentRun) sequences(d int, reverse bool) {
	items, cost := k.stepWork()
	work := func() {
		for b := 0; b < k.batch; b++ {
			k.sequence(d, b, reverse)
		}
	}
	if !recurrentTwoCores || workersFor(items, cost) < 2 || k.packedBytes() < recurrentCrewBytes {
		k.crew = nil
		work()
		return
	}
	k.crew = &stepCrew{chunks: recurrentCrewChunks}
	withCrew(k.crew, work)
}

// packedBytes is the packed R a step streams.
func (k *recurrentRun) packedBytes() int {
	n := 0
	for _, g := range k.packs {
		n += 4 * g.size()
	}
	return n
}

// stepWork is a step's largest region: its items and their cost each.
func (k *recurrentRun) stepWork() (items, cost int) {
	H := k.hid
	switch {
	case k.lstm != nil: // a panel is 4 units' rows of the 4 gates
		return k.packs[0].panelCount(), 16*H + 4*5*activationCost
	case k.gru != nil: // a block is 16 units: two z+r panels and one candidate panel
		return (H + 15) / 16, 48*H + 3*16*activationCost
	}
	return k.packs[0].panelCount(), 16*H + 16*activationCost
}

// sequence runs direction d over batch entry b's valid steps.
func (k *recurrentRun) sequence(d, b int, reverse bool) {
	H, gh := k.hid, k.gates*k.hid
	so := k.stateAt(d, b)
	k.d, k.in = d, 0
	if k.lanes {
		k.startState32(so)
	}
	for j := 0; j < H && !k.lanes; j++ {
		k.hPrev[j], k.cPrev[j] = 0, 0
		if k.h0 != nil {
			k.hPrev[j] = float64(k.h0[so+j])
		}
		if k.c0 != nil {
			k.cPrev[j] = float64(k.c0[so+j])
		}
		k.h32[0][j] = float32(k.hPrev[j])
	}
	n := k.lens[b]
	for s := 0; s < n; s++ {
		t := s
		if reverse {
			t = n - 1 - s
		}
		k.xwRow = k.xw[k.xRow(t, b)*gh:][:gh]
		k.yo = k.yAt(t, d, b)
		switch {
		case k.lstm != nil:
			k.region(k.packs[0].panelCount(), k.lstmPart)
		case k.gru != nil:
			blocks := (H + 15) / 16
			k.region(blocks, k.gruGatesPart)
			if !k.gru.LinearBeforeReset {
				k.region(blocks, k.gruStatePart)
			}
		default:
			k.region(k.packs[0].panelCount(), k.rnnPart)
		}
		k.in ^= 1
	}
	if k.lanes {
		k.endState32(so)
		return
	}
	for j := 0; j < H; j++ {
		k.yh[so+j] = float32(k.hPrev[j])
		if k.yc != nil {
			k.yc[so+j] = float32(k.cPrev[j])
		}
	}
}

// pre is gate g's pre-activation of unit j: (X·Wᵀ + Wb) + (R·H + Rb) in
// float64, the recurrent product found at product index at of pack pk.
func (k *recurrentRun) pre(pk, at, g, j int) float64 {
	gh := k.gates * k.hid
	row := g*k.hid + j
	w, r := float64(k.xwRow[row]), float64(k.pr[pk][at])
	if k.b != nil {
		w += float64(k.b[k.d*2*gh+row])
		r += float64(k.b[k.d*2*gh+gh+row])
	}
	return w + r
}

// setState records unit j's new state h.
func (k *recurrentRun) setState(j int, h float64) {
	k.hPrev[j] = h
	k.h32[k.in^1][j] = float32(h)
	k.y[k.yo+j] = float32(h)
}

// lstmUnits runs panels [lo, hi): their products, then units
// [4lo, 4hi)'s gates and state. Gate blocks are i, o, f, c and peepholes
// i, o, f; each gate's pre-activations of the run are activated together.
func (k *recurrentRun) lstmUnits(plo, phi int) {
	pk := k.packs[0]
	pk.products(k.pr[0], k.h32[k.in], plo, phi)
	H, d, u := k.hid, k.d, pk.units
	lo, hi := plo*u, min(phi*u, H)
	gate := func(g int) []float64 { return k.lg[g*H+lo : g*H+hi] }
	gi, gf, gc, og, hc := gate(0), gate(1), gate(2), gate(3), gate(4)
	// (X·Wᵀ + Wb) + (R·H + Rb) of the four gates, in float64.
	xw, pr := k.xwRow, k.pr[0]
	var wb, rb []float32
	if k.b != nil {
		wb, rb = k.b[d*8*H:][:4*H], k.b[d*8*H+4*H:][:4*H]
	}
	for g, dst := range [4][]float64{gi, og, gf, gc} {
		for j := lo; j < hi; j++ {
			row := g*H + j
			w, r := float64(xw[row]), float64(pr[pk.at(g, j)])
			if wb != nil {
				w += float64(wb[row])
				r += float64(rb[row])
			}
			dst[j-lo] = w + r
		}
	}
	var pi, po, pf []float32
	if k.p != nil {
		pi, po, pf = k.p[d*3*H:][:H], k.p[d*3*H+H:][:H], k.p[d*3*H+2*H:][:H]
	}
	for j := lo; j < hi; j++ {
		if pi != nil {
			c := k.cPrev[j]
			gi[j-lo] += float64(pi[j]) * c
			gf[j-lo] += float64(pf[j]) * c
		}
		gi[j-lo] = k.clip(gi[j-lo])
		gf[j-lo] = k.clip(gf[j-lo])
		gc[j-lo] = k.clip(gc[j-lo])
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
		o := og[j-lo]
		if po != nil {
			o += float64(po[j]) * c
		}
		og[j-lo] = k.clip(o)
		k.cPrev[j] = c
		hc[j-lo] = c
	}
	k.actAll(d, 0, og)
	k.actAll(d, 2, hc)
	for j := lo; j < hi; j++ {
		k.setState(j, og[j-lo]*hc[j-lo])
	}
}

// rnnUnits runs panels [lo, hi) of a plain RNN: 16 units each.
func (k *recurrentRun) rnnUnits(plo, phi int) {
	pk := k.packs[0]
	pk.products(k.pr[0], k.h32[k.in], plo, phi)
	for j := plo * pk.units; j < min(phi*pk.units, k.hid); j++ {
		k.setState(j, k.act(k.d, 0, k.clip(k.pre(0, pk.at(0, j), 0, j))))
	}
}

// gruBlock is the units [lo, hi) of blocks [blo, bhi) of 16 units.
func (k *recurrentRun) gruBlock(blo, bhi int) (lo, hi int) { return blo * 16, min(bhi*16, k.hid) }

// gruGates runs blocks [blo, bhi) of a GRU step: the z and r gates (gate
// blocks z, r, h), then, with linear_before_reset, the candidate and the
// state; without it, r ⊙ H for gruState's product.
func (k *recurrentRun) gruGates(blo, bhi int) {
	zr := k.packs[0]
	k.packs[0].products(k.pr[0], k.h32[k.in], 2*blo, min(2*bhi, zr.panelCount()))
	lo, hi := k.gruBlock(blo, bhi)
	for j := lo; j < hi; j++ {
		k.z[j] = k.clip(k.pre(0, zr.at(0, j), 0, j))
		k.rg[j] = k.clip(k.pre(0, zr.at(1, j), 1, j))
	}
	k.actAll(k.d, 0, k.z[lo:hi])
	k.actAll(k.d, 0, k.rg[lo:hi])
	if !k.gru.LinearBeforeReset {
		for j := lo; j < hi; j++ {
			k.rh[j] = float32(k.rg[j] * k.hPrev[j])
		}
		return
	}
	k.packs[1].products(k.pr[1], k.h32[k.in], blo, bhi)
	k.gruCandidate(lo, hi)
}

// gruState runs blocks [blo, bhi) of a GRU step without
// linear_before_reset: the candidate's product with r ⊙ H, the candidate
// and the state.
func (k *recurrentRun) gruState(blo, bhi int) {
	k.packs[1].products(k.pr[1], k.rh, blo, bhi)
	k.gruCandidate(k.gruBlock(blo, bhi))
}

// gruCandidate sets units [lo, hi)'s candidate and new state.
func (k *recurrentRun) gruCandidate(lo, hi int) {
	H, gh := k.hid, 3*k.hid
	hp := k.packs[1]
	for j := lo; j < hi; j++ {
		w, r := float64(k.xwRow[2*H+j]), float64(k.pr[1][hp.at(0, j)])
		if k.b != nil {
			w += float64(k.b[k.d*2*gh+2*H+j])
			r += float64(k.b[k.d*2*gh+gh+2*H+j])
		}
		if k.gru.LinearBeforeReset {
			r *= k.rg[j]
		}
		k.hh[j] = k.clip(w + r)
	}
	k.actAll(k.d, 1, k.hh[lo:hi])
	for j := lo; j < hi; j++ {
		z := k.z[j]
		k.setState(j, (1-z)*k.hh[j]+z*k.hPrev[j])
	}
}
