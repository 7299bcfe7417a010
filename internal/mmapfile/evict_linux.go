package mmapfile

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// Evict lets the pages wholly inside b, a part of m's mapping that has
// been read, leave the process's resident memory: reading them again
// faults them back in from the page cache. A deep graph's node records
// are read once; without this they stay resident, counted against the
// process, until the mapping is closed. It does nothing for a file that
// was read rather than mapped, or for b outside the mapping.
func (m *Mapping) Evict(b []byte) {
	if m == nil || !m.mapped || len(b) == 0 || len(m.Data) == 0 {
		return
	}
	lo, hi := uintptr(unsafe.Pointer(&m.Data[0])), uintptr(unsafe.Pointer(&m.Data[0]))+uintptr(len(m.Data))
	start := uintptr(unsafe.Pointer(&b[0]))
	end := start + uintptr(len(b))
	if start < lo || end > hi {
		return
	}
	page := uintptr(os.Getpagesize())
	start = (start + page - 1) &^ (page - 1)
	end &^= page - 1
	if end > start {
		syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_DONTNEED)
	}
	runtime.KeepAlive(m.Data)
}
