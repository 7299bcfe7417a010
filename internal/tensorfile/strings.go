package tensorfile

import (
	"fmt"
	"math/rand/v2"

	"github.com/modelbridge/modelbridge/canon"
)

// randomAlphabet is what random strings are made of: letters, a space and
// a dot, so that splitting and matching ops see delimiters.
const randomAlphabet = "abcxyz ."

// randomStrings fills string tensor t with strings of 0 to 7 characters
// from randomAlphabet, counting them against maxBytes (0: 4 GiB) in total.
func randomStrings(t *canon.Tensor, rng *rand.Rand, maxBytes int64, total *int64) error {
	n := t.NumElements()
	limit := maxBytes
	if limit <= 0 {
		limit = 1 << 32
	}
	// 16 bytes of string header and at most 7 of text per element.
	if n < 0 || n > (limit-*total)/24 {
		return fmt.Errorf("input %q: shape %v is too large for random strings within %d bytes", t.Name, t.Shape, limit)
	}
	*total += n * 24
	t.Strings = make([]string, n)
	buf := make([]byte, 0, 7)
	for i := range t.Strings {
		buf = buf[:0]
		for range rng.IntN(8) {
			buf = append(buf, randomAlphabet[rng.IntN(len(randomAlphabet))])
		}
		t.Strings[i] = string(buf)
	}
	return nil
}
