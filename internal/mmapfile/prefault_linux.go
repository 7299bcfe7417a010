package mmapfile

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): fault in the pages
// of a range for reading, as reading them would, in one call.
const madvPopulateRead = 22

// Prefault makes the pages of b present before b is written to a file.
// write(2) copies from user memory with page faults disabled: each page of
// a mapped file not yet in the page table makes it stop short, zero the
// rest of the output's new page-cache folio, fault the page in and copy
// again. Faulting b in first saves that work. It only advises: an old
// kernel or memory that cannot be populated is ignored (write still works).
func Prefault(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(&b[0]))
	aligned := start &^ (page - 1)
	syscall.Syscall(syscall.SYS_MADVISE, aligned, start-aligned+uintptr(len(b)), madvPopulateRead)
	runtime.KeepAlive(b)
}
