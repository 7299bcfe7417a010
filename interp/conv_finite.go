package interp

// A convolution's kernels choose their plan by whether the weights are
// all finite (a pad's zero times an infinite weight is NaN where the
// definition leaves the tap out). Scanning the weights on every run costs
// as much as a small layer (efficientnet_b0: 2% of its CPU time), so a
// step whose weights come from a constant keeps the answer.

// finiteMemo is a step's answer for the weights at one address.
type finiteMemo struct {
	at     *float32
	n      int
	finite bool
}

// weightsFinite reports allFinite(w), computed once per step when input 1
// is a constant (w is then that constant, or weights cut from it and kept
// as long as the program).
func (x *exec) weightsFinite(w []float32) bool {
	if len(w) == 0 {
		return true
	}
	if x.s == nil || len(x.s.in) < 2 || x.s.in[1] < 0 || x.p.consts[x.s.in[1]] == nil {
		return allFinite(w)
	}
	if m := x.s.finite; m != nil && m.at == &w[0] && m.n == len(w) {
		return m.finite
	}
	m := &finiteMemo{at: &w[0], n: len(w), finite: allFinite(w)}
	x.s.finite = m
	return m.finite
}
