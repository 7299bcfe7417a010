// Package mmapfile maps a file read-only so that tensor data can point into it
// without a copy (small files, or file systems without mmap, are read).
package mmapfile

import (
	"sync"
	"syscall"

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

// Close unmaps the file; tensors pointing into it must not be used after.
func (m *Mapping) Close() error {
	var err error
	m.once.Do(func() {
		if m.mapped && m.Data != nil {
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
			return &Mapping{Data: data, mapped: true}, nil
		}
	}
	data, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Mapping{Data: data}, nil
}
