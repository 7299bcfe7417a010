//go:build !amd64 || noasm

package vec

// SumPlanes8 sets dst[j] to the float64 sum of src[j*stride+i] for i < n,
// in i's order from +0, for eight planes.
func SumPlanes8(dst *[8]float64, src []float32, stride, n int) { sumPlanes8Ref(dst, src, stride, n) }
