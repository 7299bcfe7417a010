package interp

import "syscall"

// physicalMemory is the machine's RAM in bytes, or 0 when unknown.
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(max(si.Unit, 1))
}
