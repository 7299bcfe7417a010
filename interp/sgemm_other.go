//go:build !amd64

package interp

const hasFMA = false

func microKernel(k int, a, b, c []float32, ldc int) { panic("no micro-kernel on this architecture") }

func depthRow3(src, w, dst []float32) { depthRow3Go(src, w, dst) }
