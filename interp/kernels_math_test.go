package interp

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// runMathGraph runs op on x and returns the output as int64s (integer and
// bool outputs) or float64s.
func runMathGraph(t *testing.T, op canon.Op, x *canon.Tensor, out canon.DType) *canon.Tensor {
	t.Helper()
	x.Name = "x"
	g := graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil)
	g.Outputs[0].DType = out
	res, err := Run(g, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatalf("%s: %v", op.Kind(), err)
	}
	return res["y"]
}

func mathIntTensor(dt canon.DType, v ...int64) *canon.Tensor {
	sz := dt.Size()
	b := make([]byte, sz*len(v))
	for i, x := range v {
		switch sz {
		case 1:
			b[i] = byte(x)
		case 2:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
		case 4:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		case 8:
			binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
		}
	}
	return &canon.Tensor{DType: dt, Shape: []int64{int64(len(v))}, Data: b}
}

// Abs, Neg and Sign on integers are exact and wrap at the dtype's width;
// unsigned values above the signed range stay unsigned.
func TestMathIntegers(t *testing.T) {
	cases := []struct {
		fn   canon.MathFn
		dt   canon.DType
		in   []int64
		want []int64
	}{
		{canon.MathAbs, canon.Int8, []int64{-128, -127, 0, 5, -3}, []int64{-128, 127, 0, 5, 3}},
		{canon.MathAbs, canon.Int64, []int64{math.MinInt64, -1, 7}, []int64{math.MinInt64, 1, 7}},
		{canon.MathAbs, canon.Uint8, []int64{200, 0, 255}, []int64{200, 0, 255}},
		{canon.MathAbs, canon.Uint64, []int64{-1, 3}, []int64{-1, 3}}, // 2^64-1 stays
		{canon.MathNeg, canon.Int32, []int64{math.MinInt32, 5, -7, 0}, []int64{math.MinInt32, -5, 7, 0}},
		{canon.MathNeg, canon.Int16, []int64{math.MinInt16, 1}, []int64{math.MinInt16, -1}},
		{canon.MathSign, canon.Int8, []int64{-128, 0, 127, -1}, []int64{-1, 0, 1, -1}},
		{canon.MathSign, canon.Uint64, []int64{-1, 0, 9}, []int64{1, 0, 1}},
		{canon.MathSign, canon.Uint8, []int64{200, 0}, []int64{1, 0}},
	}
	for _, c := range cases {
		out := runMathGraph(t, &canon.Math{Fn: c.fn}, mathIntTensor(c.dt, c.in...), c.dt)
		if out.DType != c.dt {
			t.Errorf("%s %s: output dtype %s", c.fn, c.dt, out.DType)
		}
		got, err := out.Int64s()
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("%s on %s %v: %v, want %v", c.fn, c.dt, c.in, got, c.want)
				break
			}
		}
	}
}

func TestMathFloats(t *testing.T) {
	nan := float32(math.NaN())
	cases := []struct {
		fn   canon.MathFn
		in   []float32
		want []float32
	}{
		// Halves to even; 0.49999997 does not round up.
		{canon.MathRound, []float32{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 2.6, -2.4}, []float32{0, 2, 2, 0, -2, -2, 0, 3, -2}},
		{canon.MathFloor, []float32{-1.5, 1.5, 2}, []float32{-2, 1, 2}},
		{canon.MathCeil, []float32{-1.5, 1.5, 2}, []float32{-1, 2, 2}},
		{canon.MathSign, []float32{-3, 0, 2, nan}, []float32{-1, 0, 1, nan}},
		{canon.MathReciprocal, []float32{4, -0.5, 0}, []float32{0.25, -2, float32(math.Inf(1))}},
		{canon.MathErf, []float32{0, 1, -3}, []float32{0, float32(math.Erf(1)), float32(math.Erf(-3))}},
		{canon.MathAcosh, []float32{1, 2}, []float32{0, float32(math.Acosh(2))}},
		{canon.MathLog, []float32{1, 0, -1}, []float32{0, float32(math.Inf(-1)), nan}},
	}
	for _, c := range cases {
		out := runMathGraph(t, &canon.Math{Fn: c.fn}, canon.NewFloat32Tensor("", []int64{int64(len(c.in))}, c.in), canon.Float32)
		got := floats(t, out)
		for i, w := range c.want {
			if !(got[i] == w || w != w && got[i] != got[i]) {
				t.Errorf("%s %v: %v, want %v", c.fn, c.in, got, c.want)
				break
			}
		}
	}
}

func TestFloatTests(t *testing.T) {
	inf := float32(math.Inf(1))
	x := canon.NewFloat32Tensor("", []int64{5}, []float32{inf, -inf, float32(math.NaN()), 0, 3e38})
	check := func(op canon.Op, want ...int64) {
		t.Helper()
		out := runMathGraph(t, op, x, canon.Bool)
		got, _ := out.Int64s()
		if out.DType != canon.Bool {
			t.Errorf("%s: dtype %s, want bool", op.Kind(), out.DType)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%+v: %v, want %v", op, got, want)
				break
			}
		}
	}
	check(&canon.IsNaN{}, 0, 0, 1, 0, 0)
	check(&canon.IsInf{DetectPositive: true, DetectNegative: true}, 1, 1, 0, 0, 0)
	check(&canon.IsInf{DetectPositive: true}, 1, 0, 0, 0, 0)
	check(&canon.IsInf{DetectNegative: true}, 0, 1, 0, 0, 0)
	check(&canon.IsInf{}, 0, 0, 0, 0, 0)
}

// Validation refuses what ONNX does not define: Exp of integers, Neg of
// unsigned integers, IsNaN of integers.
func TestMathRefusesDTypes(t *testing.T) {
	for _, c := range []struct {
		op   canon.Op
		dt   canon.DType
		want string
	}{
		{&canon.Math{Fn: canon.MathExp}, canon.Int32, "floating-point tensors only"},
		{&canon.Math{Fn: canon.MathNeg}, canon.Uint8, "signed integer"},
		{&canon.IsNaN{}, canon.Int64, "floating-point tensors only"},
		{&canon.Math{Fn: canon.MathAbs}, canon.Bool, "numeric"},
	} {
		x := mathIntTensor(c.dt, 1, 0)
		x.Name = "x"
		g := graphOf(c.op, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil)
		err := g.Infer()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "n0") {
			t.Errorf("%s on %s: %v, want an error naming the node and %q", c.op.Kind(), c.dt, err, c.want)
		}
	}
}
