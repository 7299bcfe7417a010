package pickle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"unicode/utf8"
)

// Options are the caller's hooks.
type Options struct {
	// FindClass decides what GLOBAL / STACK_GLOBAL / INST module.name means.
	// Return a *Global (calls on it become *Object), a Callable, or any
	// other value to push; return an error to refuse. A nil FindClass
	// refuses every global. Use Allow for a plain allow-list.
	FindClass func(module, name string) (Value, error)
	// PersistentLoad resolves PERSID / BINPERSID ids (PyTorch storages).
	// A nil PersistentLoad refuses them.
	PersistentLoad func(pid Value) (Value, error)
}

// ForbiddenGlobalError reports a global the caller did not allow.
type ForbiddenGlobalError struct{ Module, Name string }

func (e *ForbiddenGlobalError) Error() string {
	return fmt.Sprintf("refusing global %s.%s: it is not on the list of names this reader allows (a pickle naming it may try to run code)", e.Module, e.Name)
}

// Error is a decoding failure at a byte offset of the pickle.
type Error struct {
	Offset int    // byte offset of the opcode that failed
	Op     string // opcode name, or "" before the first opcode
	Err    error
}

func (e *Error) Error() string {
	if e.Op == "" {
		return fmt.Sprintf("pickle: at byte %d: %v", e.Offset, e.Err)
	}
	return fmt.Sprintf("pickle: at byte %d (%s): %v", e.Offset, e.Op, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Allow returns a FindClass that accepts exactly the given "module.name"
// globals (as *Global values) and refuses all others. Extra Callables take
// precedence for their own names.
func Allow(names []string, callables ...*Func) func(module, name string) (Value, error) {
	ok := make(map[string]bool, len(names))
	for _, n := range names {
		ok[n] = true
	}
	calls := make(map[string]*Func, len(callables))
	for _, c := range callables {
		calls[c.Global.String()] = c
	}
	return func(module, name string) (Value, error) {
		full := module + "." + name
		if c, found := calls[full]; found {
			return c, nil
		}
		if ok[full] {
			return &Global{Module: module, Name: name}, nil
		}
		return nil, &ForbiddenGlobalError{Module: module, Name: name}
	}
}

// OrderedDict is a Callable for collections.OrderedDict: it builds a *Dict.
var OrderedDict = &Func{
	Global: Global{Module: "collections", Name: "OrderedDict"},
	Fn: func(args []Value) (Value, error) {
		d := NewDict()
		if len(args) == 0 {
			return d, nil
		}
		// OrderedDict([(k, v), ...]) as protocol 0/1 writers emit it.
		if len(args) == 1 {
			if l, ok := args[0].(*List); ok {
				for _, it := range l.Items {
					t, ok := it.(*Tuple)
					if !ok || len(t.Items) != 2 {
						return nil, fmt.Errorf("collections.OrderedDict: argument items must be (key, value) pairs, got %s", TypeName(it))
					}
					if err := d.Set(t.Items[0], t.Items[1]); err != nil {
						return nil, err
					}
				}
				return d, nil
			}
		}
		return nil, fmt.Errorf("collections.OrderedDict: unsupported arguments %s", Format(&Tuple{Items: args}))
	},
}

// Unpickle decodes one pickle that must fill data exactly (trailing bytes are
// an error).
func Unpickle(data []byte, opts Options) (Value, error) {
	v, n, err := Decode(data, opts)
	if err != nil {
		return nil, err
	}
	if n != len(data) {
		return nil, &Error{Offset: n, Err: fmt.Errorf("%d unexpected bytes after STOP", len(data)-n)}
	}
	return v, nil
}

// Decode decodes the pickle at the start of data and returns its value and
// the number of bytes it used, for files that hold several pickles in a row
// (PyTorch's legacy format).
func Decode(data []byte, opts Options) (Value, int, error) {
	d := &decoder{data: data, opts: opts, memo: map[uint64]Value{}}
	v, err := d.run()
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			return nil, d.pos, err
		}
		return nil, d.pos, &Error{Offset: d.opPos, Op: d.opName(), Err: err}
	}
	return v, d.pos, nil
}

// markDepthLimit bounds nested MARKs; real pickles nest a few levels.
const markDepthLimit = 1 << 16

type decoder struct {
	data  []byte
	pos   int
	opPos int
	op    byte
	opts  Options
	stack []Value
	marks []int
	memo  map[uint64]Value
	proto int
}

var errTruncated = errors.New("truncated pickle: the data ends inside an opcode (the file is cut short or corrupt)")

func (d *decoder) need(n int) ([]byte, error) {
	if n < 0 || n > len(d.data)-d.pos {
		return nil, errTruncated
	}
	b := d.data[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

// needLen checks a length read from the input against the bytes present
// before anything is allocated.
func (d *decoder) needLen(n uint64) ([]byte, error) {
	if n > uint64(len(d.data)-d.pos) {
		return nil, fmt.Errorf("declared length %d exceeds the %d bytes left in the pickle", n, len(d.data)-d.pos)
	}
	return d.need(int(n))
}

func (d *decoder) u8() (byte, error) {
	b, err := d.need(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (d *decoder) u16() (uint16, error) {
	b, err := d.need(2)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}

func (d *decoder) u32() (uint32, error) {
	b, err := d.need(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64() (uint64, error) {
	b, err := d.need(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// line reads up to and excluding the next '\n' (protocol 0 arguments).
func (d *decoder) line() (string, error) {
	for i := d.pos; i < len(d.data); i++ {
		if d.data[i] == '\n' {
			s := string(d.data[d.pos:i])
			d.pos = i + 1
			return s, nil
		}
	}
	return "", errTruncated
}

func (d *decoder) push(v Value) { d.stack = append(d.stack, v) }

func (d *decoder) pop() (Value, error) {
	n := len(d.stack)
	if n == 0 || (len(d.marks) > 0 && d.marks[len(d.marks)-1] >= n) {
		return nil, errors.New("stack underflow (corrupt pickle)")
	}
	v := d.stack[n-1]
	d.stack = d.stack[:n-1]
	return v, nil
}

// pop2 pops the top two values, returning them in stack order (below, top).
func (d *decoder) pop2() (below, top Value, err error) {
	if top, err = d.pop(); err != nil {
		return nil, nil, err
	}
	if below, err = d.pop(); err != nil {
		return nil, nil, err
	}
	return below, top, nil
}

func (d *decoder) top() (Value, error) {
	n := len(d.stack)
	if n == 0 || (len(d.marks) > 0 && d.marks[len(d.marks)-1] >= n) {
		return nil, errors.New("stack underflow (corrupt pickle)")
	}
	return d.stack[n-1], nil
}

// popMark returns the items pushed since the last MARK and removes them.
func (d *decoder) popMark() ([]Value, error) {
	if len(d.marks) == 0 {
		return nil, errors.New("no MARK on the stack (corrupt pickle)")
	}
	m := d.marks[len(d.marks)-1]
	d.marks = d.marks[:len(d.marks)-1]
	items := make([]Value, len(d.stack)-m)
	copy(items, d.stack[m:])
	clear(d.stack[m:])
	d.stack = d.stack[:m]
	return items, nil
}

func (d *decoder) popN(n int) ([]Value, error) {
	items := make([]Value, n)
	for i := n - 1; i >= 0; i-- {
		v, err := d.pop()
		if err != nil {
			return nil, err
		}
		items[i] = v
	}
	return items, nil
}

func (d *decoder) memoPut(idx uint64) error {
	v, err := d.top()
	if err != nil {
		return err
	}
	d.memo[idx] = v
	return nil
}

func (d *decoder) memoGet(idx uint64) error {
	v, ok := d.memo[idx]
	if !ok {
		return fmt.Errorf("memo index %d was never stored (corrupt pickle)", idx)
	}
	d.push(v)
	return nil
}

func (d *decoder) global(module, name string) error {
	if d.opts.FindClass == nil {
		return &ForbiddenGlobalError{Module: module, Name: name}
	}
	v, err := d.opts.FindClass(module, name)
	if err != nil {
		return err
	}
	if v == nil {
		return &ForbiddenGlobalError{Module: module, Name: name}
	}
	d.push(v)
	return nil
}

// call applies an allowed global to arguments without running Python: a
// Callable builds a Go value, a *Global becomes an *Object record.
func (d *decoder) call(fn Value, args []Value, kwargs *Dict) (Value, error) {
	switch f := fn.(type) {
	case Callable:
		if kwargs != nil && kwargs.Len() > 0 {
			return nil, fmt.Errorf("%s does not take keyword arguments", TypeName(fn))
		}
		return f.Call(args)
	case *Global:
		return &Object{Class: f, Args: args, Kwargs: kwargs}, nil
	}
	return nil, fmt.Errorf("cannot call a %s (only allowed classes and functions can be called)", TypeName(fn))
}

func argsOf(v Value) ([]Value, error) {
	switch t := v.(type) {
	case *Tuple:
		return t.Items, nil
	case None:
		return nil, nil
	}
	return nil, fmt.Errorf("call arguments must be a tuple, got %s", TypeName(v))
}

func (d *decoder) setItems(target Value, kv []Value) error {
	if len(kv)%2 != 0 {
		return errors.New("SETITEMS with an odd number of items (corrupt pickle)")
	}
	var dict *Dict
	switch t := target.(type) {
	case *Dict:
		dict = t
	case *Object:
		if t.Items == nil {
			t.Items = NewDict()
		}
		dict = t.Items
	default:
		return fmt.Errorf("cannot set items on a %s", TypeName(target))
	}
	for i := 0; i < len(kv); i += 2 {
		if err := dict.Set(kv[i], kv[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) appendItems(target Value, items []Value) error {
	switch t := target.(type) {
	case *List:
		t.Items = append(t.Items, items...)
	case *Object:
		t.Elems = append(t.Elems, items...)
	default:
		return fmt.Errorf("cannot append to a %s", TypeName(target))
	}
	return nil
}

func decodeLong(b []byte) Value {
	if len(b) == 0 {
		return int64(0)
	}
	if len(b) <= 8 {
		var u uint64
		for i := len(b) - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		shift := 64 - 8*uint(len(b))
		return int64(u<<shift) >> shift
	}
	// Two's complement, little-endian, arbitrary length.
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	n := new(big.Int).SetBytes(be)
	if b[len(b)-1]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	if n.IsInt64() {
		return n.Int64()
	}
	return n
}

func latin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

func utf8String(b []byte) (string, error) {
	if !utf8.Valid(b) {
		return "", errors.New("string is not valid UTF-8 (corrupt pickle)")
	}
	return string(b), nil
}

func floatBits(u uint64) float64 { return math.Float64frombits(u) }

// CodecsEncode is a Callable for _codecs.encode, which protocol 0-2 pickles
// written by Python 3 use to carry bytes: encode(text, "latin1") is the
// bytes whose values are text's code points.
var CodecsEncode = &Func{
	Global: Global{Module: "_codecs", Name: "encode"},
	Fn: func(args []Value) (Value, error) {
		if len(args) == 0 || len(args) > 2 {
			return nil, fmt.Errorf("_codecs.encode: want (text, encoding), got %d arguments", len(args))
		}
		text, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("_codecs.encode: text must be a str, got %s", TypeName(args[0]))
		}
		enc := "utf-8"
		if len(args) == 2 {
			if enc, ok = args[1].(string); !ok {
				return nil, fmt.Errorf("_codecs.encode: encoding must be a str, got %s", TypeName(args[1]))
			}
		}
		switch enc {
		case "latin1", "latin-1", "iso-8859-1":
			out := make([]byte, 0, len(text))
			for _, r := range text {
				if r > 0xff {
					return nil, fmt.Errorf("_codecs.encode: character U+%04X is not Latin-1", r)
				}
				out = append(out, byte(r))
			}
			return out, nil
		case "utf-8", "utf8":
			return []byte(text), nil
		}
		return nil, fmt.Errorf("_codecs.encode: unsupported encoding %q", enc)
	},
}
