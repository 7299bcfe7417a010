package pt2

import (
	"encoding/json"
	"math"
	"testing"
)

// TestPythonFloatWords: Python's json writes -inf as -Infinity; the words
// are read as floats, and left alone inside strings.
func TestPythonFloatWords(t *testing.T) {
	raw := []byte(`{"a": -Infinity, "b": [Infinity, NaN, 1.5], "s": "NaN and -Infinity \"Infinity\""}`)
	var v struct {
		A pyFloat   `json:"a"`
		B []pyFloat `json:"b"`
		S string    `json:"s"`
	}
	if err := json.Unmarshal(quotePythonFloats(raw), &v); err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(float64(v.A), -1) || !math.IsInf(float64(v.B[0]), 1) || !math.IsNaN(float64(v.B[1])) || v.B[2] != 1.5 {
		t.Errorf("floats %v %v", v.A, v.B)
	}
	if v.S != `NaN and -Infinity "Infinity"` {
		t.Errorf("string changed: %q", v.S)
	}
	plain := []byte(`{"a": 1}`)
	if got := quotePythonFloats(plain); &got[0] != &plain[0] {
		t.Error("a program without the words should be used as it is")
	}
	var f pyFloat
	if err := json.Unmarshal([]byte(`"x"`), &f); err == nil {
		t.Error("a string that is not one of the words was read as a float")
	}
}
