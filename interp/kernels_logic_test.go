package interp

import (
	"math"
	"slices"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// logicTensor encodes integer (or bool) values as a tensor of dtype dt.
func logicTensor(name string, dt canon.DType, shape []int64, v []int64) *canon.Tensor {
	sz := dt.Size()
	b := make([]byte, sz*len(v))
	for i, x := range v {
		for k := range sz {
			b[i*sz+k] = byte(uint64(x) >> (8 * k))
		}
	}
	return &canon.Tensor{Name: name, DType: dt, Shape: shape, Data: b}
}

// runLogicOp runs op over the given inputs (fed at run time, named a, b, c...)
// and returns the output's values as int64 (integers, bools) or float64.
func runLogicOp(t *testing.T, op canon.Op, ins ...*canon.Tensor) *canon.Tensor {
	t.Helper()
	g := &canon.Graph{Name: "logic"}
	feed := map[string]*canon.Tensor{}
	var names []string
	for i, in := range ins {
		name := string(rune('a' + i))
		c := *in
		c.Name = name
		feed[name] = &c
		names = append(names, name)
		g.Inputs = append(g.Inputs, canon.ValueInfo{Name: name, DType: in.DType, Shape: canon.DimsOf(in.Shape...), RankKnown: true})
	}
	g.Nodes = []*canon.Node{{Name: "n0", Op: op, Inputs: names, Outputs: []string{"y"}}}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	outs, err := Run(g, feed)
	if err != nil {
		t.Fatal(err)
	}
	return outs["y"]
}

func wantInts(t *testing.T, what string, got *canon.Tensor, dt canon.DType, want []int64) {
	t.Helper()
	if got.DType != dt {
		t.Fatalf("%s: dtype %s, want %s", what, got.DType, dt)
	}
	v, err := got.Int64s()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v, want) {
		t.Errorf("%s = %v, want %v", what, v, want)
	}
}

func TestLogicIntegerSemantics(t *testing.T) {
	i32 := func(v ...int64) *canon.Tensor { return logicTensor("", canon.Int32, []int64{int64(len(v))}, v) }
	// Mod: Python's sign of the divisor, or C's fmod.
	a, b := i32(7, -7, 7, -7, 0), i32(3, 3, -3, -3, 5)
	wantInts(t, "mod", runLogicOp(t, &canon.Mod{}, a, b), canon.Int32, []int64{1, 2, -2, -1, 0})
	wantInts(t, "fmod", runLogicOp(t, &canon.Mod{Fmod: true}, a, b), canon.Int32, []int64{1, -1, 1, -1, 0})
	u64 := func(v ...uint64) *canon.Tensor {
		s := make([]int64, len(v))
		for i, x := range v {
			s[i] = int64(x)
		}
		return logicTensor("", canon.Uint64, []int64{int64(len(v))}, s)
	}
	big := uint64(math.MaxUint64 - 1)
	wantInts(t, "u64 mod", runLogicOp(t, &canon.Mod{}, u64(big, 10), u64(10, 3)), canon.Uint64, []int64{int64(big % 10), 1})
	// Max/Min order u64 as unsigned and broadcast three inputs.
	wantInts(t, "u64 max", runLogicOp(t, &canon.Variadic{Fn: canon.VarMax}, u64(big, 1), u64(2)), canon.Uint64, []int64{int64(big), 2})
	wantInts(t, "i32 min", runLogicOp(t, &canon.Variadic{Fn: canon.VarMin}, i32(5, -5), i32(0), i32(1, -9)), canon.Int32, []int64{0, -9})
	// Sum wraps at the width.
	i8 := func(v ...int64) *canon.Tensor { return logicTensor("", canon.Int8, []int64{int64(len(v))}, v) }
	wantInts(t, "i8 sum", runLogicOp(t, &canon.Variadic{Fn: canon.VarSum}, i8(100, -100), i8(100, -100)), canon.Int8, []int64{-56, 56})
	// Bit ops wrap; shifts past the width give 0.
	u8 := func(v ...int64) *canon.Tensor { return logicTensor("", canon.Uint8, []int64{int64(len(v))}, v) }
	wantInts(t, "u8 not", runLogicOp(t, &canon.BitwiseNot{}, u8(0, 255, 15)), canon.Uint8, []int64{255, 0, 240})
	wantInts(t, "i8 not", runLogicOp(t, &canon.BitwiseNot{}, i8(0, -1, 127)), canon.Int8, []int64{-1, 0, -128})
	wantInts(t, "shl", runLogicOp(t, &canon.BitShift{Left: true}, u8(255, 1, 3), u8(1, 7, 8)), canon.Uint8, []int64{254, 128, 0})
	wantInts(t, "shr", runLogicOp(t, &canon.BitShift{}, u8(255, 128, 3), u8(1, 7, 9)), canon.Uint8, []int64{127, 1, 0})
	wantInts(t, "xor", runLogicOp(t, &canon.Bitwise{Fn: canon.BitXor}, i32(-1, 6), i32(5)), canon.Int32, []int64{-6, 3})
	// Pow: exact integer powers wrap at the base's width; a float exponent
	// truncates the double result.
	wantInts(t, "pow i32", runLogicOp(t, &canon.Pow{}, i32(3, -2, 2, -1, 5), logicTensor("", canon.Int64, []int64{5}, []int64{21, 3, -1, -3, 0})),
		canon.Int32, []int64{int64(int32(10460353203 & 0xffffffff)), -8, 0, -1, 1})
	wantInts(t, "pow i32^f32", runLogicOp(t, &canon.Pow{}, i32(2, 9), canon.NewFloat32Tensor("", []int64{2}, []float32{0.5, 0.5})), canon.Int32, []int64{1, 3})
	// Logic.
	bl := func(v ...int64) *canon.Tensor { return logicTensor("", canon.Bool, []int64{int64(len(v))}, v) }
	wantInts(t, "xor", runLogicOp(t, &canon.Logic{Fn: canon.LogicXor}, bl(0, 1, 0, 1), bl(0, 0, 1, 1)), canon.Bool, []int64{0, 1, 1, 0})
	wantInts(t, "not", runLogicOp(t, &canon.Not{}, bl(0, 1)), canon.Bool, []int64{1, 0})
}

func TestLogicFloatSemantics(t *testing.T) {
	nan := float32(math.NaN())
	f := func(v ...float32) *canon.Tensor { return canon.NewFloat32Tensor("", []int64{int64(len(v))}, v) }
	get := func(ct *canon.Tensor) []float64 {
		v, err := ct.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// NaN propagates through Max and Min from either side, as in ONNX Runtime.
	for _, fn := range []canon.VariadicFn{canon.VarMax, canon.VarMin} {
		v := get(runLogicOp(t, &canon.Variadic{Fn: fn}, f(nan, 1, 2), f(0, nan, 3)))
		if !math.IsNaN(v[0]) || !math.IsNaN(v[1]) || v[2] != map[canon.VariadicFn]float64{canon.VarMax: 3, canon.VarMin: 2}[fn] {
			t.Errorf("%s = %v", fn, v)
		}
	}
	if v := get(runLogicOp(t, &canon.Variadic{Fn: canon.VarMean}, f(1, 2), f(3), f(5, 7))); !slices.Equal(v, []float64{3, 4}) {
		t.Errorf("mean = %v", v)
	}
	// Python-style and C-style float remainders.
	a, b := f(5.5, -5.5, 5.5, -5.5), f(2, 2, -2, -2)
	if v := get(runLogicOp(t, &canon.Mod{}, a, b)); !slices.Equal(v, []float64{1.5, 0.5, -0.5, -1.5}) {
		t.Errorf("float mod = %v", v)
	}
	if v := get(runLogicOp(t, &canon.Mod{Fmod: true}, a, b)); !slices.Equal(v, []float64{1.5, -1.5, 1.5, -1.5}) {
		t.Errorf("fmod = %v", v)
	}
	// A float base with an integer exponent of another dtype.
	e := logicTensor("", canon.Int32, []int64{3}, []int64{2, 3, -1})
	if v := get(runLogicOp(t, &canon.Pow{}, f(-3, 2, 4), e)); !slices.Equal(v, []float64{9, 8, 0.25}) {
		t.Errorf("pow = %v", v)
	}
}

// compareF32's float32 loops give CompareFn.Holds's answers on the
// float64 values, NaN, ±0 and ±Inf included, against a tensor or a scalar.
func TestCompareF32MatchesHolds(t *testing.T) {
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-45, 3.4e38}
	var a, b []float32
	for _, x := range special {
		for _, y := range special {
			a, b = append(a, x), append(b, y)
		}
	}
	for _, fn := range []canon.CompareFn{canon.CmpEqual, canon.CmpLess, canon.CmpLessOrEqual, canon.CmpGreater, canon.CmpGreaterOrEqual} {
		for _, scalar := range []bool{false, true} {
			bb := b
			if scalar {
				bb = b[len(b)-2 : len(b)-1] // 1e-45
			}
			out := make([]int64, len(a))
			compareF32(fn, out, a, bb)
			for i := range a {
				q := bb[0]
				if !scalar {
					q = bb[i]
				}
				if want := b2i(fn.Holds(float64(a[i]), float64(q))); out[i] != want {
					t.Fatalf("%v(%v, %v) = %d, want %d", fn, a[i], q, out[i], want)
				}
			}
		}
	}
}
