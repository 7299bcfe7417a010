package picklewrite

import (
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
)

// torchDataPkl is data.pkl from torch 1.13's
// torch.save(OrderedDict(a=torch.arange(6.).reshape(2,3), b=torch.ones(3, dtype=torch.int64))).
const torchDataPkl = "800263636f6c6c656374696f6e730a4f726465726564446963740a71002952710128580100000061710263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71032828580700000073746f72616765710463746f7263680a466c6f617453746f726167650a71055801000000307106580300000063707571074b06747108514b004b024b038671094b034b0186710a8968002952710b74710c52710d580100000062710e68032828680463746f7263680a4c6f6e6753746f726167650a710f580100000031711068074b03747111514b004b038571124b0185711389680029527114747115527116752e"

func tensor(storage, key string, numel int64, size, stride Tuple) Value {
	od := Global{"collections", "OrderedDict"}
	pid := &PersistentID{ID: Tuple{Str("storage"), Global{"torch", storage}, Str(key), Str("cpu"), Int(numel)}}
	return &Reduce{
		Callable: Global{"torch._utils", "_rebuild_tensor_v2"},
		Args:     Tuple{pid, Int(0), size, stride, Bool(false), &Reduce{Callable: od, Args: Tuple{}}},
	}
}

// TestMatchesTorchSave rebuilds the state dict torch.save wrote and expects
// the same bytes.
func TestMatchesTorchSave(t *testing.T) {
	v := &Reduce{
		Callable: Global{"collections", "OrderedDict"},
		Args:     Tuple{},
		Items: []Item{
			{Str("a"), tensor("FloatStorage", "0", 6, Tuple{Int(2), Int(3)}, Tuple{Int(3), Int(1)})},
			{Str("b"), tensor("LongStorage", "1", 3, Tuple{Int(3)}, Tuple{Int(1)})},
		},
	}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if h := hex.EncodeToString(got); h != torchDataPkl {
		t.Fatalf("pickle differs from torch.save's:\n got %s\nwant %s", h, torchDataPkl)
	}
}

// TestScalarsMatchCPython compares with pickle.dumps(v, protocol=2).
func TestScalarsMatchCPython(t *testing.T) {
	cases := []struct {
		v    Value
		want string
	}{
		{Int(0), "80024b002e"},
		{Int(255), "80024bff2e"},
		{Int(256), "80024d00012e"},
		{Int(65535), "80024dffff2e"},
		{Int(65536), "80024a000001002e"},
		{Int(-1), "80024affffffff2e"},
		{Int(-2147483648), "80024a000000802e"},
		{Int(2147483647), "80024affffff7f2e"},
		{Int(2147483648), "80028a0500000080002e"},
		{Int(-2147483649), "80028a05ffffff7fff2e"},
		{Int(9223372036854775807), "80028a08ffffffffffffff7f2e"},
		{Int(-9223372036854775808), "80028a0800000000000000802e"},
		{Float(1.5), "8002473ff80000000000002e"},
		{Tuple{Int(1), Int(2), Int(3), Int(4)}, "8002284b014b024b034b047471002e"},
		{Tuple{Str("a"), Str("a")}, "8002580100000061710068008671012e"},
		{None{}, "80024e2e"},
		{Bool(true), "8002882e"},
	}
	for _, c := range cases {
		got, err := Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if h := hex.EncodeToString(got); h != c.want {
			t.Errorf("%#v: got %s, want %s", c.v, h, c.want)
		}
	}
}

// TestLargeMemoAndBatches checks LONG_BINPUT/LONG_BINGET past 256 memo
// entries and SETITEMS batches of 1000 with a lone SETITEM at the end.
func TestLargeMemoAndBatches(t *testing.T) {
	var items []Item
	for i := 0; i < 1001; i++ {
		items = append(items, Item{Str("k" + strconv.Itoa(i)), Str("k0")})
	}
	got, err := Marshal(&Reduce{Callable: Global{"collections", "OrderedDict"}, Args: Tuple{}, Items: items})
	if err != nil {
		t.Fatal(err)
	}
	h := hex.EncodeToString(got)
	if !strings.Contains(h, "72"+"00010000") { // LONG_BINPUT 256
		t.Error("no LONG_BINPUT for memo slot 256")
	}
	if strings.Count(string(got), "u") < 1 || got[len(got)-2] != 's' {
		t.Errorf("want SETITEMS for the first 1000 items and SETITEM for the last, tail %q", got[len(got)-8:])
	}
	if _, err := Marshal(Global{"a\nb", "c"}); err == nil {
		t.Error("a global with a newline was accepted")
	}
}
