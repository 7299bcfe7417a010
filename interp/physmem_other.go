//go:build !linux

package interp

// physicalMemory is unknown off Linux; DefaultMaxMemory then uses 8 GiB.
func physicalMemory() int64 { return 0 }
