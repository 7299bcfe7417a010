// Package picklewrite encodes a small tree of Python values as a protocol-2
// pickle, the way CPython's pickler lays them out: globals, strings and
// tuples are memoized with BINPUT and referred to again with BINGET, ints
// take the shortest opcode, and objects are built with REDUCE. It writes
// only; it is what the PyTorch exporter needs to produce data.pkl.
package picklewrite

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// Value is a Python value to encode.
type Value interface{ isValue() }

// Int is a Python int.
type Int int64

// Bool is True or False.
type Bool bool

// None is Python's None.
type None struct{}

// Str is a Python str (encoded as UTF-8). Equal strings share one memo slot.
type Str string

// Float is a Python float (BINFLOAT).
type Float float64

// Global is a reference to module.name (GLOBAL opcode). Equal globals share
// one memo slot.
type Global struct{ Module, Name string }

// Tuple is a Python tuple.
type Tuple []Value

// Reduce is callable(*args): the object REDUCE builds.
type Reduce struct {
	Callable Value
	Args     Tuple
	// Items, when set, are key/value pairs added to the result with
	// SETITEMS (an OrderedDict built by REDUCE, then filled).
	Items []Item
}

// Item is one key/value pair of a dict.
type Item struct {
	Key, Value Value
}

// PersistentID is an object the unpickler resolves through its
// persistent_load hook (BINPERSID) from the ID value.
type PersistentID struct{ ID Value }

func (Int) isValue()           {}
func (Bool) isValue()          {}
func (None) isValue()          {}
func (Str) isValue()           {}
func (Float) isValue()         {}
func (Global) isValue()        {}
func (Tuple) isValue()         {}
func (*Reduce) isValue()       {}
func (*PersistentID) isValue() {}

// Opcodes used (names as in pickletools).
const (
	opProto      = 0x80
	opStop       = '.'
	opMark       = '('
	opGlobal     = 'c'
	opBinPut     = 'q'
	opLongBinPut = 'r'
	opBinGet     = 'h'
	opLongBinGet = 'j'
	opBinInt     = 'J'
	opBinInt1    = 'K'
	opBinInt2    = 'M'
	opLong1      = 0x8a
	opNone       = 'N'
	opNewTrue    = 0x88
	opNewFalse   = 0x89
	opBinFloat   = 'G'
	opBinUnicode = 'X'
	opEmptyTuple = ')'
	opTuple      = 't'
	opTuple1     = 0x85
	opTuple2     = 0x86
	opTuple3     = 0x87
	opReduce     = 'R'
	opSetItems   = 'u'
	opSetItem    = 's'
	opBinPersID  = 'Q'
)

type memoKey struct {
	kind byte // 's' string, 'g' global
	a, b string
}

// encoder holds the memo of one pickle.
type encoder struct {
	buf  bytes.Buffer
	memo map[memoKey]uint32
	next uint32
	// objs memoizes values that are the same Go object (a *Reduce used
	// twice, such as one shared storage), by pointer.
	objs map[any]uint32
}

// Marshal encodes v as a complete protocol-2 pickle (PROTO 2 ... STOP).
func Marshal(v Value) ([]byte, error) {
	e := &encoder{memo: map[memoKey]uint32{}, objs: map[any]uint32{}}
	e.buf.WriteByte(opProto)
	e.buf.WriteByte(2)
	if err := e.value(v); err != nil {
		return nil, err
	}
	e.buf.WriteByte(opStop)
	return e.buf.Bytes(), nil
}

func (e *encoder) put() uint32 {
	id := e.next
	e.next++
	if id < 256 {
		e.buf.WriteByte(opBinPut)
		e.buf.WriteByte(byte(id))
	} else {
		e.buf.WriteByte(opLongBinPut)
		e.u32(id)
	}
	return id
}

func (e *encoder) get(id uint32) {
	if id < 256 {
		e.buf.WriteByte(opBinGet)
		e.buf.WriteByte(byte(id))
		return
	}
	e.buf.WriteByte(opLongBinGet)
	e.u32(id)
}

func (e *encoder) u32(v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	e.buf.Write(b[:])
}

func (e *encoder) value(v Value) error {
	switch x := v.(type) {
	case Int:
		e.int(int64(x))
	case Bool:
		if x {
			e.buf.WriteByte(opNewTrue)
		} else {
			e.buf.WriteByte(opNewFalse)
		}
	case None:
		e.buf.WriteByte(opNone)
	case Float:
		e.buf.WriteByte(opBinFloat)
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], math.Float64bits(float64(x)))
		e.buf.Write(b[:])
	case Str:
		k := memoKey{kind: 's', a: string(x)}
		if id, ok := e.memo[k]; ok {
			e.get(id)
			return nil
		}
		if uint64(len(x)) > math.MaxUint32 {
			return fmt.Errorf("pickle: string of %d bytes is too long", len(x))
		}
		e.buf.WriteByte(opBinUnicode)
		e.u32(uint32(len(x)))
		e.buf.WriteString(string(x))
		e.memo[k] = e.put()
	case Global:
		k := memoKey{kind: 'g', a: x.Module, b: x.Name}
		if id, ok := e.memo[k]; ok {
			e.get(id)
			return nil
		}
		for _, s := range []string{x.Module, x.Name} {
			if s == "" || bytes.ContainsAny([]byte(s), "\n\x00") {
				return fmt.Errorf("pickle: invalid global name %q.%q", x.Module, x.Name)
			}
		}
		e.buf.WriteByte(opGlobal)
		e.buf.WriteString(x.Module + "\n" + x.Name + "\n")
		e.memo[k] = e.put()
	case Tuple:
		return e.tuple(x)
	case *Reduce:
		if id, ok := e.objs[x]; ok {
			e.get(id)
			return nil
		}
		if err := e.value(x.Callable); err != nil {
			return err
		}
		if err := e.tuple(x.Args); err != nil {
			return err
		}
		e.buf.WriteByte(opReduce)
		e.objs[x] = e.put()
		return e.setItems(x.Items)
	case *PersistentID:
		if err := e.value(x.ID); err != nil {
			return err
		}
		e.buf.WriteByte(opBinPersID)
	case nil:
		return fmt.Errorf("pickle: nil value")
	default:
		return fmt.Errorf("pickle: unsupported value %T", v)
	}
	return nil
}

// setItems adds items in batches of 1000, as CPython's _batch_setitems
// does: MARK ... SETITEMS, or a lone SETITEM for a batch of one.
func (e *encoder) setItems(items []Item) error {
	for len(items) > 0 {
		batch := items[:min(len(items), 1000)]
		items = items[len(batch):]
		if len(batch) > 1 {
			e.buf.WriteByte(opMark)
		}
		for _, it := range batch {
			if err := e.value(it.Key); err != nil {
				return err
			}
			if err := e.value(it.Value); err != nil {
				return err
			}
		}
		if len(batch) > 1 {
			e.buf.WriteByte(opSetItems)
		} else {
			e.buf.WriteByte(opSetItem)
		}
	}
	return nil
}

// tuple writes a tuple as CPython does: EMPTY_TUPLE (not memoized), TUPLE1-3
// for short ones, MARK ... TUPLE otherwise, then BINPUT.
func (e *encoder) tuple(t Tuple) error {
	if len(t) == 0 {
		e.buf.WriteByte(opEmptyTuple)
		return nil
	}
	if len(t) > 3 {
		e.buf.WriteByte(opMark)
	}
	for _, v := range t {
		if err := e.value(v); err != nil {
			return err
		}
	}
	switch len(t) {
	case 1:
		e.buf.WriteByte(opTuple1)
	case 2:
		e.buf.WriteByte(opTuple2)
	case 3:
		e.buf.WriteByte(opTuple3)
	default:
		e.buf.WriteByte(opTuple)
	}
	e.put()
	return nil
}

// int picks the opcode CPython's save_long uses for protocol 2.
func (e *encoder) int(v int64) {
	switch {
	case v >= 0 && v <= 0xff:
		e.buf.WriteByte(opBinInt1)
		e.buf.WriteByte(byte(v))
	case v >= 0 && v <= 0xffff:
		e.buf.WriteByte(opBinInt2)
		e.buf.WriteByte(byte(v))
		e.buf.WriteByte(byte(v >> 8))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		e.buf.WriteByte(opBinInt)
		e.u32(uint32(int32(v)))
	default:
		b := longBytes(v)
		e.buf.WriteByte(opLong1)
		e.buf.WriteByte(byte(len(b)))
		e.buf.Write(b)
	}
}

// longBytes is v as the shortest little-endian two's-complement byte string
// (the LONG1 payload).
func longBytes(v int64) []byte {
	size := 8
	for n := 1; n < 8; n++ {
		lim := int64(1) << (8*n - 1)
		if v >= -lim && v < lim {
			size = n
			break
		}
	}
	out := make([]byte, size)
	u := uint64(v)
	for i := range out {
		out[i] = byte(u >> (8 * i))
	}
	return out
}
