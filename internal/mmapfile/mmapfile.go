// Package mmapfile maps a file read-only so that tensor data can point into it
// without a copy (small files, or file systems without mmap, are read).
package mmapfile

import (
	"slices"
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
}

// live lists the open mappings, so that code holding only a slice (the
// interpreter, with a constant it has copied into another layout) can
// ask whether it points into a file and let its pages go.
var live struct {
	sync.Mutex
	maps []*Mapping
}

// Close unmaps the file; tensors pointing into it must not be used after.
func (m *Mapping) Close() error {
	var err error
	m.once.Do(func() {
		live.Lock()
		defer live.Unlock()
		if m.mapped && m.Data != nil {
			live.maps = slices.DeleteFunc(live.maps, func(o *Mapping) bool { return o == m })
			err = syscall.Munmap(m.Data)
		}
		m.Data = nil
	})
	return err
}

// Open maps path read-only, or reads it when small or when mapping fails.
func Open(path string) (*Mapping, error) {
	// Regular files only: a FIFO blocks and a device never ends.
	f, st, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := st.Size()
	if size >= MinMapped && size == int64(int(size)) {
		data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
		if err == nil {
			m := &Mapping{Data: data, mapped: true}
			live.Lock()
			live.maps = append(live.maps, m)
			live.Unlock()
			return m, nil
		}
	}
	data, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Mapping{Data: data}, nil
}

// Mapped reports whether b lies wholly inside an open mapping of a file.
func Mapped(b []byte) bool {
	live.Lock()
	defer live.Unlock()
	return holder(b) != nil
}

// EvictMapped lets the pages wholly inside b leave resident memory when b
// lies in an open mapping (see Mapping.Evict), and does nothing otherwise.
func EvictMapped(b []byte) {
	live.Lock()
	defer live.Unlock()
	holder(b).Evict(b)
}

// holder is the live mapping holding b, or nil; live must be locked.
func holder(b []byte) *Mapping {
	if len(b) == 0 {
		return nil
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	for _, m := range live.maps {
		if len(m.Data) == 0 {
			continue
		}
		lo := uintptr(unsafe.Pointer(&m.Data[0]))
		if start >= lo && start+uintptr(len(b)) <= lo+uintptr(len(m.Data)) {
			return m
		}
	}
	return nil
}
