//go:build !amd64 || noasm

package vec

// Sigmoid32 sets d[i] = sigmoid32(s[i]) for i < len(d).
func Sigmoid32(d, s []float32) { sigmoid32Ref(d, s) }
