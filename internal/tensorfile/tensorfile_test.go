package tensorfile

import (
	"fmt"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Random makes inputs of every dtype: floats of every width in [-1, 1),
// integers and bools 0 or 1.
func TestRandomEveryDType(t *testing.T) {
	var ins []canon.ValueInfo
	for _, dt := range []canon.DType{canon.Float16, canon.BFloat16, canon.Float32, canon.Float64, canon.Bool,
		canon.Int8, canon.Int16, canon.Int32, canon.Int64, canon.Uint8, canon.Uint16, canon.Uint32, canon.Uint64} {
		ins = append(ins, canon.ValueInfo{Name: dt.String(), DType: dt, Shape: canon.DimsOf(64), RankKnown: true})
	}
	got, err := Random(ins, nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		x := got[in.Name]
		if x == nil || x.DType != in.DType || x.CheckData() != nil {
			t.Fatalf("%s: bad tensor %+v", in.Name, x)
		}
		if !in.DType.IsFloat() {
			// Integers and bools: 0 or 1, both present, in the dtype's own
			// width (a 1 in a wider integer is not in its first byte only
			// if the encoding is wrong).
			v, err := x.Int64s()
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int64]bool{}
			for _, k := range v {
				if k != 0 && k != 1 {
					t.Fatalf("%s: value %d, want 0 or 1", in.Name, k)
				}
				seen[k] = true
			}
			if len(seen) != 2 {
				t.Errorf("%s: values %v, want both 0 and 1", in.Name, seen)
			}
			continue
		}
		v, err := x.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		distinct := map[float64]bool{}
		for _, f := range v {
			if !(f >= -1 && f <= 1) {
				t.Fatalf("%s: value %v outside [-1, 1]", in.Name, f)
			}
			distinct[f] = true
		}
		if len(distinct) < 10 {
			t.Errorf("%s: only %d distinct values in 64", in.Name, len(distinct))
		}
	}
}

// --input-shape takes sizes and names; a name is a symbolic size: -1 with
// its name for reading models, 1 for making inputs.
func TestParseInputShapes(t *testing.T) {
	shapes, names, err := ParseInputShapes([]string{"x=N,3,224,224", "#1=2,seq_len"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(shapes["x"]) != "[-1 3 224 224]" || names["x"][0] != "N" || fmt.Sprint(shapes["#1"]) != "[2 -1]" || names["#1"][1] != "seq_len" {
		t.Errorf("got shapes %v, names %v", shapes, names)
	}
	concrete, err := ParseShapes([]string{"x=N,3,224,224"})
	if err != nil || fmt.Sprint(concrete["x"]) != "[1 3 224 224]" {
		t.Errorf("concrete shapes %v, %v", concrete, err)
	}
	for _, bad := range []string{"x=3,-2", "x=3,2x", "x", "=3"} {
		if _, _, err := ParseInputShapes([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
