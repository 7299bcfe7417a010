package robust

import (
	"bytes"
	"encoding/binary"
	"math/rand"
)

// A Damaged file is a base file spoiled in one way, named for the report.
type Damaged struct {
	Name string
	Data []byte
}

// Truncations cuts b at cuts evenly spaced points (the first is 0: an
// empty file) and just before its end.
func Truncations(b []byte, cuts int) []Damaged {
	var out []Damaged
	for k := 0; k < cuts; k++ {
		n := len(b) * k / cuts
		out = append(out, Damaged{Name: "truncated-at-" + itoa(n), Data: b[:n]})
	}
	if len(b) > 1 {
		out = append(out, Damaged{Name: "truncated-by-1", Data: b[:len(b)-1]})
	}
	return out
}

// Flips overwrites 1 to 4 random bytes of b, count times, from a fixed
// seed so that a failure can be reproduced.
func Flips(b []byte, count int, seed int64) []Damaged {
	rng := rand.New(rand.NewSource(seed))
	var out []Damaged
	for i := 0; i < count && len(b) > 0; i++ {
		c := bytes.Clone(b)
		for k := 0; k < 1+rng.Intn(4); k++ {
			c[rng.Intn(len(c))] = byte(rng.Intn(256))
		}
		out = append(out, Damaged{Name: "flipped-" + itoa(i), Data: c})
	}
	return out
}

// PatchUint64 returns b with the little-endian uint64 at off set to v.
func PatchUint64(b []byte, off int, v uint64) []byte {
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint64(c[off:], v)
	return c
}

// PatchUint32 returns b with the little-endian uint32 at off set to v.
func PatchUint32(b []byte, off int, v uint32) []byte {
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint32(c[off:], v)
	return c
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(buf[i:])
		}
	}
}
