package onnximport

import (
	"fmt"
	"os"
	"sync"
	"syscall"
)

// mmapMin is the size below which a file is simply read: a mapping costs a
// system call and a page-table entry per page, which only pays off for
// weights-sized files.
const mmapMin = 64 << 10

// mapping is a read-only view of a whole file. Close unmaps it; tensors
// whose Data points into it must not be used afterwards.
type mapping struct {
	data   []byte
	mapped bool
	once   sync.Once
}

func (m *mapping) Close() error {
	var err error
	m.once.Do(func() {
		if m.mapped && m.data != nil {
			err = syscall.Munmap(m.data)
		}
		m.data = nil
	})
	return err
}

// openMapping maps path read-only, or reads it into memory when it is small
// or the mapping fails (e.g. on a file system that does not support mmap).
func openMapping(path string) (*mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not a file", path)
	}
	size := st.Size()
	if size >= mmapMin && size == int64(int(size)) {
		data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
		if err == nil {
			return &mapping{data: data, mapped: true}, nil
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &mapping{data: data}, nil
}
