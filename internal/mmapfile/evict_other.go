//go:build !linux

package mmapfile

// Evict does nothing where pages are not given back this way.
func (m *Mapping) Evict([]byte) {}
