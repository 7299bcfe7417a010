package interp

import (
	"math/rand"
	"testing"
	"unsafe"

	"github.com/modelbridge/modelbridge/canon"
)

// misaligned returns a copy of t whose data starts off bytes past a 4-byte
// boundary (data stored at an arbitrary offset of a file, as in ONNX).
func misaligned(t *canon.Tensor, off int) *canon.Tensor {
	c := *t
	buf := make([]byte, len(t.Data)+8)
	start := off
	if a := int(uintptr(unsafe.Pointer(&buf[0])) % 4); a != 0 {
		start += 4 - a
	}
	c.Data = buf[start : start+len(t.Data)]
	copy(c.Data, t.Data)
	return &c
}

// A misaligned float32 or float64 constant is read in place where the CPU
// loads misaligned floats (amd64, arm64) and copied elsewhere; either way
// its values are exact. An input is always copied: the caller owns it.
func TestMisalignedConstantsViewed(t *testing.T) {
	want := []float32{1.5, -2, 3.25, 1e-30, 7, -0.125}
	f32 := canon.NewFloat32Tensor("w", []int64{2, 3}, want)
	f64 := &canon.Tensor{Name: "d", DType: canon.Float64, Shape: []int64{3}, Data: make([]byte, 24)}
	want64 := []float64{1.5, -1e300, 3}
	for i, v := range want64 {
		putFloat64(f64.Data, i, canon.Float64, v)
	}
	for off := 1; off < 4; off++ {
		ct := misaligned(f32, off)
		if uintptr(unsafe.Pointer(&ct.Data[0]))%4 == 0 {
			t.Fatal("the test data is aligned")
		}
		v, err := fromCanon(ct, true)
		if err != nil {
			t.Fatal(err)
		}
		if viewed := unsafe.Pointer(unsafe.SliceData(v.f)) == unsafe.Pointer(&ct.Data[0]); viewed != unalignedFloatLoads {
			t.Errorf("offset %d: viewed in place = %v, want %v", off, viewed, unalignedFloatLoads)
		}
		for i := range want {
			if v.f[i] != want[i] {
				t.Errorf("offset %d: element %d is %g, want %g", off, i, v.f[i], want[i])
			}
		}
		in, err := fromCanon(ct, false)
		if err != nil {
			t.Fatal(err)
		}
		if unsafe.Pointer(unsafe.SliceData(in.f)) == unsafe.Pointer(&ct.Data[0]) {
			t.Errorf("offset %d: an input was viewed, not copied", off)
		}
		d := misaligned(f64, off)
		dv, err := fromCanon(d, true)
		if err != nil {
			t.Fatal(err)
		}
		if viewed := unsafe.Pointer(unsafe.SliceData(dv.d)) == unsafe.Pointer(&d.Data[0]); viewed != unalignedFloatLoads {
			t.Errorf("offset %d: float64 viewed in place = %v, want %v", off, viewed, unalignedFloatLoads)
		}
		for i, w := range want64 {
			if dv.d[i] != w {
				t.Errorf("offset %d: float64 element %d is %g, want %g", off, i, dv.d[i], w)
			}
		}
	}
}

// viewNet is a small network with every kind of weight use the fast paths
// have: a Winograd 3×3 convolution, a packed 1×1 convolution with a folded
// BatchNorm and Relu, pooling, and Linear layers with one row (dot
// products) and with a batch (GEMM).
func viewNet(tb testing.TB, batch int64) *canon.Graph {
	b := newNetBuilder("x", batch, 128, 8, 8)
	x := b.relu(b.conv("x", 128, 128, 3, 1, 1, 1, true))
	x = b.relu(b.bn(b.conv(x, 128, 32, 1, 1, 0, 1, false), 32))
	x = b.node(&canon.MaxPool{Kernel: []int64{2, 2}, Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}, x)
	x = b.node(&canon.Flatten{Axis: 1}, x)
	x = b.relu(b.node(&canon.Linear{Alpha: 1, Beta: 1}, x, b.weight(0.05, 64, 32*16), b.weight(0.1, 64)))
	x = b.node(&canon.Linear{Alpha: 0.5, Beta: 1}, x, b.weight(0.1, 10, 64), b.weight(0.1, 10))
	return b.finish(tb, x)
}

// withInitializers returns a copy of g whose initializers are f(each).
func withInitializers(g *canon.Graph, f func(*canon.Tensor) *canon.Tensor) *canon.Graph {
	c := *g
	c.Initializers = make([]*canon.Tensor, len(g.Initializers))
	for i, t := range g.Initializers {
		c.Initializers[i] = f(t)
	}
	return &c
}

// The interpreter computes bit-identical results from weights stored
// aligned and misaligned, for one image and for a batch.
func TestMisalignedWeightsSameResults(t *testing.T) {
	for _, batch := range []int64{1, 6} {
		g := viewNet(t, batch)
		in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(3)), "x", int(batch), 128, 8, 8)}
		aligned := withInitializers(g, func(w *canon.Tensor) *canon.Tensor { return misaligned(w, 0) })
		want, err := Run(aligned, in)
		if err != nil {
			t.Fatal(err)
		}
		for off := 1; off < 4; off++ {
			got, err := Run(withInitializers(g, func(w *canon.Tensor) *canon.Tensor { return misaligned(w, off) }), in)
			if err != nil {
				t.Fatal(err)
			}
			for name, w := range want {
				if string(got[name].Data) != string(w.Data) {
					t.Errorf("batch %d, weights %d bytes off alignment: output %s differs from the aligned weights'", batch, off, name)
				}
			}
		}
	}
}

// A constant first operand of Linear stored misaligned gives the aligned
// result too (the dot kernel aligns that operand itself).
func TestMisalignedLinearInput(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	a, w := randTensor(r, "a", 2, 70), randTensor(r, "w", 9, 70)
	op := &canon.Linear{Alpha: 1}
	in := map[string]*canon.Tensor{"w": w}
	want, err := Run(graphOf(op, in, []string{"a", "w"}, []*canon.Tensor{misaligned(a, 0)}), in)
	if err != nil {
		t.Fatal(err)
	}
	for off := 1; off < 4; off++ {
		got, err := Run(graphOf(op, in, []string{"a", "w"}, []*canon.Tensor{misaligned(a, off)}), in)
		if err != nil {
			t.Fatal(err)
		}
		if string(got["y"].Data) != string(want["y"].Data) {
			t.Errorf("A %d bytes off alignment: the result differs from the aligned A's", off)
		}
	}
}
