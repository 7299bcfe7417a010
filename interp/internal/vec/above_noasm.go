//go:build !amd64 || noasm

package vec

// NextAbove is nextAboveRef.
func NextAbove(row []float32, bar float32) int { return nextAboveRef(row, bar) }

// NextBelow is nextBelowRef.
func NextBelow(row []float32, bar float32) int { return nextBelowRef(row, bar) }
