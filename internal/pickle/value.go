// Package pickle decodes Python pickles (protocols 0 to 5) into a small set of
// typed Go values without executing anything. It exists to read the files
// PyTorch writes (torch.save state dicts, TorchScript data.pkl and
// constants.pkl), which are pickles that name classes and functions.
//
// A pickle names callables with GLOBAL/STACK_GLOBAL. This package never
// imports or calls them: the caller's FindClass decides what each name
// means, and every name it does not allow is refused with an error that
// names it. REDUCE and NEWOBJ on an allowed name record the call as an
// *Object (class + arguments) unless the caller supplied a Callable that
// builds a value in Go. Persistent ids go to the caller's PersistentLoad.
//
// Decoded values are one of:
//
//	None                    Python None
//	bool                    True / False
//	int64                   int that fits in 64 bits
//	*big.Int                any larger int
//	float64                 float
//	string                  str (and protocol 0-2 byte strings, decoded as Latin-1)
//	[]byte                  bytes / bytearray
//	*Tuple, *List, *Set     tuple, list, set/frozenset
//	*Dict                   dict (insertion order kept)
//	*Global                 a class or function reference the caller allowed
//	*Object                 the result of calling an allowed *Global
//	anything a Callable or PersistentLoad returns
package pickle

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Value is a decoded pickle value; see the package comment for the types.
type Value = any

// None is Python's None.
type None struct{}

// Tuple is a Python tuple.
type Tuple struct{ Items []Value }

// List is a Python list.
type List struct{ Items []Value }

// Set is a Python set or frozenset, in the order the pickle added items.
type Set struct{ Items []Value }

// Global is a reference to a class or function by module and name, as
// GLOBAL / STACK_GLOBAL wrote it.
type Global struct{ Module, Name string }

// String returns "module.name".
func (g *Global) String() string { return g.Module + "." + g.Name }

// Object records a call the pickle asked for (REDUCE, NEWOBJ, NEWOBJ_EX,
// INST, OBJ) on an allowed class or function, without performing it, plus
// any state, items and elements later applied to the result.
type Object struct {
	Class *Global
	Args  []Value
	// Kwargs holds NEWOBJ_EX keyword arguments, if any.
	Kwargs *Dict
	// State is the argument of BUILD (usually a dict of attributes), or nil.
	State Value
	// Items holds SETITEM(S) applied to the object (dict subclasses).
	Items *Dict
	// Elems holds APPEND(S) applied to the object (list subclasses).
	Elems []Value
}

// Callable is a value a FindClass may return to give REDUCE / NEWOBJ on that
// name a Go meaning (for example building a *Dict for collections.OrderedDict).
type Callable interface {
	Call(args []Value) (Value, error)
}

// Func is a Callable with a name, the usual way to implement one.
type Func struct {
	Global
	Fn func(args []Value) (Value, error)
}

// Call runs the Go function.
func (f *Func) Call(args []Value) (Value, error) { return f.Fn(args) }

// Stater is implemented by values that accept BUILD. *Object and *Dict do.
type Stater interface {
	SetState(state Value) error
}

// SetState records BUILD's argument.
func (o *Object) SetState(state Value) error {
	o.State = state
	return nil
}

// Dict is a Python dict, keeping insertion order. Keys must be hashable
// values: None, bool, int64, *big.Int, float64, string, []byte, *Tuple of
// hashable values, or *Global.
type Dict struct {
	Keys   []Value
	Values []Value
	// State holds BUILD's argument when one is applied to a dict (an
	// OrderedDict's attributes, such as a state dict's _metadata).
	State Value
	index map[string]int
}

// NewDict returns an empty dict.
func NewDict() *Dict { return &Dict{index: map[string]int{}} }

// Len is the number of entries.
func (d *Dict) Len() int { return len(d.Keys) }

// Set adds or replaces key. Replacing keeps the key's first position, as
// Python does.
func (d *Dict) Set(key, val Value) error {
	k, err := hashKey(key, 0)
	if err != nil {
		return err
	}
	if len(k) > maxKeyBytes {
		// Hashing is not cached; bounding keys keeps a small hostile
		// pickle that re-inserts one huge key from cheap memo refs from
		// taking quadratic time.
		return fmt.Errorf("dict key of %d bytes is longer than the %d this reader accepts", len(k), maxKeyBytes)
	}
	if d.index == nil {
		d.index = map[string]int{}
	}
	if i, ok := d.index[k]; ok {
		d.Values[i] = val
		return nil
	}
	d.index[k] = len(d.Keys)
	d.Keys = append(d.Keys, key)
	d.Values = append(d.Values, val)
	return nil
}

// Get looks key up.
func (d *Dict) Get(key Value) (Value, bool) {
	k, err := hashKey(key, 0)
	if err != nil || d.index == nil {
		return nil, false
	}
	i, ok := d.index[k]
	if !ok {
		return nil, false
	}
	return d.Values[i], true
}

// GetString looks up a string key.
func (d *Dict) GetString(key string) (Value, bool) { return d.Get(key) }

// SetState records BUILD's argument.
func (d *Dict) SetState(state Value) error {
	d.State = state
	return nil
}

const maxKeyBytes = 4096

// maxKeyBits bounds int dict keys: 13,600 bits is about maxKeyBytes
// decimal digits.
const maxKeyBits = 13600

// maxFormatBits bounds the ints Format writes out in decimal; longer ones
// are described by size, since converting a long int to decimal takes
// time that grows faster than its length.
const maxFormatBits = 1024

// hashKey encodes a hashable value so that keys Python considers equal
// (1, 1.0 and True) map to the same string.
func hashKey(v Value, depth int) (string, error) {
	if depth > 32 {
		return "", fmt.Errorf("dict key nested too deeply")
	}
	switch x := v.(type) {
	case None:
		return "N", nil
	case bool:
		if x {
			return "i1", nil
		}
		return "i0", nil
	case int64:
		return "i" + strconv.FormatInt(x, 10), nil
	case *big.Int:
		// Refuse by size before converting: decimal conversion of a long
		// int takes time that grows faster than its length.
		if x.BitLen() > maxKeyBits {
			return "", fmt.Errorf("dict key is an int of %d bits, longer than the %d this reader accepts", x.BitLen(), maxKeyBits)
		}
		return "i" + x.String(), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return "i" + strconv.FormatInt(int64(x), 10), nil
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64), nil
	case string:
		if len(x) > maxKeyBytes {
			return "", fmt.Errorf("dict key of %d bytes is longer than the %d this reader accepts", len(x), maxKeyBytes)
		}
		return "s" + x, nil
	case []byte:
		if len(x) > maxKeyBytes {
			return "", fmt.Errorf("dict key of %d bytes is longer than the %d this reader accepts", len(x), maxKeyBytes)
		}
		return "b" + string(x), nil
	case *Global:
		return "g" + x.String(), nil
	case *Tuple:
		var sb strings.Builder
		if len(x.Items) > 256 {
			return "", fmt.Errorf("tuple dict key with %d items is larger than this reader accepts", len(x.Items))
		}
		sb.WriteString("t(")
		for _, it := range x.Items {
			k, err := hashKey(it, depth+1)
			if err != nil {
				return "", err
			}
			sb.WriteString(strconv.Itoa(len(k)))
			sb.WriteByte(':')
			sb.WriteString(k)
			if sb.Len() > maxKeyBytes {
				return "", fmt.Errorf("tuple dict key is longer than the %d bytes this reader accepts", maxKeyBytes)
			}
		}
		sb.WriteByte(')')
		return sb.String(), nil
	}
	return "", fmt.Errorf("unhashable dict key of type %s", TypeName(v))
}

// TypeName names a value's Python type for error messages.
func TypeName(v Value) string {
	switch x := v.(type) {
	case None:
		return "None"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []byte:
		return "bytes"
	case *Tuple:
		return "tuple"
	case *List:
		return "list"
	case *Set:
		return "set"
	case *Dict:
		return "dict"
	case *Global:
		return "global " + x.String()
	case *Object:
		return x.Class.String() + " object"
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", v)
}

// Format renders a value in Python-like syntax for messages and tests,
// truncating deep or long structures (and so is safe on cyclic values).
func Format(v Value) string {
	var sb strings.Builder
	format(&sb, v, 0)
	return sb.String()
}

func format(sb *strings.Builder, v Value, depth int) {
	if depth > 8 || sb.Len() > 4096 {
		sb.WriteString("...")
		return
	}
	seq := func(open, close string, items []Value) {
		sb.WriteString(open)
		for i, it := range items {
			if i > 0 {
				sb.WriteString(", ")
			}
			if i >= 32 {
				sb.WriteString("...")
				break
			}
			format(sb, it, depth+1)
		}
		sb.WriteString(close)
	}
	switch x := v.(type) {
	case None:
		sb.WriteString("None")
	case bool:
		if x {
			sb.WriteString("True")
		} else {
			sb.WriteString("False")
		}
	case int64:
		sb.WriteString(strconv.FormatInt(x, 10))
	case *big.Int:
		if x.BitLen() > maxFormatBits {
			fmt.Fprintf(sb, "<int of %d bits>", x.BitLen())
		} else {
			sb.WriteString(x.String())
		}
	case float64:
		sb.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case string:
		if len(x) > 200 {
			x = x[:200] + "..."
		}
		sb.WriteString(strconv.Quote(x))
	case []byte:
		if len(x) > 64 {
			fmt.Fprintf(sb, "b<%d bytes>", len(x))
		} else {
			fmt.Fprintf(sb, "b%q", x)
		}
	case *Tuple:
		seq("(", ")", x.Items)
	case *List:
		seq("[", "]", x.Items)
	case *Set:
		seq("{", "}", x.Items)
	case *Dict:
		sb.WriteString("{")
		for i := range x.Keys {
			if i > 0 {
				sb.WriteString(", ")
			}
			if i >= 32 {
				sb.WriteString("...")
				break
			}
			format(sb, x.Keys[i], depth+1)
			sb.WriteString(": ")
			format(sb, x.Values[i], depth+1)
		}
		sb.WriteString("}")
	case *Global:
		sb.WriteString(x.String())
	case *Object:
		sb.WriteString(x.Class.String())
		seq("(", ")", x.Args)
		if x.State != nil {
			sb.WriteString(".__setstate__(")
			format(sb, x.State, depth+1)
			sb.WriteString(")")
		}
	default:
		fmt.Fprintf(sb, "%v", v)
	}
}
