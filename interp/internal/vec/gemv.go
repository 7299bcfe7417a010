package vec

// Panel GEMV family: a matrix's rows packed 16 at a time, k by k, so that
// one product with a vector reads the matrix once, front to back.
//
// A panel of 16 rows and K columns is K groups of 16 floats: group k
// holds column k of the 16 rows. GemvPanels(out, h, panels) sets, for
// every panel p < len(out)/16 and row q < 16,
//
//	out[16p+q] = (s0 + s1) + (s2 + s3),  s_a = the sum over k ≡ a (mod 4)
//
// of h[k]·panels[16(K·p+k)+q], K = len(h), each s_a a float32 fused
// multiply-add a step in k order from +0. The four partial sums keep four
// independent chains of additions in flight (and their order is the same
// in every width: one ZMM or two YMM registers a partial sum).

// PanelRows is how many matrix rows a panel holds.
const PanelRows = 16

// gemvPanelsRef is GemvPanels' reference.
func gemvPanelsRef(out, h, panels []float32) {
	k := len(h)
	for p := 0; p < len(out)/PanelRows; p++ {
		panel := panels[p*PanelRows*k : (p+1)*PanelRows*k]
		for q := range PanelRows {
			var s [4]float32
			for j, v := range h {
				s[j&3] = fma32(v, panel[j*PanelRows+q], s[j&3])
			}
			out[p*PanelRows+q] = (s[0] + s[1]) + (s[2] + s[3])
		}
	}
}
