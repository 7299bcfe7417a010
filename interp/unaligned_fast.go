//go:build amd64 || arm64

package interp

// unalignedFloatLoads reports that the CPU loads float32 and float64 values
// from any address at full speed (and that Go allows such pointers to
// pointer-free types), so constant weights are read in place even when a
// file stores them at an odd offset.
const unalignedFloatLoads = true
