//go:build !amd64 || noasm

package vec

// Tanh32 sets d[i] = tanh32(s[i]).
func Tanh32(d, s []float32) { tanh32Ref(d, s) }
