package interp

import (
	"fmt"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func quantInts(name string, dt canon.DType, shape []int64, v ...int64) *canon.Tensor {
	t := &canon.Tensor{Name: name, DType: dt, Shape: shape, Data: make([]byte, len(v)*dt.Size())}
	for i, x := range v {
		for k := 0; k < dt.Size(); k++ {
			t.Data[i*dt.Size()+k] = byte(uint64(x) >> (8 * k))
		}
	}
	return t
}

func ints64(t *canon.Tensor) string {
	v, err := t.Int64s()
	if err != nil {
		return err.Error()
	}
	return fmt.Sprint(v)
}

// Rounding is half to even and results saturate, as ONNX specifies.
func TestQuantizeRoundsHalfToEvenAndSaturates(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{8}, []float32{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 300, -300})
	one := canon.NewFloat32Tensor("s", []int64{}, []float32{1})
	for _, tc := range []struct {
		zp   *canon.Tensor
		dt   canon.DType
		want string
	}{
		{quantInts("z", canon.Int8, []int64{}, 0), canon.Int8, "[0 2 2 0 -2 -2 127 -128]"},
		{quantInts("z", canon.Uint8, []int64{}, 128), canon.Uint8, "[128 130 130 128 126 126 255 0]"},
		{quantInts("z", canon.Int16, []int64{}, -1), canon.Int16, "[-1 1 1 -1 -3 -3 299 -301]"},
	} {
		y, err := runOne(t, &canon.QuantizeLinear{Axis: 1, Saturate: true}, []string{"x", "s", "z"},
			map[string]*canon.Tensor{"x": x, "s": one, "z": tc.zp}, tc.dt)
		if err != nil {
			t.Fatal(err)
		}
		if got := ints64(y); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.dt, got, tc.want)
		}
	}
}

// Blocked scales cover block_size elements along the axis, the last block
// shorter.
func TestDequantizeBlocked(t *testing.T) {
	x := quantInts("x", canon.Int8, []int64{2, 5}, 1, 2, 3, 4, 5, -1, -2, -3, -4, -5)
	s := canon.NewFloat32Tensor("s", []int64{2, 3}, []float32{1, 10, 100, 2, 20, 200})
	z := quantInts("z", canon.Int8, []int64{2, 3}, 0, 1, 2, 0, -1, -2)
	y, err := runOne(t, &canon.DequantizeLinear{Axis: 1, BlockSize: 2}, []string{"x", "s", "z"},
		map[string]*canon.Tensor{"x": x, "s": s, "z": z}, canon.Float32)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := y.Float64s()
	if want := "[1 2 20 30 300 -2 -4 -40 -60 -600]"; fmt.Sprint(got) != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// MatMulInteger accumulates exactly and wraps to int32; zero points are
// per row of A and per column of B.
func TestMatMulIntegerZeroPoints(t *testing.T) {
	a := quantInts("a", canon.Uint8, []int64{2, 2}, 255, 0, 10, 20)
	b := quantInts("b", canon.Int8, []int64{2, 2}, -128, 127, 1, 2)
	az := quantInts("az", canon.Uint8, []int64{2}, 0, 10)
	bz := quantInts("bz", canon.Int8, []int64{2}, 0, 1)
	y, err := runOne(t, &canon.MatMulInteger{}, []string{"a", "b", "az", "bz"},
		map[string]*canon.Tensor{"a": a, "b": b, "az": az, "bz": bz}, canon.Int32)
	if err != nil {
		t.Fatal(err)
	}
	// Row 0: 255·(-128) + 0·1 = -32640, 255·126 + 0·1 = 32130.
	// Row 1: 0·(-128) + 10·1 = 10, 0·126 + 10·1 = 10.
	if got, want := ints64(y), "[-32640 32130 10 10]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
