package compare

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestCheckValue compares sequences tensor by tensor and optionals by
// presence then value, and reports structural differences as failures.
func TestCheckValue(t *testing.T) {
	f := func(v ...float32) *canon.Tensor { return canon.NewFloat32Tensor("", []int64{int64(len(v))}, v) }
	seq := func(ts ...*canon.Tensor) *canon.Sequence { return &canon.Sequence{DType: canon.Float32, Tensors: ts} }
	opt := func(v canon.Value) *canon.OptionalValue {
		return &canon.OptionalValue{Kind: canon.OptionalTensor, DType: canon.Float32, Value: v}
	}
	tol := Tolerance{RTol: 1e-4, ATol: 1e-5}
	for _, c := range []struct {
		name      string
		got, want canon.Value
		ok        bool
		structure string
		where     string
	}{
		{"equal sequences", seq(f(1, 2), f(3)), seq(f(1, 2), f(3)), true, "", "tensor 0 of the sequence"},
		{"a differing tensor", seq(f(1, 2), f(3.5)), seq(f(1, 2), f(3)), false, "", "tensor 1 of the sequence"},
		{"another length", seq(f(1, 2)), seq(f(1, 2), f(3)), false, "the sequence has 1 tensors, the reference 2", ""},
		{"another shape inside", seq(f(1, 2), f(3, 4)), seq(f(1, 2), f(3)), false, "tensor 1 of the sequence is f32[2], the reference's f32[1]", ""},
		{"empty optionals", opt(nil), opt(nil), true, "", ""},
		{"an empty optional", opt(nil), opt(f(1)), false, "the optional is empty, the reference not empty", ""},
		{"optionals holding tensors", opt(f(1, 2)), opt(f(1, 2.5)), false, "", ""},
	} {
		r, err := tol.CheckValue(c.got, c.want)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if r.OK != c.ok || !strings.Contains(r.Structure, c.structure) || (c.structure == "") != (r.Structure == "") || r.Where != c.where {
			t.Errorf("%s: ok %v structure %q where %q; want %v %q %q", c.name, r.OK, r.Structure, r.Where, c.ok, c.structure, c.where)
		}
	}
	if _, err := tol.CheckValue(f(1), seq(f(1))); err == nil {
		t.Error("a tensor compared with a sequence: want an error")
	}
}
