package torchimport

import (
	"fmt"
	"math"
)

// storage is one torch storage (a flat typed buffer several tensors may
// view). Its bytes are located when first needed and read at most once.
type storage struct {
	Key   string
	Type  *storageType
	Numel int64
	// load returns exactly Numel*Type.Size bytes, pointing into the file
	// mapping when the bytes are stored uncompressed.
	load   func() ([]byte, error)
	data   []byte
	loaded bool
	err    error
}

// byteSize is Numel*element size, or an error on overflow.
func (s *storage) byteSize() (int64, error) {
	if s.Numel < 0 || (s.Type.Size > 0 && s.Numel > math.MaxInt64/int64(s.Type.Size)) {
		return 0, fmt.Errorf("storage %s: %d elements overflow", s.Key, s.Numel)
	}
	return s.Numel * int64(s.Type.Size), nil
}

func (s *storage) bytes() ([]byte, error) {
	if !s.loaded {
		s.loaded = true
		s.data, s.err = s.load()
		if s.err == nil {
			if want, _ := s.byteSize(); int64(len(s.data)) != want {
				s.err = fmt.Errorf("storage %s: have %d bytes, want %d", s.Key, len(s.data), want)
			}
		}
	}
	return s.data, s.err
}

// storageView is what a persistent id resolves to: a whole storage, or (in
// the legacy format) a range of one.
type storageView struct {
	Base   *storage
	Offset int64 // elements
	Numel  int64
}

func pidString(v any, what string) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return fmt.Sprint(x), nil
	}
	return "", fmt.Errorf("persistent id: %s is not a string", what)
}
