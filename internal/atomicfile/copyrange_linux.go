//go:build linux && (amd64 || arm64)

package atomicfile

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// copyRangeChunk is the most one copy_file_range call is asked to copy.
const copyRangeChunk = 64 << 20

// copyFileRange has the kernel copy n bytes at offset off of src to dst at
// its current position (copy_file_range(2)): page cache to page cache, no
// user memory in between. It returns how many bytes it copied; an error or
// a short count means the rest must be written another way.
func copyFileRange(dst, src *os.File, off int64, n int) (int, error) {
	copied := 0
	for copied < n {
		r1, _, errno := syscall.Syscall6(sysCopyFileRange, src.Fd(), uintptr(unsafe.Pointer(&off)), dst.Fd(), 0, uintptr(min(n-copied, copyRangeChunk)), 0)
		runtime.KeepAlive(src)
		runtime.KeepAlive(dst)
		if errno != 0 {
			return copied, errno
		}
		if r1 == 0 {
			break // the file ends early: let the caller's write report it
		}
		copied += int(r1)
	}
	return copied, nil
}
