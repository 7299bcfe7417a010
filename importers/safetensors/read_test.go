package safetensorsimport

import (
	"encoding/binary"
	"strings"
	"testing"
)

func file(header string, data int) []byte {
	b := make([]byte, 8, 8+len(header)+data)
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	b = append(b, header...)
	return append(b, make([]byte, data)...)
}

// Corrupt headers are refused with a message naming the problem.
func TestBadHeaders(t *testing.T) {
	cases := map[string]struct {
		data []byte
		want string
	}{
		"huge header":  {func() []byte { b := file("{}", 0); binary.LittleEndian.PutUint64(b, 1<<62); return b }(), "header length"},
		"out of range": {file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 4), "truncated"},
		"overlap":      {file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), "contiguous"},
		"size":         {file(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, 8), "does not hold"},
		"dtype":        {file(`{"a":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}}`, 8), "C64"},
		"gap at end":   {file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 8), "after the last tensor"},
		"overflow":     {file(`{"a":{"dtype":"F32","shape":[9223372036854775807,4],"data_offsets":[0,4]}}`, 4), "overflows"},
		"not json":     {file(`[1,2]`, 0), "not a JSON object"},
	}
	for name, c := range cases {
		_, err := parse("x.safetensors", c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want %q, got %v", name, c.want, err)
		}
	}
	if _, err := parse("x.safetensors", file(`{"__metadata__":{"k":"v"},"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}}  `, 4)); err != nil {
		t.Errorf("valid file: %v", err)
	}
}
