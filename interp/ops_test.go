package interp

import (
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// naivePool is the definition of 2-D max/average pooling with explicit
// pads, ceil mode and count_include_pad.
func naivePool(x []float32, xs []int, k, s, d, pb, pe []int, ceil, isMax, includePad bool) ([]float32, []int) {
	ys := []int{xs[0], xs[1]}
	for i := 0; i < 2; i++ {
		span := float64(xs[2+i]+pb[i]+pe[i]-(k[i]-1)*d[i]-1) / float64(s[i])
		o := int(math.Floor(span)) + 1
		if ceil {
			o = int(math.Ceil(span)) + 1
			if (o-1)*s[i] >= xs[2+i]+pb[i] {
				o--
			}
		}
		ys = append(ys, o)
	}
	y := make([]float32, numel(ys))
	forEachIndex(ys, func(o []int) {
		m := float32(math.Inf(-1))
		var sum float32
		n, cnt := 0, 0
		for ky := 0; ky < k[0]; ky++ {
			for kx := 0; kx < k[1]; kx++ {
				iy := o[2]*s[0] - pb[0] + ky*d[0]
				ix := o[3]*s[1] - pb[1] + kx*d[1]
				if iy < xs[2]+pe[0] && ix < xs[3]+pe[1] {
					cnt++
				}
				if iy < 0 || ix < 0 || iy >= xs[2] || ix >= xs[3] {
					continue
				}
				v := x[flat(xs, []int{o[0], o[1], iy, ix})]
				m = max(m, v)
				sum += v
				n++
			}
		}
		switch {
		case isMax:
			y[flat(ys, o)] = m
		case includePad:
			y[flat(ys, o)] = sum / float32(cnt)
		default:
			y[flat(ys, o)] = sum / float32(n)
		}
	})
	return y, ys
}

func TestPoolingMatchesNaive(t *testing.T) {
	type pc struct {
		xs, k, s, d, pb, pe     []int
		ceil, isMax, includePad bool
	}
	cases := []pc{
		{xs: []int{1, 2, 7, 7}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, pb: []int{0, 0}, pe: []int{0, 0}, ceil: true, isMax: true},
		{xs: []int{1, 2, 6, 6}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, ceil: true},
		{xs: []int{1, 2, 6, 6}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, ceil: true, includePad: true},
		{xs: []int{2, 3, 8, 9}, k: []int{2, 3}, s: []int{3, 2}, d: []int{2, 1}, pb: []int{1, 0}, pe: []int{0, 2}, ceil: true, includePad: true},
		{xs: []int{2, 3, 8, 9}, k: []int{2, 3}, s: []int{3, 2}, d: []int{2, 1}, pb: []int{1, 0}, pe: []int{0, 2}, ceil: false, isMax: true},
		{xs: []int{1, 1, 5, 5}, k: []int{2, 2}, s: []int{2, 2}, d: []int{1, 1}, pb: []int{0, 0}, pe: []int{0, 0}, ceil: true},
	}
	r := rand.New(rand.NewSource(4))
	for _, c := range cases {
		x := randTensor(r, "x", c.xs...)
		var op canon.Op
		if c.isMax {
			op = &canon.MaxPool{Kernel: i64s(c.k), Strides: i64s(c.s), Dilations: i64s(c.d), PadsBegin: i64s(c.pb), PadsEnd: i64s(c.pe), CeilMode: c.ceil}
		} else {
			op = &canon.AveragePool{Kernel: i64s(c.k), Strides: i64s(c.s), Dilations: i64s(c.d), PadsBegin: i64s(c.pb), PadsEnd: i64s(c.pe), CeilMode: c.ceil, CountIncludePad: c.includePad}
		}
		g := graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil)
		out, err := Run(g, map[string]*canon.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		want, ys := naivePool(floats(t, x), c.xs, c.k, c.s, c.d, c.pb, c.pe, c.ceil, c.isMax, c.includePad)
		if got := ints(out["y"].Shape); !slices.Equal(got, ys) {
			t.Fatalf("%+v: shape %v, want %v", c, got, ys)
		}
		assertClose(t, "pool", floats(t, out["y"]), want, 1e-5)
	}
}

// TestCeilModeDropsWindow checks the rule that a ceil-mode window starting
// past the input and its left padding is dropped: 5 wide, kernel 2, stride
// 2, pad 0+1 gives 3 windows, not 4.
func TestCeilModeDropsWindow(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{1, 1, 1, 5}, []float32{1, 2, 3, 4, 5})
	op := &canon.AveragePool{Kernel: []int64{1, 2}, Strides: []int64{1, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 1}, CeilMode: true}
	out, err := Run(graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil), map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "avgpool", floats(t, out["y"]), []float32{1.5, 3.5, 5}, 0)
}

func TestBroadcastBinary(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	shapes := [][2][]int{
		{{2, 3, 4}, {3, 1}},
		{{1, 3, 1, 5}, {2, 1, 4, 1}},
		{{4}, {2, 3, 4}},
		{{2, 1}, {}},
		{{}, {3, 2}},
		{{2, 3, 4, 5}, {1, 3, 1, 1}},
		// One long row each, split between cores (operands of one
		// shape, and a scalar).
		{{1, 197, 768}, {1, 197, 768}},
		{{12, 197, 64}, {}},
		{{}, {1, 197, 768}},
	}
	for _, sh := range shapes {
		for _, fn := range []canon.BinaryFn{canon.Add, canon.Sub, canon.Mul, canon.Div} {
			a, b := randTensor(r, "a", sh[0]...), randTensor(r, "b", sh[1]...)
			g := graphOf(&canon.Binary{Fn: fn}, map[string]*canon.Tensor{"a": a, "b": b}, []string{"a", "b"}, nil)
			out, err := Run(g, map[string]*canon.Tensor{"a": a, "b": b})
			if err != nil {
				t.Fatal(err)
			}
			os, _ := broadcastShape(sh[0], sh[1])
			av, bv := floats(t, a), floats(t, b)
			want := make([]float32, numel(os))
			at := func(v []float32, s []int, o []int) float32 {
				idx := make([]int, len(s))
				for k := range s {
					if s[k] != 1 {
						idx[k] = o[len(o)-len(s)+k]
					}
				}
				return v[flat(s, idx)]
			}
			forEachIndex(os, func(o []int) {
				x, y := at(av, sh[0], o), at(bv, sh[1], o)
				var z float32
				switch fn {
				case canon.Add:
					z = x + y
				case canon.Sub:
					z = x - y
				case canon.Mul:
					z = x * y
				case canon.Div:
					z = x / y
				}
				want[flat(os, o)] = z
			})
			assertClose(t, fn.String(), floats(t, out["y"]), want, 1e-6)
		}
	}
}

func TestIntegerArithmetic(t *testing.T) {
	u8 := func(name string, v ...byte) *canon.Tensor {
		return &canon.Tensor{Name: name, DType: canon.Uint8, Shape: []int64{int64(len(v))}, Data: v}
	}
	a, b := u8("a", 3, 250, 7, 200), u8("b", 5, 10, 2, 3)
	want := map[canon.BinaryFn][]int64{
		canon.Add: {8, 4, 9, 203}, // wraps at 256
		canon.Sub: {254, 240, 5, 197},
		canon.Mul: {15, 196, 14, 88},
		canon.Div: {0, 25, 3, 66},
	}
	for fn, w := range want {
		g := graphOf(&canon.Binary{Fn: fn}, map[string]*canon.Tensor{"a": a, "b": b}, []string{"a", "b"}, nil)
		g.Outputs[0].DType = canon.Uint8
		out, err := Run(g, map[string]*canon.Tensor{"a": a, "b": b})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := out["y"].Int64s()
		for i := range w {
			if got[i] != w[i] {
				t.Fatalf("%s: %v, want %v", fn, got, w)
			}
		}
	}
	// Integer Div truncates toward zero, and division by zero is an error.
	i64 := func(name string, v ...int64) *canon.Tensor { return canon.NewInt64Tensor(name, nil, v) }
	g := graphOf(&canon.Binary{Fn: canon.Div}, map[string]*canon.Tensor{"a": i64("a", -7, 7), "b": i64("b", 2, -2)}, []string{"a", "b"}, nil)
	g.Outputs[0].DType = canon.Int64
	out, err := Run(g, map[string]*canon.Tensor{"a": i64("a", -7, 7), "b": i64("b", 2, -2)})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := out["y"].Int64s(); got[0] != -3 || got[1] != -3 {
		t.Fatalf("int div: %v, want [-3 -3]", got)
	}
	_, err = Run(g, map[string]*canon.Tensor{"a": i64("a", 1, 2), "b": i64("b", 1, 0)})
	if err == nil || !strings.Contains(err.Error(), "division by zero") || !strings.Contains(err.Error(), `"n0"`) {
		t.Fatalf("error %v, want a division by zero naming the node", err)
	}
}

func TestPReluBroadcastsSlope(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{1, 2, 2}, []float32{-1, 2, -3, 4})
	slope := canon.NewFloat32Tensor("s", []int64{2, 1}, []float32{0.5, 0.25})
	g := graphOf(&canon.PRelu{}, map[string]*canon.Tensor{"x": x}, []string{"x", "s"}, []*canon.Tensor{slope})
	out, err := Run(g, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "prelu", floats(t, out["y"]), []float32{-0.5, 2, -0.75, 4}, 0)
}

func TestInputChecks(t *testing.T) {
	x := canon.NewFloat32Tensor("data", []int64{1, 3, 32, 32}, make([]float32, 3*32*32))
	g := graphOf(&canon.Unary{Fn: canon.Relu}, map[string]*canon.Tensor{"data": x}, []string{"data"}, nil)
	g.Inputs[0].Shape = canon.DimsOf(1, 3, 224, 224)
	_, err := Run(g, map[string]*canon.Tensor{"data": x})
	if err == nil || err.Error() != `input "data": shape [1 3 224 224] expected, got [1 3 32 32]` {
		t.Fatalf("error %v", err)
	}
	g.Inputs[0].Shape = []canon.Dim{{Size: -1, Param: "N"}, {Size: 3}, {Size: -1}, {Size: -1}}
	if _, err := Run(g, map[string]*canon.Tensor{"data": x}); err != nil {
		t.Fatalf("symbolic dims should accept any size: %v", err)
	}
	if _, err := Run(g, map[string]*canon.Tensor{}); err == nil || !strings.Contains(err.Error(), `input "data": missing`) {
		t.Fatalf("missing input: %v", err)
	}
	bad := canon.NewInt64Tensor("data", []int64{1, 3, 32, 32}, make([]int64, 3*32*32))
	if _, err := Run(g, map[string]*canon.Tensor{"data": bad}); err == nil || !strings.Contains(err.Error(), "dtype f32 expected, got i64") {
		t.Fatalf("wrong dtype: %v", err)
	}
}

// TestBufferReuse runs a chain twice and checks results do not depend on
// recycled buffers.
func TestBufferReuse(t *testing.T) {
	b := newNetBuilder("x", 2, 4, 9, 9)
	y := b.relu(b.bn(b.conv("x", 4, 8, 3, 1, 1, 1, true), 8))
	z := b.conv(y, 8, 8, 3, 2, 1, 2, false)
	s := b.node(&canon.Binary{Fn: canon.Add}, b.node(&canon.Unary{Fn: canon.Sigmoid}, z), z)
	p, err := New(b.finish(t, s, y))
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(1)), "x", 2, 4, 9, 9)}
	first, err := p.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, err := p.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		for name := range first {
			assertClose(t, name, floats(t, again[name]), floats(t, first[name]), 0)
		}
	}
}
