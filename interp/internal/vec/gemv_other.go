//go:build !amd64 || noasm

package vec

// GemvPanels is its reference without the assembly; see gemv.go.
func GemvPanels(out, h, panels []float32) { gemvPanelsRef(out, h, panels) }
