//go:build !amd64 && !arm64

package interp

// unalignedFloatLoads is false where a misaligned float load may trap or
// be slow: constants at odd offsets are copied into aligned buffers.
const unalignedFloatLoads = false
