package pt2

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Python's json module writes the floats JSON cannot spell as the bare
// words Infinity, -Infinity and NaN (a masked_fill with -inf in a program).
// quotePythonFloats quotes those words where they stand outside strings,
// so that encoding/json reads the program, and pyFloat reads them back.

// pyFloatWords are the bare words, longest first so that -Infinity is not
// read as - and Infinity.
var pyFloatWords = [][]byte{[]byte("-Infinity"), []byte("Infinity"), []byte("NaN")}

// quotePythonFloats returns raw with Infinity, -Infinity and NaN outside
// strings quoted; raw itself when it has none (the common case).
func quotePythonFloats(raw []byte) []byte {
	if !bytes.Contains(raw, []byte("Infinity")) && !bytes.Contains(raw, []byte("NaN")) {
		return raw
	}
	out := make([]byte, 0, len(raw)+64)
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		matched := false
		for _, w := range pyFloatWords {
			if bytes.HasPrefix(raw[i:], w) {
				out = append(out, '"')
				out = append(out, w...)
				out = append(out, '"')
				i += len(w) - 1
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, c)
		}
	}
	return out
}

// pyFloat is a float of the program: a JSON number, or one of Python's
// words for the infinities and NaN (quoted by quotePythonFloats).
type pyFloat float64

func (f *pyFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"Infinity"`:
		*f = pyFloat(math.Inf(1))
		return nil
	case `"-Infinity"`:
		*f = pyFloat(math.Inf(-1))
		return nil
	case `"NaN"`:
		*f = pyFloat(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%s is not a float", b)
	}
	*f = pyFloat(v)
	return nil
}
