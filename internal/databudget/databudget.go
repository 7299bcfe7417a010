// Package databudget bounds the tensor data a reader makes from a file, so
// that a small hostile file (a broadcast view, a corrupt channel count, one
// weight named a thousand times) gives an error instead of gigabytes.
package databudget

// PerInputByte bounds how much tensor data a reader may produce per byte
// of input: a varint in a typed ONNX field (1 byte) becomes an int64 (8
// bytes); nothing legitimate expands more.
const PerInputByte = 8

// SlackBytes is the allowance on top of PerInputByte: small computed
// tensors (a BatchNorm's unit gamma, shape constants) need no counterpart
// in the file.
const SlackBytes = 1 << 20

// Budget counts the tensor data a reader has made against what its input
// justifies.
type Budget struct {
	// Limit is the most data the reader may make; Used is what it has made.
	Limit, Used int64
}

// ForInput is the budget of a reader that has read inputBytes.
func ForInput(inputBytes int64) Budget {
	return Budget{Limit: PerInputByte*inputBytes + SlackBytes}
}

// AddInput raises the limit for n more bytes read.
func (b *Budget) AddInput(n int64) { b.Limit += PerInputByte * n }

// Fits reports whether n more bytes stay within the limit.
func (b *Budget) Fits(n int64) bool { return n >= 0 && n <= b.Limit-b.Used }

// Take counts n more bytes when they fit and reports whether they did.
func (b *Budget) Take(n int64) bool {
	if !b.Fits(n) {
		return false
	}
	b.Used += n
	return true
}
