//go:build !noasm

package vec

// GemvPanels sets out (whole panels of 16 rows) to the panels' products
// with h; see gemv.go. panels holds len(out)·len(h) floats or more.
func GemvPanels(out, h, panels []float32) {
	n, k := len(out)/PanelRows, len(h)
	if !HasFMA || n == 0 || k == 0 {
		gemvPanelsRef(out, h, panels)
		return
	}
	panels = panels[:n*PanelRows*k]
	if UseAVX512 {
		gemvPanelsAVX512(n, k, &h[0], &panels[0], &out[0])
		return
	}
	gemvPanelsAVX2(n, k, &h[0], &panels[0], &out[0])
}

// gemv_avx512_amd64.s, gemv_avx2_amd64.s (generated)

//go:noescape
func gemvPanelsAVX512(n, k int, h, panels, out *float32)

//go:noescape
func gemvPanelsAVX2(n, k int, h, panels, out *float32)
