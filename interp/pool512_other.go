//go:build !amd64

package interp

// pool2DAVX512Planes has no vector kernel here: it returns nil.
func pool2DAVX512Planes(g *geom3, a *poolAttrs) func(src, dst []float32, planes int) { return nil }
