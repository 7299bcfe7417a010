// Package mmapfile maps a file read-only so that tensor data can point into it
// without a copy (small files, or file systems without mmap, are read).
package mmapfile

import (
	"os"
	"sync"
	"syscall"
	"unsafe"

	"github.com/modelbridge/modelbridge/internal/regfile"
)

// MinMapped is the size below which a file is simply read into memory: a
// mapping costs a system call and a page-table entry per page, which only
// pays off for weights-sized files.
const MinMapped = 64 << 10

// Mapping is a read-only view of a whole file, memory-mapped when large so
// that tensor data can point into it without a copy.
type Mapping struct {
	Data   []byte
	mapped bool
	once   sync.Once
	// file stays open while mapped, for Locate.
	file *os.File
}

// Close unmaps the file; tensors pointing into it must not be used after.
func (m *Mapping) Close() error {
	var err error
	m.once.Do(func() {
		if m.mapped && m.Data != nil {
			unregister(m)
			err = syscall.Munmap(m.Data)
			m.file.Close()
		}
		m.Data = nil
	})
	return err
}

// live lists the mappings not yet closed, for Locate.
var (
	liveMu sync.RWMutex
	live   []*Mapping
)

func unregister(m *Mapping) {
	liveMu.Lock()
	defer liveMu.Unlock()
	for i, l := range live {
		if l == m {
			live = append(live[:i], live[i+1:]...)
			return
		}
	}
}

// Locate reports the file and offset that b lies at when b lies wholly
// inside a live mapping: a writer can then have the kernel copy it from
// the file (see atomicfile), without touching the mapping.
func Locate(b []byte) (f *os.File, off int64, ok bool) {
	if len(b) == 0 {
		return nil, 0, false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	liveMu.RLock()
	defer liveMu.RUnlock()
	for _, m := range live {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(m.Data)))
		if start >= base && start-base+uintptr(len(b)) <= uintptr(len(m.Data)) {
			return m.file, int64(start - base), true
		}
	}
	return nil, 0, false
}

// Open maps path read-only, or reads it when small or when mapping fails.
func Open(path string) (*Mapping, error) {
	// Regular files only: a FIFO blocks and a device never ends.
	f, st, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size >= MinMapped && size == int64(int(size)) {
		data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
		if err == nil {
			m := &Mapping{Data: data, mapped: true, file: f}
			liveMu.Lock()
			live = append(live, m)
			liveMu.Unlock()
			return m, nil
		}
	}
	f.Close()
	data, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Mapping{Data: data}, nil
}
