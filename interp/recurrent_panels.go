package interp

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// gatePanels is some gate blocks of one direction's recurrent weights R,
// packed for vec.GemvPanels: each panel holds the rows of `units`
// consecutive hidden units for every gate in `gates` (gate-major inside
// the panel), so one pass over the panels with the state gives those
// gates' recurrent products, and a run of panels covers a run of units
// with all their gates. Rows past the last unit are zeros.
type gatePanels struct {
	gates []int // gate blocks of R, in panel order
	units int   // hidden units a panel
	hid   int
	r     []float32 // the direction's R, rows gate·hid + unit, for the plain path
	p     []float32 // the panels, panelCount()·16·hid floats
}

// recurrentPlain makes the recurrent products the plain float64 loop over
// R's rows: the tests' oracle for the packed products.
var recurrentPlain = false

func newGatePanels(r []float32, hid int, gates []int) *gatePanels {
	return &gatePanels{gates: gates, units: vec.PanelRows / len(gates), hid: hid, r: r}
}

// panelCount is how many panels hold every unit.
func (g *gatePanels) panelCount() int { return (g.hid + g.units - 1) / g.units }

// size is the packed panels' length in floats.
func (g *gatePanels) size() int { return g.panelCount() * vec.PanelRows * g.hid }

// pack lays R's rows out as panels in dst (size() floats).
func (g *gatePanels) pack(dst []float32) {
	H, n := g.hid, vec.PanelRows
	g.p = dst[:g.size()]
	for p := range g.panelCount() {
		panel := g.p[p*n*H : (p+1)*n*H]
		for q := range n {
			j := p*g.units + q%g.units
			if j >= H || q/g.units >= len(g.gates) {
				for kk := range H {
					panel[kk*n+q] = 0
				}
				continue
			}
			row := g.r[(g.gates[q/g.units]*H+j)*H:][:H]
			for kk, v := range row {
				panel[kk*n+q] = v
			}
		}
	}
}

// at is where the product of gate gi (an index into gates) of unit j is in
// products' output.
func (g *gatePanels) at(gi, j int) int {
	return j/g.units*vec.PanelRows + gi*g.units + j%g.units
}

// products sets out's panels [lo, hi) to their rows' products with h.
func (g *gatePanels) products(out, h []float32, lo, hi int) {
	n := vec.PanelRows
	if !recurrentPlain {
		vec.GemvPanels(out[lo*n:hi*n], h, g.p[lo*n*g.hid:])
		return
	}
	for p := lo; p < hi; p++ {
		for q := range n {
			j := p*g.units + q%g.units
			if j >= g.hid || q/g.units >= len(g.gates) {
				out[p*n+q] = 0
				continue
			}
			out[p*n+q] = dotGo(h, g.r[(g.gates[q/g.units]*g.hid+j)*g.hid:])
		}
	}
}

// recurrentPanels packs direction d's R as gate groups (each a list of
// gate blocks) once per Program when R is a constant; otherwise (or over
// the packed-weights budget) into scratch this run, which release frees.
func (x *exec) recurrentPanels(r []float32, hid, d int, groups [][]int) (packs []*gatePanels, release func()) {
	release = func() {}
	base := d * len(groups)
	if cached := x.s.packedR; base+len(groups) <= len(cached) && cached[base] != nil && cached[base].hid == hid {
		return cached[base : base+len(groups)], release
	}
	packs = make([]*gatePanels, len(groups))
	total := 0
	for i, gates := range groups {
		packs[i] = newGatePanels(r, hid, gates)
		total += packs[i].size()
	}
	constant := canon.RecR < len(x.s.in) && x.s.in[canon.RecR] >= 0 && x.p.consts[x.s.in[canon.RecR]] != nil
	size := int64(total) * 4
	var buf []float32
	if constant && x.p.packedBytes+size <= maxPackedBytes && x.p.pool.budget.tryCharge("packed weights", size) == nil {
		x.p.packedBytes += size
		buf = make([]float32, total)
		for len(x.s.packedR) < base+len(groups) {
			x.s.packedR = append(x.s.packedR, nil)
		}
		copy(x.s.packedR[base:], packs)
	} else {
		buf = x.scratch(total)
		release = func() { x.release(buf) }
	}
	for _, g := range packs {
		g.pack(buf)
		buf = buf[g.size():]
	}
	return packs, release
}
