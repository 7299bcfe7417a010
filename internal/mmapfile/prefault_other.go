//go:build !linux

package mmapfile

// Prefault does nothing where the kernel has no MADV_POPULATE_READ.
func Prefault([]byte) {}
