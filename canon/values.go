package canon

import (
	"encoding/binary"
	"iter"
	"maps"
	"slices"

	"github.com/modelbridge/modelbridge/internal/nameindex"
)

// ValueTable holds the type of every value of a graph by name (what
// Infer fills Graph.Values with). It answers as a map would, at a fraction
// of a map's memory: a graph of millions of nodes has millions of values,
// and a map entry of a ValueInfo with its own shape took about 230 bytes
// where an entry here takes about 40. Names are kept, not copied (they
// are the strings the nodes hold), shapes are stored once per distinct
// shape, and the index is an open-addressing table of entry numbers.
//
// Lookups return a ValueInfo whose Shape is the caller's own copy. A nil
// *ValueTable is an empty table. Iteration (All) is in insertion order.
type ValueTable struct {
	index   *nameindex.Index // entry number by name
	entries []valueEntry
	live    int

	shapes  [][]Dim          // distinct shapes, by id
	shapeID map[string]int32 // encoded shape -> id
	key     []byte           // scratch for encoding shapes

	consts map[int32]*Tensor // Const of the entries that have one
	// infoNames is ValueInfo.Name for the entries where it is not the
	// name the entry is stored under.
	infoNames map[int32]string
}

type valueEntry struct {
	shape int32 // id in shapes; -1 for a nil Shape
	dtype DType
	flags uint8
	kind  ValueKind
}

const (
	valueRankKnown uint8 = 1 << iota
	valueDeleted
	valueHasConst
	valueOwnName // ValueInfo.Name is in infoNames
)

// NewValueTable returns an empty table with room for n values.
func NewValueTable(n int) *ValueTable {
	return &ValueTable{index: nameindex.New(n), entries: make([]valueEntry, 0, n)}
}

// valueTableOn returns an empty table whose entries are numbered as in
// names, which it takes over: setting a value names already holds keeps
// its number.
func valueTableOn(names *nameindex.Index) *ValueTable {
	entries := make([]valueEntry, names.Len())
	for i := range entries {
		entries[i] = valueEntry{shape: -1, flags: valueDeleted}
	}
	return &ValueTable{index: names, entries: entries}
}

// Len is the number of values in the table.
func (t *ValueTable) Len() int {
	if t == nil {
		return 0
	}
	return t.live
}

// Lookup returns the type of value name and whether the table has it.
func (t *ValueTable) Lookup(name string) (ValueInfo, bool) {
	if t == nil {
		return ValueInfo{}, false
	}
	e := t.index.Find(name)
	if e < 0 || t.entries[e].flags&valueDeleted != 0 {
		return ValueInfo{}, false
	}
	return t.info(e), true
}

// Get returns the type of value name, or the zero ValueInfo.
func (t *ValueTable) Get(name string) ValueInfo {
	v, _ := t.Lookup(name)
	return v
}

// Has reports whether the table has value name.
func (t *ValueTable) Has(name string) bool {
	if t == nil {
		return false
	}
	e := t.index.Find(name)
	return e >= 0 && t.entries[e].flags&valueDeleted == 0
}

// lookupShared is Lookup whose Shape is the table's own (capacity
// clipped, so an append copies it): for Infer, whose op rules read their
// inputs' shapes and never write them, and which looks up every input of
// every node.
func (t *ValueTable) lookupShared(name string) (ValueInfo, bool) {
	e := t.index.Find(name)
	if e < 0 || t.entries[e].flags&valueDeleted != 0 {
		return ValueInfo{}, false
	}
	return t.infoShared(e, true), true
}

func (t *ValueTable) info(e int32) ValueInfo { return t.infoShared(e, false) }

func (t *ValueTable) infoShared(e int32, shared bool) ValueInfo {
	en := t.entries[e]
	v := ValueInfo{Name: t.index.Name(e), DType: en.dtype, RankKnown: en.flags&valueRankKnown != 0, Kind: en.kind}
	if en.shape >= 0 {
		s := t.shapes[en.shape]
		if shared {
			v.Shape = s[:len(s):len(s)]
		} else {
			v.Shape = append(make([]Dim, 0, len(s)), s...)
		}
	}
	if en.flags&valueHasConst != 0 {
		v.Const = t.consts[e]
	}
	if en.flags&valueOwnName != 0 {
		v.Name = t.infoNames[e]
	}
	return v
}

// Set records v as the type of value name (replacing what was there).
func (t *ValueTable) Set(name string, v ValueInfo) {
	if t.index == nil {
		t.index = nameindex.New(0)
	}
	e, added := t.index.Add(name)
	if added {
		t.entries = append(t.entries, valueEntry{})
		t.live++
	} else if t.entries[e].flags&valueDeleted != 0 {
		t.live++
	}
	en := valueEntry{shape: t.internShape(v.Shape), dtype: v.DType, kind: v.Kind}
	if v.RankKnown {
		en.flags |= valueRankKnown
	}
	delete(t.consts, e)
	if v.Const != nil {
		if t.consts == nil {
			t.consts = map[int32]*Tensor{}
		}
		t.consts[e] = v.Const
		en.flags |= valueHasConst
	}
	delete(t.infoNames, e)
	if v.Name != name {
		if t.infoNames == nil {
			t.infoNames = map[int32]string{}
		}
		t.infoNames[e] = v.Name
		en.flags |= valueOwnName
	}
	t.entries[e] = en
}

// Delete removes value name. Its entry keeps its place (and its name in
// the index), so that setting it again is cheap.
func (t *ValueTable) Delete(name string) {
	if t == nil {
		return
	}
	e := t.index.Find(name)
	if e < 0 || t.entries[e].flags&valueDeleted != 0 {
		return
	}
	t.entries[e] = valueEntry{shape: -1, flags: valueDeleted}
	delete(t.consts, e)
	delete(t.infoNames, e)
	t.live--
}

// internShape returns the id of shape, adding it if it is new.
func (t *ValueTable) internShape(shape []Dim) int32 {
	if shape == nil {
		return -1
	}
	k := t.key[:0]
	k = binary.AppendUvarint(k, uint64(len(shape)))
	for _, d := range shape {
		k = binary.AppendVarint(k, d.Size)
		k = binary.AppendUvarint(k, uint64(len(d.Param)))
		k = append(k, d.Param...)
	}
	t.key = k
	if id, ok := t.shapeID[string(k)]; ok {
		return id
	}
	if t.shapeID == nil {
		t.shapeID = map[string]int32{}
	}
	id := int32(len(t.shapes))
	t.shapes = append(t.shapes, append([]Dim{}, shape...))
	t.shapeID[string(k)] = id
	return id
}

// All yields every value's name and type, in the order they were added.
func (t *ValueTable) All() iter.Seq2[string, ValueInfo] {
	return func(yield func(string, ValueInfo) bool) {
		if t == nil {
			return
		}
		for e := range t.entries {
			if t.entries[e].flags&valueDeleted != 0 {
				continue
			}
			if !yield(t.index.Name(int32(e)), t.info(int32(e))) {
				return
			}
		}
	}
}

// Names returns the names of the values, in the order they were added.
func (t *ValueTable) Names() []string {
	out := make([]string, 0, t.Len())
	for name := range t.All() {
		out = append(out, name)
	}
	return out
}

// Clone returns a copy of the table that can be changed on its own.
func (t *ValueTable) Clone() *ValueTable {
	if t == nil {
		return nil
	}
	c := *t
	c.index = t.index.Clone()
	c.entries = append([]valueEntry(nil), t.entries...)
	c.shapes = append([][]Dim(nil), t.shapes...) // interned shapes are never changed
	c.shapeID = maps.Clone(t.shapeID)
	c.key = nil
	c.consts = maps.Clone(t.consts)
	c.infoNames = maps.Clone(t.infoNames)
	return &c
}

// ValueTableOf makes a table from a map of value types, in name order.
func ValueTableOf(m map[string]ValueInfo) *ValueTable {
	t := NewValueTable(len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		t.Set(name, m[name])
	}
	return t
}
