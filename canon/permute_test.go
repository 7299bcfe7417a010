package canon

import (
	"encoding/binary"
	"math"
	"testing"
)

// f32At reads element i of a float32 tensor.
func f32At(t *Tensor, i int64) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
}

func TestPermuteTensorOIHWToHWIO(t *testing.T) {
	const O, I, H, W = 3, 2, 4, 5
	vals := make([]float32, O*I*H*W)
	for i := range vals {
		vals[i] = float32(i)
	}
	w := NewFloat32Tensor("w", []int64{O, I, H, W}, vals)
	w.Layout = "OIHW"
	p, err := PermuteTensor(w, "HWIO")
	if err != nil {
		t.Fatal(err)
	}
	if p.Layout != "HWIO" || p.Shape[0] != H || p.Shape[1] != W || p.Shape[2] != I || p.Shape[3] != O {
		t.Fatalf("got %s %v", p.Layout, p.Shape)
	}
	// Element (o,i,h,w) of the input is element (h,w,i,o) of the output.
	for o := int64(0); o < O; o++ {
		for i := int64(0); i < I; i++ {
			for h := int64(0); h < H; h++ {
				for x := int64(0); x < W; x++ {
					want := f32At(w, ((o*I+i)*H+h)*W+x)
					got := f32At(p, ((h*W+x)*I+i)*O+o)
					if got != want {
						t.Fatalf("(%d,%d,%d,%d): got %v want %v", o, i, h, x, got, want)
					}
				}
			}
		}
	}
	// Permuting back restores the original bytes exactly.
	back, err := PermuteTensor(p, "OIHW")
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Data) != string(w.Data) {
		t.Fatal("OIHW -> HWIO -> OIHW changed the data")
	}
	if &w.Data[0] == &p.Data[0] {
		t.Fatal("PermuteTensor must not alias the input data")
	}
}

func TestPermuteTensorOtherDTypesAndIdentity(t *testing.T) {
	// int8 IOHW (2,3,1,2) -> OIHW: a transpose of the first two axes.
	w := &Tensor{Name: "d", DType: Int8, Shape: []int64{2, 3, 1, 2}, Layout: "IOHW", Data: []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}
	p, err := PermuteTensor(w, "OIHW")
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}
	if string(p.Data) != string(want) {
		t.Fatalf("got %v want %v", p.Data, want)
	}
	same, err := PermuteTensor(w, "IOHW")
	if err != nil || string(same.Data) != string(w.Data) {
		t.Fatalf("identity permutation: %v", err)
	}
}

func TestPermuteTensorErrors(t *testing.T) {
	w := NewFloat32Tensor("w", []int64{2, 2, 1, 1}, []float32{1, 2, 3, 4})
	if _, err := PermuteTensor(w, "HWIO"); err == nil {
		t.Fatal("a tensor without layout was permuted")
	}
	w.Layout = "OIHW"
	for _, to := range []Layout{"HWI", "HWIX", "HHIO"} {
		if _, err := PermuteTensor(w, to); err == nil {
			t.Fatalf("OIHW -> %s accepted", to)
		}
	}
	short := &Tensor{Name: "s", DType: Float32, Shape: []int64{2, 2, 1, 1}, Layout: "OIHW", Data: make([]byte, 8)}
	if _, err := PermuteTensor(short, "HWIO"); err == nil {
		t.Fatal("truncated data accepted")
	}
	if _, err := PermuteTensor(&Tensor{Name: "r", DType: Float32, Shape: []int64{2, 2}, Layout: "OIHW"}, "HWIO"); err == nil {
		t.Fatal("layout/rank mismatch accepted")
	}
}
