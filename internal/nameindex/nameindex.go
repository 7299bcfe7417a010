// Package nameindex numbers strings: a set of names in which each name
// has a dense id (0, 1, ... in the order names were added). It stands in
// for a map[string]int where a graph's millions of value names are
// counted or looked up: a map entry takes about 50 bytes beside the
// string, an entry here about 28 (the name's header and a share of an
// index of int32 slots at most half full), and the name itself is kept,
// not copied.
package nameindex

import "hash/maphash"

// Index is a set of names with dense ids. The zero Index is empty and
// ready to use.
type Index struct {
	names []string
	slots []int32 // id + 1 per hash slot; 0 is empty
	seed  maphash.Seed
}

// New returns an empty index with room for n names.
func New(n int) *Index {
	x := &Index{names: make([]string, 0, n)}
	x.init(n)
	return x
}

func (x *Index) init(n int) {
	s := 8
	for s < 2*n {
		s *= 2
	}
	x.slots = make([]int32, s)
	x.seed = maphash.MakeSeed()
}

// Len is the number of names.
func (x *Index) Len() int {
	if x == nil {
		return 0
	}
	return len(x.names)
}

// Name returns the name with id.
func (x *Index) Name(id int32) string { return x.names[id] }

// Find returns the id of name, or -1.
func (x *Index) Find(name string) int32 {
	if x == nil || len(x.slots) == 0 {
		return -1
	}
	id, _ := x.find(name)
	return id
}

// find returns name's id (or -1) and the slot it is in or would go in.
func (x *Index) find(name string) (int32, int) {
	mask := len(x.slots) - 1
	i := int(maphash.String(x.seed, name)) & mask
	for {
		e := x.slots[i]
		if e == 0 {
			return -1, i
		}
		if x.names[e-1] == name {
			return e - 1, i
		}
		i = (i + 1) & mask
	}
}

// Add returns the id of name, adding it when it is new (added).
func (x *Index) Add(name string) (id int32, added bool) {
	if len(x.slots) == 0 {
		x.init(0)
	}
	id, slot := x.find(name)
	if id >= 0 {
		return id, false
	}
	if 2*(len(x.names)+1) > len(x.slots) {
		x.grow()
		_, slot = x.find(name)
	}
	id = int32(len(x.names))
	x.names = append(x.names, name)
	x.slots[slot] = id + 1
	return id, true
}

// grow doubles the slots and places every name again.
func (x *Index) grow() {
	x.slots = make([]int32, 2*len(x.slots))
	mask := len(x.slots) - 1
	for id, name := range x.names {
		i := int(maphash.String(x.seed, name)) & mask
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = int32(id) + 1
	}
}

// Clone returns a copy that can be changed on its own.
func (x *Index) Clone() *Index {
	if x == nil {
		return nil
	}
	return &Index{names: append([]string(nil), x.names...), slots: append([]int32(nil), x.slots...), seed: x.seed}
}
