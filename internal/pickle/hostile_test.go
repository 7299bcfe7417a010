package pickle

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// hugeLong is a LONG4 opcode for an int of n bytes.
func hugeLong(n int) []byte {
	var b bytes.Buffer
	b.WriteByte(opLong4)
	binary.Write(&b, binary.LittleEndian, uint32(n))
	b.Write(bytes.Repeat([]byte{0x5a}, n))
	return b.Bytes()
}

// Converting an int of a megabyte (LONG4 takes any length) to decimal
// takes seconds, and a pickle can reach one such int from many places
// through its memo: a dict key is refused by size, and Format names the
// size, both without the conversion.
func TestHugeInts(t *testing.T) {
	data := append(append([]byte("\x80\x02}"), hugeLong(1<<20)...), "Ns."...)
	_, err := Unpickle(data, Options{})
	if err == nil || !strings.Contains(err.Error(), "dict key") {
		t.Errorf("want a refused dict key, got %v", err)
	}
	v, err := Unpickle(append(hugeLong(1<<20), '.'), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := Format(&List{Items: []Value{v}}); s != "[<int of 8388607 bits>]" {
		t.Errorf("Format: %.100s", s)
	}
	if s := Format(mustBig("-12345678901234567890123")); s != "-12345678901234567890123" {
		t.Errorf("Format of a 77-bit int: %s", s)
	}
}

func mustBig(s string) Value {
	v, err := parseInt(s)
	if err != nil {
		panic(err)
	}
	return v
}
