package onnximport

import "github.com/modelbridge/modelbridge/internal/nameindex"

// valueUses counts the readers of each value in the file (a graph output
// counts as one reader). It numbers every value read, so it also serves
// as the import's one copy of those names (intern) and as the set of
// values still read after the import (mark).
type valueUses struct {
	names  nameindex.Index
	counts []int32
	marks  []bool
}

// add counts one reader of name.
func (u *valueUses) add(name string) {
	id, added := u.names.Add(name)
	if added {
		u.counts = append(u.counts, 0)
	}
	u.counts[id]++
}

// count is the number of readers of name in the file.
func (u *valueUses) count(name string) int {
	if u == nil {
		return 0
	}
	if id := u.names.Find(name); id >= 0 {
		return int(u.counts[id])
	}
	return 0
}

// intern returns the copy of name the table holds, if it has one, so that
// the canonical graph shares it instead of holding another.
func (u *valueUses) intern(name string) string {
	if id := u.names.Find(name); id >= 0 {
		return u.names.Name(id)
	}
	return name
}

// mark records that name is read; it reports false for a name the file
// never reads (whose marks the caller keeps itself).
func (u *valueUses) mark(name string) bool {
	id := u.names.Find(name)
	if id < 0 {
		return false
	}
	if u.marks == nil {
		u.marks = make([]bool, u.names.Len())
	}
	u.marks[id] = true
	return true
}

// marked reports whether mark was called for name, which the file reads.
func (u *valueUses) marked(name string) bool {
	id := u.names.Find(name)
	return id >= 0 && u.marks != nil && u.marks[id]
}
