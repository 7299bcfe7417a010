//go:build !amd64 || noasm

package vec

// Sigmoid32 sets d[i] = sigmoid32(s[i]) for i < len(d).
func Sigmoid32(d, s []float32) { sigmoid32Ref(d, s) }

// HardSigmoidGate32 sets d[i] = x·max(0, min(1, a·x+b)) for x = s[i].
func HardSigmoidGate32(d, s []float32, a, b float32) { hardSigmoidGate32Ref(d, s, a, b) }
