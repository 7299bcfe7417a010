package tfliteimport

import (
	"encoding/binary"
	"fmt"
)

// The generated flatbuffer accessors trust every offset in the file. The
// verifier below walks every table, vector and string the importer reads
// and checks that each lies inside the file before any accessor runs, so a
// truncated or hostile file gives an error, not an out-of-range read.
// Scalars are read up to 8 bytes past a field's start; parseModel pads its
// copy of the file with 8 zero bytes so that a field inside its table is
// always readable.

// refKind is how a table field refers to other data.
type refKind uint8

const (
	refString refKind = iota
	refVector         // of scalars, elem bytes each
	refTables         // vector of tables
	refTable
)

// fieldRef is one reference field of a table: its vtable slot (4, 6...).
type fieldRef struct {
	slot  int
	kind  refKind
	elem  int
	table *tableShape // for refTables/refTable; nil: any table
}

// tableShape lists the reference fields of a table the importer follows.
type tableShape struct {
	name string
	refs []fieldRef
}

var (
	shapeOperatorCode = &tableShape{"OperatorCode", []fieldRef{{slot: 6, kind: refString}}}
	shapeBuffer       = &tableShape{"Buffer", []fieldRef{{slot: 4, kind: refVector, elem: 1}}}
	shapeQuant        = &tableShape{"QuantizationParameters", []fieldRef{
		{slot: 4, kind: refVector, elem: 4}, {slot: 6, kind: refVector, elem: 4}, {slot: 8, kind: refVector, elem: 4},
		{slot: 10, kind: refVector, elem: 8}, {slot: 14, kind: refTable}}}
	shapeTensor = &tableShape{"Tensor", []fieldRef{
		{slot: 4, kind: refVector, elem: 4}, {slot: 10, kind: refString}, {slot: 12, kind: refTable, table: shapeQuant},
		{slot: 16, kind: refTable}, {slot: 18, kind: refVector, elem: 4}}}
	shapeOperator = &tableShape{"Operator", []fieldRef{
		{slot: 6, kind: refVector, elem: 4}, {slot: 8, kind: refVector, elem: 4}, {slot: 12, kind: refTable},
		{slot: 14, kind: refVector, elem: 1}, {slot: 20, kind: refVector, elem: 4}}}
	shapeSubGraph = &tableShape{"SubGraph", []fieldRef{
		{slot: 4, kind: refTables, table: shapeTensor}, {slot: 6, kind: refVector, elem: 4}, {slot: 8, kind: refVector, elem: 4},
		{slot: 10, kind: refTables, table: shapeOperator}, {slot: 12, kind: refString}}}
	shapeModel = &tableShape{"Model", []fieldRef{
		{slot: 6, kind: refTables, table: shapeOperatorCode}, {slot: 8, kind: refTables, table: shapeSubGraph},
		{slot: 10, kind: refString}, {slot: 12, kind: refTables, table: shapeBuffer}}}
)

// verifier checks offsets against the file's n bytes (buf may be padded).
type verifier struct {
	buf []byte
	n   int
	// tables counts the tables visited, which bounds the work a file can
	// ask for (every table takes at least 4 bytes of its own).
	tables int
}

func (v *verifier) u32(p int) uint32 { return binary.LittleEndian.Uint32(v.buf[p:]) }
func (v *verifier) u16(p int) uint16 { return binary.LittleEndian.Uint16(v.buf[p:]) }

// inside reports whether [p, p+size) lies in the file.
func (v *verifier) inside(p, size int) bool { return p >= 0 && size >= 0 && p <= v.n && size <= v.n-p }

// table checks the table at pos and what its reference fields point to.
func (v *verifier) table(pos int, shape *tableShape, where string) error {
	v.tables++
	if v.tables > v.n/4+1 {
		return fmt.Errorf("%s: more tables than the file can hold: the file is corrupt", where)
	}
	if !v.inside(pos, 4) {
		return fmt.Errorf("%s: table at %d lies outside the file", where, pos)
	}
	vt := int64(pos) - int64(int32(v.u32(pos)))
	if vt < 0 || !v.inside(int(vt), 4) {
		return fmt.Errorf("%s: table at %d has its vtable outside the file", where, pos)
	}
	vtLen, objLen := int(v.u16(int(vt))), int(v.u16(int(vt)+2))
	if vtLen < 4 || vtLen%2 != 0 || !v.inside(int(vt), vtLen) || objLen < 4 || !v.inside(pos, objLen) {
		return fmt.Errorf("%s: table at %d has a malformed vtable", where, pos)
	}
	field := func(slot int) int {
		if slot+2 > vtLen {
			return 0
		}
		return int(v.u16(int(vt) + slot))
	}
	for slot := 4; slot < vtLen; slot += 2 {
		if off := field(slot); off != 0 && off >= objLen {
			return fmt.Errorf("%s: table at %d has field %d outside the table", where, pos, (slot-4)/2)
		}
	}
	if shape == nil {
		return nil
	}
	for _, r := range shape.refs {
		off := field(r.slot)
		if off == 0 {
			continue
		}
		fp := pos + off
		if !v.inside(fp, 4) {
			return fmt.Errorf("%s.%d: reference outside the file", where, r.slot)
		}
		target := int64(fp) + int64(v.u32(fp))
		if target > int64(v.n-4) {
			return fmt.Errorf("%s (%s field %d): points outside the file", where, shape.name, (r.slot-4)/2)
		}
		t := int(target)
		name := fmt.Sprintf("%s.%s[%d]", where, shape.name, (r.slot-4)/2)
		switch r.kind {
		case refTable:
			if err := v.table(t, r.table, name); err != nil {
				return err
			}
		case refString, refVector, refTables:
			elem := r.elem
			if r.kind == refString {
				elem = 1
			} else if r.kind == refTables {
				elem = 4
			}
			n := int64(v.u32(t))
			if n*int64(elem) > int64(v.n-t-4) {
				return fmt.Errorf("%s: a vector of %d entries runs past the end of the file", name, n)
			}
			if r.kind == refTables {
				for i := 0; i < int(n); i++ {
					ep := t + 4 + 4*i
					child := int64(ep) + int64(v.u32(ep))
					if child > int64(v.n-4) {
						return fmt.Errorf("%s[%d]: points outside the file", name, i)
					}
					if err := v.table(int(child), r.table, fmt.Sprintf("%s[%d]", name, i)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// verifyModel checks the whole model read from buf (n real bytes).
func verifyModel(buf []byte, n int) error {
	v := &verifier{buf: buf, n: n}
	if n < 8 {
		return fmt.Errorf("file is %d bytes, too short for a TFLite flatbuffer", n)
	}
	return v.table(int(v.u32(0)), shapeModel, "model")
}
