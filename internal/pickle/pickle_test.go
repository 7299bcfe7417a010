package pickle

import (
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var frozenSet = &Func{Global: Global{Module: "builtins", Name: "frozenset"}, Fn: func(args []Value) (Value, error) {
	s := &Set{}
	if len(args) == 1 {
		if l, ok := args[0].(*List); ok {
			s.Items = l.Items
		}
	}
	return s, nil
}}

func testOptions() Options {
	py2FrozenSet := *frozenSet
	py2FrozenSet.Global = Global{Module: "__builtin__", Name: "frozenset"}
	return Options{FindClass: Allow(nil, OrderedDict, CodecsEncode, frozenSet, &py2FrozenSet)}
}

// The same Python object pickled with every protocol decodes to the same values.
func TestProtocols(t *testing.T) {
	for p := 0; p <= 5; p++ {
		data, err := os.ReadFile(filepath.Join("testdata", "mixed_proto"+string(rune('0'+p))+".pkl"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := Unpickle(data, testOptions())
		if err != nil {
			t.Fatalf("protocol %d: %v", p, err)
		}
		d, ok := v.(*Dict)
		if !ok {
			t.Fatalf("protocol %d: got %s", p, TypeName(v))
		}
		want := []string{"a", "b", "c", "d", "7", "e", "big"}
		if d.Len() != len(want) {
			t.Fatalf("protocol %d: %d keys: %s", p, d.Len(), Format(d))
		}
		if a, _ := d.Get("a"); a != int64(1) {
			t.Errorf("protocol %d: a = %s", p, Format(a))
		}
		b, _ := d.Get("b")
		bl, ok := b.(*List)
		if !ok || len(bl.Items) != 8 {
			t.Fatalf("protocol %d: b = %s", p, Format(b))
		}
		big70 := new(big.Int).Lsh(big.NewInt(1), 70)
		if x, ok := bl.Items[2].(*big.Int); !ok || x.Cmp(big70) != 0 {
			t.Errorf("protocol %d: 2**70 decoded as %s", p, Format(bl.Items[2]))
		}
		if bl.Items[0] != 1.5 || bl.Items[1] != int64(-2) || bl.Items[3] != int64(-1<<63) || bl.Items[4] != true || bl.Items[5] != (None{}) || bl.Items[6] != "héllo" {
			t.Errorf("protocol %d: b = %s", p, Format(b))
		}
		if by, ok := bl.Items[7].([]byte); !ok || string(by) != "\x00\x01" {
			t.Errorf("protocol %d: bytes decoded as %s", p, Format(bl.Items[7]))
		}
		c, _ := d.Get("c")
		if ct, ok := c.(*Tuple); !ok || len(ct.Items) != 3 || ct.Items[2] != int64(3) {
			t.Errorf("protocol %d: c = %s", p, Format(c))
		}
		od, _ := d.Get("d")
		odd, ok := od.(*Dict)
		if !ok || odd.Len() != 2 || odd.Keys[0] != "x" || odd.Keys[1] != "y" {
			t.Errorf("protocol %d: OrderedDict = %s", p, Format(od))
		}
		if n, _ := d.Get(int64(7)); n == nil {
			t.Errorf("protocol %d: int key 7 missing", p)
		}
		if e, _ := d.Get("e"); e == nil {
			t.Errorf("protocol %d: frozenset missing", p)
		} else if _, ok := e.(*Set); !ok {
			t.Errorf("protocol %d: frozenset = %s", p, Format(e))
		}
		if x, _ := d.Get("big"); x != int64(123456789012) {
			t.Errorf("protocol %d: big = %s", p, Format(x))
		}
	}
}

// Hand-written hostile pickles: each names a dangerous callable. The
// decoder must refuse the name itself, before any REDUCE.
func TestHostileGlobalsRefused(t *testing.T) {
	cases := map[string]string{
		"os.system":           "cos\nsystem\n(S'echo pwned'\ntR.",
		"posix.system":        "cposix\nsystem\n(S'id'\ntR.",
		"nt.system":           "\x80\x02cnt\nsystem\nX\x02\x00\x00\x00idq\x00\x85R.",
		"builtins.eval":       "\x80\x04\x95\x19\x00\x00\x00\x00\x00\x00\x00\x8c\x08builtins\x8c\x04eval\x93\x8c\x041+1\x85R.",
		"builtins.__import__": "\x80\x04\x8c\x08builtins\x8c\n__import__\x93\x8c\x02os\x85R.",
		"__builtin__.exec":    "c__builtin__\nexec\n(S'import os'\ntR.",
		"subprocess.Popen":    "\x80\x02csubprocess\nPopen\n]q\x00(X\x02\x00\x00\x00lsq\x01a\x85R.",
		"os.system (INST)":    "(S'id'\nios\nsystem\n.",
	}
	for name, src := range cases {
		// Even a caller allowing OrderedDict must refuse these.
		_, err := Unpickle([]byte(src), testOptions())
		var fe *ForbiddenGlobalError
		if !errors.As(err, &fe) {
			t.Errorf("%s: want a refused global, got %v", name, err)
			continue
		}
		want := strings.Fields(name)[0]
		if fe.Module+"."+fe.Name != want || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not name %s", name, err, want)
		}
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "at byte") {
			t.Errorf("%s: error %q has no byte offset", name, err)
		}
		// With no FindClass at all, every global is refused too.
		if _, err := Unpickle([]byte(src), Options{}); !errors.As(err, &fe) {
			t.Errorf("%s (no FindClass): got %v", name, err)
		}
	}
}

// Calling anything other than an allowed global is refused (a pickle cannot
// smuggle a callable in as data).
func TestCallOnData(t *testing.T) {
	_, err := Unpickle([]byte("\x80\x02X\x02\x00\x00\x00os)R."), Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot call") {
		t.Fatalf("got %v", err)
	}
}

func TestObjectRecord(t *testing.T) {
	// torch._utils._rebuild_tensor_v2-like call with BUILD state.
	src := "\x80\x02cpkg\nCls\nK\x01K\x02\x86R}X\x01\x00\x00\x00aK\x03sb."
	v, err := Unpickle([]byte(src), Options{FindClass: Allow([]string{"pkg.Cls"})})
	if err != nil {
		t.Fatal(err)
	}
	o, ok := v.(*Object)
	if !ok || o.Class.String() != "pkg.Cls" || len(o.Args) != 2 || o.Args[1] != int64(2) {
		t.Fatalf("got %s", Format(v))
	}
	st, ok := o.State.(*Dict)
	if a, _ := st.Get("a"); !ok || a != int64(3) {
		t.Fatalf("state %s", Format(o.State))
	}
}

func TestPersistentLoad(t *testing.T) {
	src := "\x80\x02X\x03\x00\x00\x00keyQ."
	v, err := Unpickle([]byte(src), Options{PersistentLoad: func(pid Value) (Value, error) { return "loaded:" + pid.(string), nil }})
	if err != nil || v != "loaded:key" {
		t.Fatalf("got %v, %v", v, err)
	}
	if _, err := Unpickle([]byte(src), Options{}); err == nil || !strings.Contains(err.Error(), "persistent id") {
		t.Fatalf("no PersistentLoad: got %v", err)
	}
}

// Declared lengths larger than the input are refused before allocating.
func TestDeclaredSizesBounded(t *testing.T) {
	cases := []string{
		"\x80\x04\x8e\xff\xff\xff\xff\xff\xff\xff\x7f.",  // BINBYTES8 of 2^63 bytes
		"\x80\x04\x8d\x00\x00\x00\x40\x00\x00\x00\x00.",  // BINUNICODE8 of 1 GiB
		"\x80\x02\x8b\xff\xff\xff\x7f.",                  // LONG4 of 2 GiB
		"\x80\x04\x95\x00\x00\x00\x00\x01\x00\x00\x00N.", // FRAME of 4 GiB
		"\x80\x03B\xff\xff\xff\xff.",                     // BINBYTES of 4 GiB
		"\x80\x02r\xff\xff\xff\xffN.",                    // LONG_BINPUT on an empty stack
		"\x80\x02j\xff\xff\xff\xff.",                     // LONG_BINGET of a missing index
	}
	for _, c := range cases {
		_, err := Unpickle([]byte(c), Options{})
		if err == nil {
			t.Errorf("%q: no error", c)
		} else if !strings.Contains(err.Error(), "at byte") {
			t.Errorf("%q: error without offset: %v", c, err)
		}
	}
}

func TestTrailingAndSequential(t *testing.T) {
	two := []byte("K\x01.K\x02.")
	v, n, err := Decode(two, Options{})
	if err != nil || v != int64(1) || n != 3 {
		t.Fatalf("first: %v %d %v", v, n, err)
	}
	v, _, err = Decode(two[n:], Options{})
	if err != nil || v != int64(2) {
		t.Fatalf("second: %v %v", v, err)
	}
	if _, err := Unpickle(two, Options{}); err == nil {
		t.Fatal("trailing bytes accepted")
	}
}

// Every truncation and many single-byte corruptions of the fixtures fail
// cleanly (no panic).
func TestCorruption(t *testing.T) {
	for _, data := range seedPickles(t) {
		for i := 0; i < len(data); i++ {
			_, _ = Unpickle(data[:i], testOptions())
		}
		buf := make([]byte, len(data))
		for i := 0; i < len(data); i++ {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				copy(buf, data)
				buf[i] ^= x
				_, _ = Unpickle(buf, testOptions())
			}
		}
	}
}

func seedPickles(t testing.TB) [][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.pkl"))
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		t.Fatal("no seed pickles in testdata")
	}
	return out
}

func FuzzUnpickle(f *testing.F) {
	for _, b := range seedPickles(f) {
		f.Add(b)
	}
	f.Add([]byte("cos\nsystem\n(S'id'\ntR."))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := testOptions()
		opts.PersistentLoad = func(pid Value) (Value, error) { return pid, nil }
		v, _, err := Decode(data, opts)
		if err == nil {
			_ = Format(v)
		}
	})
}

// Pickles PyTorch wrote (a state dict's and a TorchScript module's data.pkl)
// decode with an allow-list of the names they use.
func TestTorchPickles(t *testing.T) {
	opts := Options{
		FindClass: Allow([]string{"torch._utils._rebuild_tensor_v2", "torch.FloatStorage", "torch.LongStorage", "__torch__.Foo"}, OrderedDict),
		PersistentLoad: func(pid Value) (Value, error) {
			tup, ok := pid.(*Tuple)
			if !ok || len(tup.Items) != 5 || tup.Items[0] != "storage" {
				t.Fatalf("unexpected persistent id %s", Format(pid))
			}
			return "storage#" + tup.Items[2].(string), nil
		},
	}
	for _, name := range []string{"torch_state_dict_data.pkl", "torchscript_data.pkl"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		v, err := Unpickle(data, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var rebuild *Object
		switch x := v.(type) {
		case *Dict: // state dict: OrderedDict of tensors
			if x.Keys[0] != "conv1.weight" || x.State == nil {
				t.Fatalf("%s: %s", name, Format(v))
			}
			rebuild, _ = x.Values[0].(*Object)
		case *Object: // TorchScript: __torch__.Foo with attributes as state
			st, _ := x.State.(*Dict)
			val, _ := st.Get("value")
			rebuild, _ = val.(*Object)
		}
		if rebuild == nil || rebuild.Class.Name != "_rebuild_tensor_v2" || !strings.HasPrefix(rebuild.Args[0].(string), "storage#") {
			t.Fatalf("%s: tensor not decoded: %s", name, Format(v))
		}
	}
	if v, err := Unpickle(mustRead(t, "torchscript_constants.pkl"), Options{}); err != nil || len(v.(*Tuple).Items) != 0 {
		t.Fatalf("constants.pkl: %v %v", v, err)
	}
}

func mustRead(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
