package interp

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// naiveConv is the definition of an N-D grouped convolution, one output
// element at a time.
func naiveConv(x []float32, xs []int, w []float32, ws []int, b []float32, st, dl, pb, pe []int, group int) ([]float32, []int) {
	sp := len(xs) - 2
	cout, cing := ws[0], ws[1]
	coutg := cout / group
	ys := []int{xs[0], cout}
	for d := 0; d < sp; d++ {
		ys = append(ys, (xs[2+d]+pb[d]+pe[d]-(ws[2+d]-1)*dl[d]-1)/st[d]+1)
	}
	y := make([]float32, numel(ys))
	ksh := ws[2:]
	forEachIndex(ys, func(o []int) {
		n, co := o[0], o[1]
		g := co / coutg
		var s float32
		if b != nil {
			s = b[co]
		}
		for ci := 0; ci < cing; ci++ {
			forEachIndex(ksh, func(k []int) {
				xi := []int{n, g*cing + ci}
				for d := 0; d < sp; d++ {
					i := o[2+d]*st[d] - pb[d] + k[d]*dl[d]
					if i < 0 || i >= xs[2+d] {
						return
					}
					xi = append(xi, i)
				}
				s += x[flat(xs, xi)] * w[flat(ws, append([]int{co, ci}, k...))]
			})
		}
		y[flat(ys, o)] = s
	})
	return y, ys
}

// naiveConvTranspose scatters every input element through the kernel into
// the full output and crops the pads.
func naiveConvTranspose(x []float32, xs []int, w []float32, ws []int, b []float32, st, dl, pb, pe, op []int, group int) ([]float32, []int) {
	sp := len(xs) - 2
	cin, coutg := ws[0], ws[1]
	cing := cin / group
	ys := []int{xs[0], coutg * group}
	for d := 0; d < sp; d++ {
		ys = append(ys, (xs[2+d]-1)*st[d]+(ws[2+d]-1)*dl[d]+1+op[d]-pb[d]-pe[d])
	}
	y := make([]float32, numel(ys))
	forEachIndex(ys, func(o []int) {
		if b != nil {
			y[flat(ys, o)] = b[o[1]]
		}
	})
	forEachIndex(xs, func(i []int) {
		n, ci := i[0], i[1]
		g := ci / cing
		for c := 0; c < coutg; c++ {
			forEachIndex(ws[2:], func(k []int) {
				oi := []int{n, g*coutg + c}
				for d := 0; d < sp; d++ {
					o := i[2+d]*st[d] + k[d]*dl[d] - pb[d]
					if o < 0 || o >= ys[2+d] {
						return
					}
					oi = append(oi, o)
				}
				y[flat(ys, oi)] += x[flat(xs, i)] * w[flat(ws, append([]int{ci, c}, k...))]
			})
		}
	})
	return y, ys
}

type convCase struct {
	xs, ws                 []int
	st, dl, pb, pe, outPad []int
	group                  int
	bias                   bool
}

func i64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

func TestConvMatchesNaive(t *testing.T) {
	cases := []convCase{
		{xs: []int{1, 3, 9, 8}, ws: []int{4, 3, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{1, 0}, pe: []int{2, 1}, group: 1, bias: true},
		{xs: []int{2, 4, 11, 10}, ws: []int{6, 2, 3, 2}, st: []int{2, 3}, dl: []int{2, 1}, pb: []int{1, 2}, pe: []int{0, 1}, group: 2, bias: true},
		{xs: []int{2, 6, 7, 7}, ws: []int{6, 1, 3, 3}, st: []int{2, 2}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, group: 6, bias: true},  // depthwise
		{xs: []int{1, 4, 9, 9}, ws: []int{8, 1, 3, 3}, st: []int{1, 1}, dl: []int{2, 2}, pb: []int{2, 1}, pe: []int{0, 2}, group: 4, bias: false}, // multiplier 2
		{xs: []int{2, 8, 5, 6}, ws: []int{5, 8, 1, 1}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{0, 0}, pe: []int{0, 0}, group: 1, bias: true},  // pointwise
		{xs: []int{1, 8, 5, 6}, ws: []int{4, 2, 1, 1}, st: []int{2, 1}, dl: []int{1, 1}, pb: []int{0, 0}, pe: []int{1, 0}, group: 4, bias: false},
		{xs: []int{2, 3, 17}, ws: []int{4, 3, 4}, st: []int{3}, dl: []int{2}, pb: []int{3}, pe: []int{1}, group: 1, bias: true},
		{xs: []int{1, 4, 5, 6, 7}, ws: []int{6, 2, 2, 3, 2}, st: []int{1, 2, 2}, dl: []int{1, 1, 2}, pb: []int{0, 1, 1}, pe: []int{1, 0, 2}, group: 2, bias: true},
		{xs: []int{1, 64, 20, 20}, ws: []int{32, 64, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, group: 1, bias: true}, // large enough to go parallel
		// Kernels wider than the input: some taps miss every row (ConvNeXt's
		// 7x7 depthwise convolution with padding 3 on a 2x2 feature map).
		{xs: []int{1, 3, 2, 2}, ws: []int{3, 1, 7, 7}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{3, 3}, pe: []int{3, 3}, group: 3, bias: true},
		{xs: []int{1, 2, 2, 3}, ws: []int{4, 2, 7, 7}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{3, 3}, pe: []int{3, 3}, group: 1, bias: true},
		{xs: []int{1, 2, 3, 2}, ws: []int{2, 1, 5, 5}, st: []int{2, 2}, dl: []int{1, 1}, pb: []int{4, 4}, pe: []int{2, 2}, group: 2, bias: false},
		// Padding wider than the input: some taps meet only padding
		// (ONNX's pytorch-converted test_Conv1d_pad2size1).
		{xs: []int{1, 4, 1}, ws: []int{2, 4, 5}, st: []int{1}, dl: []int{1}, pb: []int{2}, pe: []int{2}, group: 1, bias: true},
		{xs: []int{1, 2, 1, 2}, ws: []int{3, 2, 5, 5}, st: []int{1, 2}, dl: []int{1, 1}, pb: []int{3, 4}, pe: []int{2, 4}, group: 1, bias: false},
		{xs: []int{1, 3, 2, 1}, ws: []int{3, 1, 3, 5}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{1, 3}, pe: []int{1, 3}, group: 3, bias: true}, // depthwise
		{xs: []int{1, 3, 2, 1}, ws: []int{3, 1, 3, 5}, st: []int{1, 2}, dl: []int{1, 2}, pb: []int{1, 5}, pe: []int{1, 5}, group: 3, bias: true}, // depthwise, strided
		// 3×3 depthwise through the row kernel: vector interior, scalar
		// remainder and padded edges, vertical stride, inputs narrower
		// than the kernel.
		{xs: []int{2, 5, 13, 21}, ws: []int{5, 1, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, group: 5, bias: true},
		{xs: []int{1, 4, 9, 19}, ws: []int{4, 1, 3, 3}, st: []int{2, 1}, dl: []int{1, 1}, pb: []int{0, 2}, pe: []int{1, 0}, group: 4, bias: true},
		{xs: []int{1, 3, 6, 17}, ws: []int{3, 1, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{0, 0}, pe: []int{0, 0}, group: 3, bias: false},
		{xs: []int{1, 2, 4, 2}, ws: []int{2, 1, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{1, 3}, pe: []int{1, 2}, group: 2, bias: true},
		{xs: []int{2, 3, 12, 23}, ws: []int{3, 1, 3, 3}, st: []int{2, 2}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, group: 3, bias: true},
		{xs: []int{1, 2, 7, 14}, ws: []int{2, 1, 3, 3}, st: []int{1, 2}, dl: []int{1, 1}, pb: []int{0, 0}, pe: []int{1, 1}, group: 2, bias: false},
		{xs: []int{1, 2, 5, 3}, ws: []int{2, 1, 3, 3}, st: []int{1, 2}, dl: []int{1, 1}, pb: []int{1, 2}, pe: []int{1, 2}, group: 2, bias: true},
		// A resnet-like 7×7 stride-2 stem and a stride-2 3×3: the horizontal
		// stride-2 gather, and column panels with a ragged last one.
		{xs: []int{1, 3, 37, 35}, ws: []int{8, 3, 7, 7}, st: []int{2, 2}, dl: []int{1, 1}, pb: []int{3, 3}, pe: []int{3, 3}, group: 1, bias: true},
		{xs: []int{2, 16, 15, 17}, ws: []int{24, 16, 3, 3}, st: []int{2, 2}, dl: []int{1, 1}, pb: []int{1, 0}, pe: []int{1, 2}, group: 1, bias: false},
		// Stride 1 with output rows as long as input rows: whole planes
		// as one long row, edge columns redone.
		{xs: []int{1, 3, 14, 14}, ws: []int{3, 1, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, group: 3, bias: true},
		{xs: []int{2, 2, 7, 7}, ws: []int{2, 1, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, group: 2, bias: false},
		{xs: []int{1, 2, 9, 30}, ws: []int{2, 1, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{0, 0}, pe: []int{2, 2}, group: 2, bias: true},
		{xs: []int{1, 2, 6, 11}, ws: []int{2, 1, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{2, 2}, pe: []int{0, 0}, group: 2, bias: true},
		{xs: []int{1, 2, 3, 5}, ws: []int{2, 1, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, group: 2, bias: true},
		// Planes too big to go as one long row.
		{xs: []int{1, 2, 40, 53}, ws: []int{2, 1, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{1, 0}, pe: []int{1, 2}, group: 2, bias: true},
		{xs: []int{1, 8, 30, 41}, ws: []int{8, 2, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, group: 4, bias: true},
	}
	r := rand.New(rand.NewSource(1))
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkConvCase(t, r, c) })
	}
}

// checkConvCase runs c's convolution on random data and compares it with
// naiveConv.
func checkConvCase(t *testing.T, r *rand.Rand, c convCase) {
	x := randTensor(r, "x", c.xs...)
	w := randTensor(r, "w", c.ws...)
	w.Layout, _ = canon.LayoutFor(canon.RoleConvWeight, len(c.ws))
	order := []string{"x", "w"}
	inits := []*canon.Tensor{w}
	var bv []float32
	if c.bias {
		b := randTensor(r, "b", c.ws[0])
		inits = append(inits, b)
		order = append(order, "b")
		bv = floats(t, b)
	}
	op := &canon.Conv{Strides: i64s(c.st), Dilations: i64s(c.dl), PadsBegin: i64s(c.pb), PadsEnd: i64s(c.pe), Group: int64(c.group)}
	g := graphOf(op, map[string]*canon.Tensor{"x": x}, order, inits)
	out, err := Run(g, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
	want, ws := naiveConv(floats(t, x), c.xs, floats(t, w), c.ws, bv, c.st, c.dl, c.pb, c.pe, c.group)
	if got := ints(out["y"].Shape); !slices.Equal(got, ws) {
		t.Fatalf("%+v: shape %v, want %v", c, got, ws)
	}
	assertClose(t, fmt.Sprintf("conv %+v", c), floats(t, out["y"]), want, 1e-4)
}

func TestConvTransposeMatchesNaive(t *testing.T) {
	cases := []convCase{
		{xs: []int{1, 2, 3, 3}, ws: []int{2, 3, 3, 3}, st: []int{1, 1}, dl: []int{1, 1}, pb: []int{0, 0}, pe: []int{0, 0}, outPad: []int{0, 0}, group: 1, bias: false},
		// grouped, strided, output_padding, asymmetric pads
		{xs: []int{2, 4, 5, 4}, ws: []int{4, 3, 3, 2}, st: []int{2, 3}, dl: []int{1, 1}, pb: []int{1, 0}, pe: []int{0, 2}, outPad: []int{1, 2}, group: 2, bias: true},
		// grouped with dilation
		{xs: []int{1, 6, 4, 5}, ws: []int{6, 2, 3, 3}, st: []int{2, 2}, dl: []int{2, 1}, pb: []int{1, 1}, pe: []int{2, 0}, outPad: []int{1, 0}, group: 3, bias: true},
		// depthwise-like
		{xs: []int{1, 4, 5, 5}, ws: []int{4, 1, 4, 4}, st: []int{2, 2}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, outPad: []int{0, 0}, group: 4, bias: false},
		{xs: []int{2, 3, 7}, ws: []int{3, 2, 3}, st: []int{3}, dl: []int{2}, pb: []int{2}, pe: []int{1}, outPad: []int{2}, group: 1, bias: true},
		{xs: []int{1, 2, 3, 4, 3}, ws: []int{2, 2, 2, 3, 2}, st: []int{2, 1, 2}, dl: []int{1, 2, 1}, pb: []int{0, 1, 1}, pe: []int{1, 0, 0}, outPad: []int{1, 0, 1}, group: 2, bias: true},
		{xs: []int{1, 64, 12, 12}, ws: []int{64, 16, 3, 3}, st: []int{2, 2}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, outPad: []int{1, 1}, group: 1, bias: true},
	}
	r := rand.New(rand.NewSource(2))
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			x := randTensor(r, "x", c.xs...)
			w := randTensor(r, "w", c.ws...)
			w.Layout, _ = canon.LayoutFor(canon.RoleDeconvWeight, len(c.ws))
			order := []string{"x", "w"}
			inits := []*canon.Tensor{w}
			var bv []float32
			if c.bias {
				b := randTensor(r, "b", c.ws[1]*c.group)
				inits = append(inits, b)
				order = append(order, "b")
				bv = floats(t, b)
			}
			op := &canon.ConvTranspose{Strides: i64s(c.st), Dilations: i64s(c.dl), PadsBegin: i64s(c.pb), PadsEnd: i64s(c.pe), OutputPadding: i64s(c.outPad), Group: int64(c.group)}
			g := graphOf(op, map[string]*canon.Tensor{"x": x}, order, inits)
			out, err := Run(g, map[string]*canon.Tensor{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			want, ws := naiveConvTranspose(floats(t, x), c.xs, floats(t, w), c.ws, bv, c.st, c.dl, c.pb, c.pe, c.outPad, c.group)
			if got := ints(out["y"].Shape); !slices.Equal(got, ws) {
				t.Fatalf("shape %v, want %v", got, ws)
			}
			assertClose(t, "convtranspose", floats(t, out["y"]), want, 1e-4)
		})
	}
}

func TestConvBadWeightShape(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	x := randTensor(r, "x", 1, 4, 4, 4)
	w := randTensor(r, "w", 3, 3, 3, 3)
	g := graphOf(&canon.Conv{Group: 1}, map[string]*canon.Tensor{"x": x}, []string{"x", "w"}, []*canon.Tensor{w})
	_, err := Run(g, map[string]*canon.Tensor{"x": x})
	if err == nil {
		t.Fatal("no error for a weight with the wrong input channels")
	}
	t.Log(err)
}

// TestConvRandomMatchesNaive runs random small convolutions of the shapes
// with fast paths (3×3 depthwise with horizontal stride 1 or 2, few
// channels per group) with random sizes, strides and paddings, odd widths
// and padding wider than the input included, against the definition.
func TestConvRandomMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for i := range 300 {
		c := randomConvCase(r)
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkConvCase(t, r, c) })
	}
}

func randomConvCase(r *rand.Rand) convCase {
	group := 1 + r.Intn(6)
	cing, coutg := 1, 1
	switch r.Intn(3) {
	case 1:
		cing, coutg = 1+r.Intn(5), 1+r.Intn(5)
	case 2:
		cing, coutg = 4, 4
	}
	k := 3
	if r.Intn(4) == 0 {
		k = 1 + r.Intn(4)
	}
	c := convCase{
		xs:    []int{1 + r.Intn(2), group * cing, 1 + r.Intn(20), 1 + r.Intn(45)},
		ws:    []int{group * coutg, cing, k, k},
		st:    []int{1 + r.Intn(3), 1 + r.Intn(2)},
		dl:    []int{1, 1},
		pb:    []int{r.Intn(4), r.Intn(4)},
		pe:    []int{r.Intn(4), r.Intn(4)},
		group: group,
		bias:  r.Intn(2) == 0,
	}
	for d := 0; d < 2; d++ {
		// Keep the padded input at least as large as the kernel.
		if short := k - (c.xs[2+d] + c.pb[d] + c.pe[d]); short > 0 {
			c.pe[d] += short
		}
	}
	return c
}

// TestDepthwiseInfWeight: a padded tap with an infinite weight is skipped,
// not multiplied by zero, so the outputs whose window it leaves are finite.
func TestDepthwiseInfWeight(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for _, st := range []int{1, 2} {
		c := convCase{xs: []int{1, 2, 9, 20}, ws: []int{2, 1, 3, 3}, st: []int{st, st}, dl: []int{1, 1}, pb: []int{1, 1}, pe: []int{1, 1}, group: 2, bias: true}
		x := randTensor(r, "x", c.xs...)
		wv := make([]float32, 18)
		for i := range wv {
			wv[i] = r.Float32() - 0.5
		}
		wv[0], wv[9+8] = float32(math.Inf(1)), float32(math.NaN())
		w := canon.NewFloat32Tensor("w", i64s(c.ws), wv)
		w.Layout, _ = canon.LayoutFor(canon.RoleConvWeight, 4)
		b := canon.NewFloat32Tensor("b", []int64{2}, []float32{0.5, -0.5})
		op := &canon.Conv{Strides: i64s(c.st), Dilations: i64s(c.dl), PadsBegin: i64s(c.pb), PadsEnd: i64s(c.pe), Group: 2}
		g := graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x", "w", "b"}, []*canon.Tensor{w, b})
		out, err := Run(g, map[string]*canon.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := naiveConv(floats(t, x), c.xs, wv, c.ws, []float32{0.5, -0.5}, c.st, c.dl, c.pb, c.pe, 2)
		if !math.IsInf(float64(want[0]), 0) && want[0] == want[0] {
			assertClose(t, "depthwise with inf weights", floats(t, out["y"]), want, 1e-4)
		} else {
			t.Fatalf("output 0 = %v: its window should leave the infinite tap in the padding", want[0])
		}
	}
}
