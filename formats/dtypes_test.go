package formats

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestCheckInputDTypes: a given type must be the graph's; unknown keys are
// refused by name.
func TestCheckInputDTypes(t *testing.T) {
	g := &canon.Graph{Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32}, {Name: "ids", DType: canon.Int64}}}
	for _, c := range []struct {
		given map[string]canon.DType
		err   string
	}{
		{nil, ""},
		{map[string]canon.DType{"ids": canon.Int64, "#0": canon.Float32}, ""},
		{map[string]canon.DType{"ids": canon.Int32}, `input "ids" is given as i32, but the file records it as i64`},
		{map[string]canon.DType{"#0": canon.Float16}, `input "x" is given as f16`},
		{map[string]canon.DType{"y": canon.Bool}, "an input type is given for y"},
	} {
		err := checkInputDTypes(g, ReadOptions{InputDTypes: c.given})
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%v: %v", c.given, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v: want %q, got %v", c.given, c.err, err)
		}
	}
}
