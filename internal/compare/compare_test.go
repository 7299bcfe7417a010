package compare

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func f32(shape []int64, v ...float32) *canon.Tensor {
	return canon.NewFloat32Tensor("t", shape, v)
}

func mustCompare(t *testing.T, got, want *canon.Tensor, rtol, atol float64) Result {
	t.Helper()
	r, err := Tensors(got, want, rtol, atol)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The rule is |got-want| <= atol + rtol*|want|: exactly at the tolerance
// passes, one float32 step beyond fails. All values are exact in float32.
func TestToleranceBoundary(t *testing.T) {
	const rtol, atol = 0.5, 0.25
	step := float32(math.Ldexp(1, -20))
	cases := []struct {
		name      string
		got, want float32
		ok        bool
	}{
		{"at tolerance above", 1.75, 1, true},   // 0.75 == 0.25 + 0.5*1
		{"at tolerance below", 0.25, 1, true},   // symmetric in sign of the error
		{"negative reference", -0.75, -2, true}, // 1.25 == 0.25 + 0.5*|-2|
		{"just over above", 1.75 + step, 1, false},
		{"just over below", 0.25 - step, 1, false},
		{"just over negative reference", -0.75 + step, -2, false},
		{"zero reference uses atol only", 0.25, 0, true},
		{"zero reference just over atol", 0.25 + step, 0, false},
	}
	for _, c := range cases {
		r := mustCompare(t, f32([]int64{1}, c.got), f32([]int64{1}, c.want), rtol, atol)
		if r.OK != c.ok {
			t.Errorf("%s: got %v want %v: OK %v, want %v (max abs %g)", c.name, c.got, c.want, r.OK, c.ok, r.MaxAbs)
		}
		if wantMis := map[bool]int64{true: 0, false: 1}[c.ok]; r.Mismatched != wantMis {
			t.Errorf("%s: %d mismatched, want %d", c.name, r.Mismatched, wantMis)
		}
	}
}

func TestNonFiniteValues(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	cases := []struct {
		name      string
		got, want float32
		ok        bool
	}{
		{"NaN matches NaN", nan, nan, true},
		{"+Inf matches +Inf", inf, inf, true},
		{"-Inf matches -Inf", -inf, -inf, true},
		{"+Inf against -Inf", inf, -inf, false},
		{"Inf against finite", inf, 1, false},
		{"finite against Inf", 1, -inf, false},
		{"NaN against finite", nan, 1, false},
		{"finite against NaN", 1, nan, false},
	}
	for _, c := range cases {
		r := mustCompare(t, f32([]int64{2}, c.got, 3), f32([]int64{2}, c.want, 3), 1e-4, 1e-5)
		if r.OK != c.ok {
			t.Errorf("%s: OK %v, want %v", c.name, r.OK, c.ok)
		}
		if !c.ok && (r.Mismatched != 1 || !slices.Equal(r.Worst, []int64{0})) {
			t.Errorf("%s: %d mismatched, worst %v; want 1 at [0]", c.name, r.Mismatched, r.Worst)
		}
	}
}

func TestShapeMismatch(t *testing.T) {
	a := f32([]int64{2, 3}, 1, 2, 3, 4, 5, 6)
	b := f32([]int64{3, 2}, 1, 2, 3, 4, 5, 6)
	if _, err := Tensors(a, b, 1, 1); err == nil {
		t.Error("Tensors accepted shapes [2 3] and [3 2]")
	}
	if _, err := Tensors(a, f32([]int64{6}, 1, 2, 3, 4, 5, 6), 1, 1); err == nil {
		t.Error("Tensors accepted shapes [2 3] and [6]")
	}
	if _, err := RelativeToMax(a, b); err == nil {
		t.Error("RelativeToMax accepted shapes [2 3] and [3 2]")
	}
}

// MaxRel skips elements whose reference is zero (their relative error is
// undefined); MaxAbs still counts them.
func TestMaxRelIgnoresZeroReferences(t *testing.T) {
	r := mustCompare(t, f32([]int64{3}, 1, 2.5, 4), f32([]int64{3}, 0, 2, 4), 0, 0)
	if r.MaxAbs != 1 {
		t.Errorf("max abs %g, want 1", r.MaxAbs)
	}
	if r.MaxRel != 0.25 {
		t.Errorf("max rel %g, want 0.25 (the zero reference must be skipped)", r.MaxRel)
	}
	if r.OK || r.Mismatched != 2 || r.Elements != 3 {
		t.Errorf("OK %v, %d of %d mismatched; want 2 of 3", r.OK, r.Mismatched, r.Elements)
	}
}

// Worst is unravelled in row-major order over the tensor's shape.
func TestWorstIndexUnravelled(t *testing.T) {
	shape := []int64{2, 3, 4}
	want := make([]float32, 24)
	got := make([]float32, 24)
	got[5] = 0.001  // [0 1 1]: a small error
	got[14] = 0.5   // [1 0 2]: the largest
	got[23] = 0.002 // [1 2 3]
	r := mustCompare(t, f32(shape, got...), f32(shape, want...), 1e-4, 1e-5)
	if !slices.Equal(r.Worst, []int64{1, 0, 2}) {
		t.Errorf("worst index %v, want [1 0 2]", r.Worst)
	}
	if r.WorstGot != 0.5 || r.WorstWant != 0 {
		t.Errorf("worst got %g want %g, want 0.5 and 0", r.WorstGot, r.WorstWant)
	}
	if r.Mismatched != 3 {
		t.Errorf("%d mismatched, want 3", r.Mismatched)
	}

	// The worst is relative to each element's tolerance: a smaller absolute
	// error on a small reference beats a larger one on a large reference.
	r = mustCompare(t, f32([]int64{2}, 100.5, 0.1), f32([]int64{2}, 100, 0), 1e-2, 1e-3)
	if !slices.Equal(r.Worst, []int64{1}) {
		t.Errorf("worst index %v, want [1] (0.1 against tolerance 1e-3 beats 0.5 against 1.001)", r.Worst)
	}
}

func TestRelativeToMax(t *testing.T) {
	got := f32([]int64{3}, 1.5, -4, 2)
	want := f32([]int64{3}, 1, -4, 2)
	rel, err := RelativeToMax(got, want)
	if err != nil {
		t.Fatal(err)
	}
	if rel != 0.125 { // max|a-b| 0.5 over max|b| 4
		t.Errorf("RelativeToMax %g, want 0.125", rel)
	}
	// An all-zero reference falls back to the absolute difference.
	rel, err = RelativeToMax(f32([]int64{2}, 0.5, -0.25), f32([]int64{2}, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if rel != 0.5 {
		t.Errorf("RelativeToMax against zeros %g, want 0.5", rel)
	}
}

func TestONNXBackendRule(t *testing.T) {
	want := canon.NewFloat32Tensor("w", []int64{3}, []float32{1, 100, float32(math.NaN())})
	ok := canon.NewFloat32Tensor("g", []int64{3}, []float32{1.000005, 100.09, float32(math.NaN())})
	if err := ONNXBackend(ok, want); err != nil {
		t.Errorf("within tolerance: %v", err)
	}
	bad := canon.NewFloat32Tensor("g", []int64{3}, []float32{1, 100.2, float32(math.NaN())})
	if ONNXBackend(bad, want) == nil {
		t.Error("100.2 vs 100 passed at rtol 1e-3")
	}
	i := canon.NewInt64Tensor("i", []int64{1}, []int64{3})
	if ONNXBackend(i, canon.NewInt64Tensor("j", []int64{1}, []int64{4})) == nil || ONNXBackend(i, want) == nil {
		t.Error("different integers or shapes passed")
	}
}

// TestTensorsIntegersExact: int64 and uint64 values beyond 2⁵³ that round
// to the same float64 still differ.
func TestTensorsIntegersExact(t *testing.T) {
	i64 := func(vals ...int64) *canon.Tensor {
		b := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		}
		return &canon.Tensor{Name: "t", DType: canon.Int64, Shape: []int64{int64(len(vals))}, Data: b}
	}
	big := int64(1) << 60
	r, err := Tensors(i64(big, -big, 5), i64(big+1, -big, 5), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || r.Mismatched != 1 || r.MaxAbs != 1 {
		t.Fatalf("got %+v, want one mismatch of 1", r)
	}
	u := i64(-1) // uint64 max by its bits
	u.DType = canon.Uint64
	u2 := i64(-2)
	u2.DType = canon.Uint64
	if r, _ := Tensors(u, u2, 0, 0); r.OK || r.MaxAbs != 1 {
		t.Fatalf("uint64: got %+v, want a mismatch of 1", r)
	}
	if r, _ := Tensors(u, i64(-1), 0, 0); r.OK || r.MaxAbs != math.Exp2(64) {
		t.Fatalf("uint64 max against int64 -1: got %+v, want a mismatch of 2⁶⁴", r)
	}
	if r, _ := Tensors(i64(-big, big), i64(-big, big), 0, 0); !r.OK {
		t.Fatalf("equal values: got %+v", r)
	}
}
