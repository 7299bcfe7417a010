package pickle

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Opcode bytes, from the pickle protocol definition (pickletools).
const (
	opMark           = '('
	opStop           = '.'
	opPop            = '0'
	opPopMark        = '1'
	opDup            = '2'
	opFloat          = 'F'
	opInt            = 'I'
	opBinInt         = 'J'
	opBinInt1        = 'K'
	opLong           = 'L'
	opBinInt2        = 'M'
	opNone           = 'N'
	opPersID         = 'P'
	opBinPersID      = 'Q'
	opReduce         = 'R'
	opString         = 'S'
	opBinString      = 'T'
	opShortBinString = 'U'
	opUnicode        = 'V'
	opBinUnicode     = 'X'
	opAppend         = 'a'
	opBuild          = 'b'
	opGlobal         = 'c'
	opDict           = 'd'
	opEmptyDict      = '}'
	opAppends        = 'e'
	opGet            = 'g'
	opBinGet         = 'h'
	opInst           = 'i'
	opLongBinGet     = 'j'
	opList           = 'l'
	opEmptyList      = ']'
	opObj            = 'o'
	opPut            = 'p'
	opBinPut         = 'q'
	opLongBinPut     = 'r'
	opSetItem        = 's'
	opTuple          = 't'
	opEmptyTuple     = ')'
	opSetItems       = 'u'
	opBinFloat       = 'G'
	// protocol 2
	opProto    = 0x80
	opNewObj   = 0x81
	opExt1     = 0x82
	opExt2     = 0x83
	opExt4     = 0x84
	opTuple1   = 0x85
	opTuple2   = 0x86
	opTuple3   = 0x87
	opNewTrue  = 0x88
	opNewFalse = 0x89
	opLong1    = 0x8a
	opLong4    = 0x8b
	// protocol 3
	opBinBytes      = 'B'
	opShortBinBytes = 'C'
	// protocol 4
	opShortBinUnicode = 0x8c
	opBinUnicode8     = 0x8d
	opBinBytes8       = 0x8e
	opEmptySet        = 0x8f
	opAddItems        = 0x90
	opFrozenSet       = 0x91
	opNewObjEx        = 0x92
	opStackGlobal     = 0x93
	opMemoize         = 0x94
	opFrame           = 0x95
	// protocol 5
	opByteArray8     = 0x96
	opNextBuffer     = 0x97
	opReadonlyBuffer = 0x98
)

var opNames = map[byte]string{
	opMark: "MARK", opStop: "STOP", opPop: "POP", opPopMark: "POP_MARK", opDup: "DUP",
	opFloat: "FLOAT", opInt: "INT", opBinInt: "BININT", opBinInt1: "BININT1", opLong: "LONG",
	opBinInt2: "BININT2", opNone: "NONE", opPersID: "PERSID", opBinPersID: "BINPERSID",
	opReduce: "REDUCE", opString: "STRING", opBinString: "BINSTRING",
	opShortBinString: "SHORT_BINSTRING", opUnicode: "UNICODE", opBinUnicode: "BINUNICODE",
	opAppend: "APPEND", opBuild: "BUILD", opGlobal: "GLOBAL", opDict: "DICT",
	opEmptyDict: "EMPTY_DICT", opAppends: "APPENDS", opGet: "GET", opBinGet: "BINGET",
	opInst: "INST", opLongBinGet: "LONG_BINGET", opList: "LIST", opEmptyList: "EMPTY_LIST",
	opObj: "OBJ", opPut: "PUT", opBinPut: "BINPUT", opLongBinPut: "LONG_BINPUT",
	opSetItem: "SETITEM", opTuple: "TUPLE", opEmptyTuple: "EMPTY_TUPLE", opSetItems: "SETITEMS",
	opBinFloat: "BINFLOAT", opProto: "PROTO", opNewObj: "NEWOBJ", opExt1: "EXT1", opExt2: "EXT2",
	opExt4: "EXT4", opTuple1: "TUPLE1", opTuple2: "TUPLE2", opTuple3: "TUPLE3",
	opNewTrue: "NEWTRUE", opNewFalse: "NEWFALSE", opLong1: "LONG1", opLong4: "LONG4",
	opBinBytes: "BINBYTES", opShortBinBytes: "SHORT_BINBYTES",
	opShortBinUnicode: "SHORT_BINUNICODE", opBinUnicode8: "BINUNICODE8", opBinBytes8: "BINBYTES8",
	opEmptySet: "EMPTY_SET", opAddItems: "ADDITEMS", opFrozenSet: "FROZENSET",
	opNewObjEx: "NEWOBJ_EX", opStackGlobal: "STACK_GLOBAL", opMemoize: "MEMOIZE", opFrame: "FRAME",
	opByteArray8: "BYTEARRAY8", opNextBuffer: "NEXT_BUFFER", opReadonlyBuffer: "READONLY_BUFFER",
}

func (d *decoder) opName() string {
	if n, ok := opNames[d.op]; ok {
		return n
	}
	return fmt.Sprintf("opcode 0x%02x", d.op)
}

func (d *decoder) run() (Value, error) {
	if len(d.data) == 0 {
		return nil, errors.New("empty pickle")
	}
	for {
		d.opPos = d.pos
		op, err := d.u8()
		if err != nil {
			return nil, errors.New("truncated pickle: no STOP opcode before the end of the data")
		}
		d.op = op
		if op == opStop {
			v, err := d.pop()
			if err != nil {
				return nil, err
			}
			// Like Python, ignore anything left below the result.
			return v, nil
		}
		if err := d.step(op); err != nil {
			return nil, &Error{Offset: d.opPos, Op: d.opName(), Err: err}
		}
	}
}

func (d *decoder) step(op byte) error {
	switch op {
	case opProto:
		p, err := d.u8()
		if err != nil {
			return err
		}
		if p > 5 {
			return fmt.Errorf("unsupported pickle protocol %d (this reader knows 0 to 5)", p)
		}
		d.proto = int(p)
	case opFrame:
		n, err := d.u64()
		if err != nil {
			return err
		}
		// Frames only group opcodes for buffered reading; the data is
		// already in memory. Check the length is plausible.
		if n > uint64(len(d.data)-d.pos) {
			return fmt.Errorf("frame length %d exceeds the %d bytes left", n, len(d.data)-d.pos)
		}
	case opMark:
		if len(d.marks) >= markDepthLimit {
			return errors.New("too many nested MARKs")
		}
		d.marks = append(d.marks, len(d.stack))
	case opPop:
		if len(d.marks) > 0 && d.marks[len(d.marks)-1] == len(d.stack) {
			// POP of a bare MARK, as Python allows.
			d.marks = d.marks[:len(d.marks)-1]
			return nil
		}
		_, err := d.pop()
		return err
	case opPopMark:
		_, err := d.popMark()
		return err
	case opDup:
		v, err := d.top()
		if err != nil {
			return err
		}
		d.push(v)

	// Constants.
	case opNone:
		d.push(None{})
	case opNewTrue:
		d.push(true)
	case opNewFalse:
		d.push(false)
	case opBinInt:
		u, err := d.u32()
		if err != nil {
			return err
		}
		d.push(int64(int32(u)))
	case opBinInt1:
		u, err := d.u8()
		if err != nil {
			return err
		}
		d.push(int64(u))
	case opBinInt2:
		u, err := d.u16()
		if err != nil {
			return err
		}
		d.push(int64(u))
	case opLong1:
		n, err := d.u8()
		if err != nil {
			return err
		}
		b, err := d.needLen(uint64(n))
		if err != nil {
			return err
		}
		d.push(decodeLong(b))
	case opLong4:
		n, err := d.u32()
		if err != nil {
			return err
		}
		if int32(n) < 0 {
			return errors.New("negative LONG4 length")
		}
		b, err := d.needLen(uint64(n))
		if err != nil {
			return err
		}
		d.push(decodeLong(b))
	case opBinFloat:
		b, err := d.need(8)
		if err != nil {
			return err
		}
		var u uint64
		for _, c := range b { // big-endian
			u = u<<8 | uint64(c)
		}
		d.push(floatBits(u))
	case opInt:
		s, err := d.line()
		if err != nil {
			return err
		}
		switch s {
		case "00":
			d.push(false)
		case "01":
			d.push(true)
		default:
			v, err := parseInt(s)
			if err != nil {
				return err
			}
			d.push(v)
		}
	case opLong:
		s, err := d.line()
		if err != nil {
			return err
		}
		v, err := parseInt(strings.TrimSuffix(s, "L"))
		if err != nil {
			return err
		}
		d.push(v)
	case opFloat:
		s, err := d.line()
		if err != nil {
			return err
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("bad FLOAT %q", s)
		}
		d.push(f)

	// Strings and bytes.
	case opBinUnicode:
		n, err := d.u32()
		if err != nil {
			return err
		}
		return d.pushUTF8(uint64(n))
	case opShortBinUnicode:
		n, err := d.u8()
		if err != nil {
			return err
		}
		return d.pushUTF8(uint64(n))
	case opBinUnicode8:
		n, err := d.u64()
		if err != nil {
			return err
		}
		return d.pushUTF8(n)
	case opUnicode:
		s, err := d.line()
		if err != nil {
			return err
		}
		u, err := rawUnicodeEscape(s)
		if err != nil {
			return err
		}
		d.push(u)
	case opBinBytes:
		n, err := d.u32()
		if err != nil {
			return err
		}
		return d.pushBytes(uint64(n))
	case opShortBinBytes:
		n, err := d.u8()
		if err != nil {
			return err
		}
		return d.pushBytes(uint64(n))
	case opBinBytes8, opByteArray8:
		n, err := d.u64()
		if err != nil {
			return err
		}
		return d.pushBytes(n)
	case opBinString:
		n, err := d.u32()
		if err != nil {
			return err
		}
		if int32(n) < 0 {
			return errors.New("negative BINSTRING length")
		}
		b, err := d.needLen(uint64(n))
		if err != nil {
			return err
		}
		d.push(latin1(b))
	case opShortBinString:
		n, err := d.u8()
		if err != nil {
			return err
		}
		b, err := d.needLen(uint64(n))
		if err != nil {
			return err
		}
		d.push(latin1(b))
	case opString:
		s, err := d.line()
		if err != nil {
			return err
		}
		v, err := pythonStringLiteral(s)
		if err != nil {
			return err
		}
		d.push(v)

	// Containers.
	case opEmptyTuple:
		d.push(&Tuple{})
	case opTuple:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		d.push(&Tuple{Items: items})
	case opTuple1, opTuple2, opTuple3:
		items, err := d.popN(int(op-opTuple1) + 1)
		if err != nil {
			return err
		}
		d.push(&Tuple{Items: items})
	case opEmptyList:
		d.push(&List{})
	case opList:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		d.push(&List{Items: items})
	case opAppend:
		v, err := d.pop()
		if err != nil {
			return err
		}
		l, err := d.top()
		if err != nil {
			return err
		}
		return d.appendItems(l, []Value{v})
	case opAppends:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		l, err := d.top()
		if err != nil {
			return err
		}
		return d.appendItems(l, items)
	case opEmptyDict:
		d.push(NewDict())
	case opDict:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		dict := NewDict()
		if err := d.setItems(dict, items); err != nil {
			return err
		}
		d.push(dict)
	case opSetItem:
		kv, err := d.popN(2)
		if err != nil {
			return err
		}
		t, err := d.top()
		if err != nil {
			return err
		}
		return d.setItems(t, kv)
	case opSetItems:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		t, err := d.top()
		if err != nil {
			return err
		}
		return d.setItems(t, items)
	case opEmptySet:
		d.push(&Set{})
	case opAddItems:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		t, err := d.top()
		if err != nil {
			return err
		}
		s, ok := t.(*Set)
		if !ok {
			return fmt.Errorf("cannot add items to a %s", TypeName(t))
		}
		s.Items = append(s.Items, items...)
	case opFrozenSet:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		d.push(&Set{Items: items})

	// Memo.
	case opBinPut:
		i, err := d.u8()
		if err != nil {
			return err
		}
		return d.memoPut(uint64(i))
	case opLongBinPut:
		i, err := d.u32()
		if err != nil {
			return err
		}
		return d.memoPut(uint64(i))
	case opMemoize:
		return d.memoPut(uint64(len(d.memo)))
	case opPut:
		s, err := d.line()
		if err != nil {
			return err
		}
		i, err := strconv.ParseUint(s, 10, 63)
		if err != nil {
			return fmt.Errorf("bad PUT index %q", s)
		}
		return d.memoPut(i)
	case opBinGet:
		i, err := d.u8()
		if err != nil {
			return err
		}
		return d.memoGet(uint64(i))
	case opLongBinGet:
		i, err := d.u32()
		if err != nil {
			return err
		}
		return d.memoGet(uint64(i))
	case opGet:
		s, err := d.line()
		if err != nil {
			return err
		}
		i, err := strconv.ParseUint(s, 10, 63)
		if err != nil {
			return fmt.Errorf("bad GET index %q", s)
		}
		return d.memoGet(i)

	// Globals, calls and objects.
	case opGlobal:
		module, err := d.line()
		if err != nil {
			return err
		}
		name, err := d.line()
		if err != nil {
			return err
		}
		return d.global(module, name)
	case opStackGlobal:
		mv, nv, err := d.pop2()
		if err != nil {
			return err
		}
		module, ok1 := mv.(string)
		name, ok2 := nv.(string)
		if !ok1 || !ok2 {
			return fmt.Errorf("STACK_GLOBAL needs two strings, got %s and %s", TypeName(mv), TypeName(nv))
		}
		return d.global(module, name)
	case opReduce, opNewObj:
		// REDUCE calls a callable and NEWOBJ a class; both go through call.
		fn, argv, err := d.pop2()
		if err != nil {
			return err
		}
		args, err := argsOf(argv)
		if err != nil {
			return err
		}
		v, err := d.call(fn, args, nil)
		if err != nil {
			return err
		}
		d.push(v)
	case opNewObjEx:
		kv, err := d.pop()
		if err != nil {
			return err
		}
		cls, argv, err := d.pop2()
		if err != nil {
			return err
		}
		args, err := argsOf(argv)
		if err != nil {
			return err
		}
		kwargs, ok := kv.(*Dict)
		if !ok {
			return fmt.Errorf("NEWOBJ_EX keyword arguments must be a dict, got %s", TypeName(kv))
		}
		v, err := d.call(cls, args, kwargs)
		if err != nil {
			return err
		}
		d.push(v)
	case opInst:
		module, err := d.line()
		if err != nil {
			return err
		}
		name, err := d.line()
		if err != nil {
			return err
		}
		args, err := d.popMark()
		if err != nil {
			return err
		}
		if err := d.global(module, name); err != nil {
			return err
		}
		cls, _ := d.pop()
		v, err := d.call(cls, args, nil)
		if err != nil {
			return err
		}
		d.push(v)
	case opObj:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return errors.New("OBJ without a class")
		}
		v, err := d.call(items[0], items[1:], nil)
		if err != nil {
			return err
		}
		d.push(v)
	case opBuild:
		state, err := d.pop()
		if err != nil {
			return err
		}
		obj, err := d.top()
		if err != nil {
			return err
		}
		s, ok := obj.(Stater)
		if !ok {
			return fmt.Errorf("cannot apply state to a %s", TypeName(obj))
		}
		return s.SetState(state)
	case opPersID:
		s, err := d.line()
		if err != nil {
			return err
		}
		return d.persistent(s)
	case opBinPersID:
		pid, err := d.pop()
		if err != nil {
			return err
		}
		return d.persistent(pid)
	case opExt1, opExt2, opExt4:
		return errors.New("extension registry codes (EXT1/2/4) are not supported: they name globals through a table only the writing program has")
	case opNextBuffer, opReadonlyBuffer:
		return errors.New("out-of-band buffers (pickle protocol 5 NEXT_BUFFER) are not supported: the data is not in the file")
	default:
		return fmt.Errorf("unknown opcode 0x%02x (not a pickle, or corrupt)", op)
	}
	return nil
}

func (d *decoder) persistent(pid Value) error {
	if d.opts.PersistentLoad == nil {
		return fmt.Errorf("persistent id %s is not supported by this reader", Format(pid))
	}
	v, err := d.opts.PersistentLoad(pid)
	if err != nil {
		return err
	}
	d.push(v)
	return nil
}

func (d *decoder) pushUTF8(n uint64) error {
	b, err := d.needLen(n)
	if err != nil {
		return err
	}
	s, err := utf8String(b)
	if err != nil {
		return err
	}
	d.push(s)
	return nil
}

func (d *decoder) pushBytes(n uint64) error {
	b, err := d.needLen(n)
	if err != nil {
		return err
	}
	d.push(append([]byte(nil), b...))
	return nil
}

func parseInt(s string) (Value, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	if len(s) > 4096 {
		return nil, errors.New("integer literal too long")
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("bad integer %q", s)
	}
	return n, nil
}

// pythonStringLiteral decodes protocol 0 STRING arguments: a quoted Python
// bytes literal with backslash escapes, returned as a Latin-1 string.
func pythonStringLiteral(s string) (string, error) {
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') || s[len(s)-1] != s[0] {
		return "", fmt.Errorf("STRING argument is not quoted: %.40q", s)
	}
	body := s[1 : len(s)-1]
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(body) {
			return "", errors.New("STRING ends with a backslash")
		}
		switch e := body[i]; e {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'a':
			out = append(out, 7)
		case 'b':
			out = append(out, 8)
		case 'f':
			out = append(out, 12)
		case 'v':
			out = append(out, 11)
		case '\\', '\'', '"':
			out = append(out, e)
		case 'x':
			if i+3 > len(body) {
				return "", errors.New("short \\x escape in STRING")
			}
			v, err := strconv.ParseUint(body[i+1:i+3], 16, 8)
			if err != nil {
				return "", errors.New("bad \\x escape in STRING")
			}
			out = append(out, byte(v))
			i += 2
		default:
			if e >= '0' && e <= '7' {
				j := i
				for j < len(body) && j < i+3 && body[j] >= '0' && body[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(body[i:j], 8, 16)
				out = append(out, byte(v))
				i = j - 1
			} else {
				out = append(out, '\\', e)
			}
		}
	}
	return latin1(out), nil
}

// rawUnicodeEscape decodes protocol 0 UNICODE arguments (\uXXXX and
// \UXXXXXXXX escapes; other bytes are Latin-1).
func rawUnicodeEscape(s string) (string, error) {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && (s[i+1] == 'u' || s[i+1] == 'U') {
			n := 4
			if s[i+1] == 'U' {
				n = 8
			}
			if i+2+n > len(s) {
				return "", errors.New("short \\u escape in UNICODE")
			}
			v, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32)
			if err != nil {
				return "", errors.New("bad \\u escape in UNICODE")
			}
			sb.WriteRune(rune(v))
			i += 1 + n
			continue
		}
		sb.WriteRune(rune(c))
	}
	return sb.String(), nil
}
