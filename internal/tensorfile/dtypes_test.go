package tensorfile

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func TestParseInputDTypes(t *testing.T) {
	got, err := ParseInputDTypes([]string{"ids=i64:1,15", "x=1,3", "#2=bool:4"}, []string{"mask=bool", "x=f16"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]canon.DType{"ids": canon.Int64, "#2": canon.Bool, "mask": canon.Bool, "x": canon.Float16}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, d := range want {
		if got[k] != d {
			t.Errorf("%s: got %s, want %s", k, got[k], d)
		}
	}
	if none, err := ParseInputDTypes([]string{"x=1,3"}, nil); err != nil || none != nil {
		t.Errorf("no types: got %v, %v", none, err)
	}
	for _, bad := range []struct{ shapes, types []string }{
		{types: []string{"x=int64"}},
		{types: []string{"x"}},
		{types: []string{"x=complex"}},
		{shapes: []string{"x=long:1,2"}},
		{shapes: []string{"x=i64:1,2"}, types: []string{"x=i32"}},
	} {
		if _, err := ParseInputDTypes(bad.shapes, bad.types); err == nil {
			t.Errorf("%v %v: accepted", bad.shapes, bad.types)
		}
	}
	_, err = ParseInputDTypes(nil, []string{"x=int64"})
	if err == nil || !strings.Contains(err.Error(), "write i64") {
		t.Errorf("a NumPy spelling should get the short name as a hint, got %v", err)
	}
}

func TestParseInputShapesWithDType(t *testing.T) {
	shapes, names, err := ParseInputShapes([]string{"ids=i64:N,15", "m=bool:2x3"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(shapes["ids"], []int64{-1, 15}) || names["ids"][0] != "N" {
		t.Errorf("ids: %v %v", shapes["ids"], names["ids"])
	}
	if !slices.Equal(shapes["m"], []int64{2, 3}) {
		t.Errorf("m: %v", shapes["m"])
	}
	concrete, err := ParseShapes([]string{"ids=i64:N,15"})
	if err != nil || !slices.Equal(concrete["ids"], []int64{1, 15}) {
		t.Errorf("concrete: %v %v", concrete, err)
	}
	// Colons between sizes stay a spelling of sizes, with the hint.
	if _, _, err := ParseInputShapes([]string{"x=1:3:8:8"}); err == nil || !strings.Contains(err.Error(), "x=1,3,8,8") {
		t.Errorf("1:3:8:8: %v", err)
	}
}
