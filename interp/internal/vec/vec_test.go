package vec

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"testing"
	"unsafe"
)

// levels runs f once for each vector level this machine has: the
// reference only, AVX2 + FMA, and AVX-512.
func levels(t *testing.T, f func(t *testing.T)) {
	type level struct {
		name        string
		fma, avx512 bool
	}
	all := []level{{"ref", false, false}, {"avx2", HasFMA, false}, {"avx512", HasFMA, HasAVX512}}
	oldFMA, old512, oldHas512 := HasFMA, UseAVX512, HasAVX512
	defer func() { HasFMA, UseAVX512, HasAVX512 = oldFMA, old512, oldHas512 }()
	for i, l := range all {
		if i > 0 && (l == all[i-1] || (l.name == "avx2" && !l.fma) || (l.name == "avx512" && !l.avx512)) {
			continue
		}
		HasFMA, UseAVX512, HasAVX512 = l.fma, l.avx512, l.avx512
		t.Run(l.name, f)
	}
}

// lengths are the sizes every routine meets: empty, below, at and around
// whole vectors, and longer odd runs.
var lengths = []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 23, 31, 32, 33, 47, 64, 100, 257}

// specials are values at the edges of the functions' ranges.
var specials = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-30, -1e-30, 88, -88, 100, -100,
	709.7, 710, -745, -746, 0.84375, 1.25, 2.857, 6, -6, 20, -20, 0.625, 44, 45,
	math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64, math.MaxFloat32}

func randF32(r *rand.Rand, n int, scale float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64() * scale)
		if r.Intn(8) == 0 {
			s[i] = float32(specials[r.Intn(len(specials))])
		}
	}
	return s
}

func randF64(r *rand.Rand, n int, scale float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64() * scale
		if r.Intn(8) == 0 {
			s[i] = specials[r.Intn(len(specials))]
		}
	}
	return s
}

func sameBits32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
			t.Fatalf("%s: element %d of %d is %v (%#x), the reference gives %v (%#x)",
				what, i, len(want), got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

func sameBits64(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
			t.Fatalf("%s: element %d of %d is %v, the reference gives %v", what, i, len(want), got[i], want[i])
		}
	}
}

// guard gives a slice of n values followed by a sentinel that no routine
// may overwrite.
func guard32(n int) []float32 {
	s := make([]float32, n+1)
	s[n] = 12345
	return s[:n]
}

func checkGuard32(t *testing.T, what string, s []float32) {
	t.Helper()
	if v := s[:len(s)+1][len(s)]; v != 12345 {
		t.Fatalf("%s: wrote past the end (%v)", what, v)
	}
}

func TestElementwiseMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(1))
		f32 := []struct {
			name      string
			fast, ref func(d, s []float32)
		}{
			{"Sigmoid", Sigmoid, sigmoidRef}, {"Tanh", Tanh, tanhRef}, {"Gelu", Gelu, geluRef},
			{"GeluTanh", GeluTanh, geluTanhRef}, {"Erf", Erf, erfRef},
		}
		f64 := []struct {
			name      string
			fast, ref func(d, s []float64)
		}{
			{"Exp64", Exp64, exp64Ref}, {"Sigmoid64", Sigmoid64, sigmoid64Ref}, {"Tanh64", Tanh64, tanh64Ref},
			{"Erf64", Erf64, erf64Ref},
		}
		for _, n := range lengths {
			for _, scale := range []float64{1, 4, 30} {
				s := randF32(r, n, scale)
				for _, f := range f32 {
					got, want := guard32(n), make([]float32, n)
					f.fast(got, s)
					f.ref(want, s)
					sameBits32(t, fmt.Sprintf("%s n=%d", f.name, n), got, want)
					checkGuard32(t, f.name, got)
				}
				s64 := randF64(r, n, scale*10)
				for _, f := range f64 {
					got, want := make([]float64, n), make([]float64, n)
					f.fast(got, s64)
					f.ref(want, s64)
					sameBits64(t, fmt.Sprintf("%s n=%d", f.name, n), got, want)
				}
			}
		}
	})
}

func TestSoftmaxMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(2))
		for _, n := range lengths {
			for _, nan := range []bool{false, true} {
				src := randF32(r, 4*n+3, 5)
				for i := range src {
					if src[i] != src[i] && !nan {
						src[i] = 1
					}
				}
				// A destination apart from the source.
				got, want := make([]float32, len(src)), make([]float32, len(src))
				SoftmaxRows32(got, src, n)
				softmaxRows32Ref(want, src, n)
				sameBits32(t, fmt.Sprintf("SoftmaxRows32 n=%d", n), got, want)
				row := randF64(r, n, 5)
				want64 := append([]float64(nil), row...)
				Softmax64(row)
				softmax64Ref(want64)
				sameBits64(t, fmt.Sprintf("Softmax64 n=%d", n), row, want64)
			}
		}
	})
}

func TestDotMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(3))
		for _, n := range lengths {
			a, w := randF32(r, n, 1), randF32(r, 3*(n+5)+n, 1)
			for i := range a { // no specials: NaN sums compare by value
				if a[i] != a[i] || math.IsInf(float64(a[i]), 0) {
					a[i] = 0.25
				}
			}
			for i := range w {
				if w[i] != w[i] || math.IsInf(float64(w[i]), 0) || math.Abs(float64(w[i])) > 1e30 {
					w[i] = -0.5
				}
			}
			got, want := Dot(a, w), dotRef(a, w)
			sameBits32(t, fmt.Sprintf("Dot n=%d", n), []float32{got}, []float32{want})
			var g4, w4 [4]float32
			Dot4(a, w, n+5, &g4)
			dot4Ref(a, w, n+5, &w4)
			sameBits32(t, fmt.Sprintf("Dot4 n=%d", n), g4[:], w4[:])
			if math.Abs(float64(got-dotTail(a, w))) > 1e-4*float64(n+1) {
				t.Fatalf("Dot n=%d: %v, the float64 sum is %v", n, got, dotTail(a, w))
			}
		}
	})
}

func TestRowsMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(4))
		bounds := [][2]float32{{float32(math.Inf(-1)), float32(math.Inf(1))}, {0, 6}, {-1, 1},
			{float32(math.Copysign(0, -1)), 6}, {-6, 0}}
		for _, n := range lengths {
			for _, b := range bounds {
				for _, withRes := range []bool{false, true} {
					row, res := randF32(r, n, 3), []float32(nil)
					if withRes {
						res = randF32(r, n, 3)
					}
					want := append([]float32(nil), row...)
					ClampRow(row, res, 0.5, b[0], b[1])
					clampRowRef(want, res, 0.5, b[0], b[1])
					sameBits32(t, fmt.Sprintf("ClampRow n=%d %v", n, b), row, want)
					rows, cols, ld := 1+n%5, 1+n%16, 19
					y := randF32(r, rows*ld, 3)
					var bias []float32
					if withRes {
						bias = randF32(r, rows, 1)
						res = randF32(r, rows*ld, 1)
					}
					want = append([]float32(nil), y...)
					ClampTile(y, ld, rows, cols, bias, res, b[0], b[1])
					clampTileRef(want, ld, rows, cols, bias, res, b[0], b[1])
					sameBits32(t, fmt.Sprintf("ClampTile %dx%d %v", rows, cols, b), y, want)
				}
			}
			for _, sw := range []int{1, 2, 3} {
				for _, isMax := range []bool{false, true} {
					acc, src := randF32(r, n, 2), randF32(r, sw*n+r.Intn(3), 2)
					if n > 0 && len(src) < (n-1)*sw+1 {
						src = append(src, 1)
					}
					want := append([]float32(nil), acc...)
					PoolStep(acc, src, sw, isMax)
					poolStepRef(want, src, sw, isMax)
					sameBits32(t, fmt.Sprintf("PoolStep n=%d sw=%d max=%v", n, sw, isMax), acc, want)
				}
				if sw == 3 {
					continue
				}
				for rows := 1; rows <= 3; rows++ {
					for _, acc := range []bool{false, true} {
						ld := sw*n + 5
						src := randF32(r, (rows-1)*ld+sw*n+2+r.Intn(20), 2)
						var w [9]float32
						copy(w[:], randF32(r, 9, 1))
						got, want := guard32(n), make([]float32, n)
						copy(got, randF32(r, n, 1))
						copy(want, got)
						DWConv3Row(src, ld, rows, sw, &w, 0.25, got, acc)
						dwConv3RowRef(src, ld, rows, sw, &w, 0.25, want, acc)
						sameBits32(t, fmt.Sprintf("DWConv3Row n=%d sw=%d rows=%d", n, sw, rows), got, want)
						checkGuard32(t, "DWConv3Row", got)
					}
				}
			}
		}
	})
}

func TestGemmMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(5))
		for _, k := range []int{0, 1, 3, 4, 5, 17, 64} {
			for _, add := range []bool{false, true} {
				a6, b := randF32(r, 6*k, 1), randF32(r, 16*k, 1)
				c := randF32(r, 5*20+16, 1)
				want := append([]float32(nil), c...)
				Kernel6x16(k, a6, b, c, 20, add)
				kernelRef(6, 6, k, a6, b, NR, want, 20, add)
				sameBits32(t, fmt.Sprintf("Kernel6x16 k=%d", k), c, want)
				for _, rows := range []int{16, 8} {
					a := randF32(r, 16*k, 1)
					bb := randF32(r, 24*k+16, 1)
					c := randF32(r, (rows-1)*18+16, 1)
					want := append([]float32(nil), c...)
					Kernel16(rows, k, a, bb, 24, c, 18, add, k%2 == 1)
					kernelRef(rows, 16, k, a, bb, 24, want, 18, add)
					sameBits32(t, fmt.Sprintf("Kernel16 rows=%d k=%d", rows, k), c, want)
				}
				for _, panels := range []int{1, 2, 3, 7, 8, 11} {
					a := randF32(r, panels*16*k, 1)
					bb := randF32(r, 3*k+1, 1)
					c := randF32(r, (panels*16-1)*5+1, 1)
					want := append([]float32(nil), c...)
					Column16(k, panels, a, bb, 3, c, 5, add)
					columnRef(k, panels, a, bb, 3, want, 5, add)
					sameBits32(t, fmt.Sprintf("Column16 panels=%d k=%d", panels, k), c, want)
				}
			}
		}
	})
}

func TestWinogradMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(6))
		for _, n := range lengths {
			a, b, c, d := randF32(r, n+3, 1), randF32(r, n+3, 1), randF32(r, n+3, 1), randF32(r, n+3, 1)
			for _, f := range []struct {
				name      string
				fast, ref func(dst, a, b, c []float32)
			}{{"Add3", Add3, add3Ref}, {"SubSub", SubSub, subSubRef}} {
				got, want := guard32(n), make([]float32, n)
				f.fast(got, a, b, c)
				f.ref(want, a, b, c)
				sameBits32(t, f.name, got, want)
				checkGuard32(t, f.name, got)
			}
			got, want := guard32(n), make([]float32, n)
			if n > 0 {
				src := randF32(r, 2*n-1, 1)
				GatherEven(got, src)
				gatherEvenRef(want, src)
				sameBits32(t, "GatherEven", got, want)
			}
			ev, od := a[:(n+1)/2], b[:n/2]
			Interleave(got, ev, od)
			interleaveRef(want, ev, od)
			sameBits32(t, "Interleave", got, want)
			checkGuard32(t, "Interleave", got)
			Interleave4(got, a, b, c, d)
			interleave4Ref(want, a, b, c, d)
			sameBits32(t, "Interleave4", got, want)
			var h, hr [4][]float32
			for i := range h {
				h[i], hr[i] = make([]float32, n), make([]float32, n)
			}
			src := randF32(r, n+2+r.Intn(n+1), 1)
			m := WinoRow(src, h[0], h[1], h[2], h[3])
			mr := min(n, (len(src)-2)/2)
			winoRowRef(src, hr[0][:mr], hr[1][:mr], hr[2][:mr], hr[3][:mr])
			if m != mr {
				t.Fatalf("WinoRow n=%d: %d tiles, want %d", n, m, mr)
			}
			for i := range h {
				sameBits32(t, "WinoRow", h[i], hr[i])
			}
			k := min(n, 16)
			WinoCol(a, b, c, d, h[0][:k], h[1][:k], h[2][:k], h[3][:k])
			winoColRef(a, b, c, d, hr[0][:k], hr[1][:k], hr[2][:k], hr[3][:k])
			for i := range h {
				sameBits32(t, "WinoCol", h[i], hr[i])
			}
		}
	})
}

// The F(4×4) transforms give their references' results bit for bit, fused
// multiply-adds included.
func TestWino4MatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(7))
		near := func(what string, got, want []float32) {
			t.Helper()
			sameBits32(t, what, got, want)
		}
		fill := func(n int) []float32 {
			s := make([]float32, n)
			for i := range s {
				s[i] = r.Float32()*4 - 2
			}
			return s
		}
		for _, n := range lengths {
			var s, o, og [6][]float32
			for k := range s {
				s[k], o[k], og[k] = fill(n+1), make([]float32, n+1), make([]float32, n+1)
			}
			Wino4Col(n, &s, &o)
			wino4ColRef(n, &s, &og)
			for k := range o {
				near("Wino4Col", o[k], og[k])
			}
			var y, yg [4][]float32
			for i := range y {
				y[i], yg[i] = make([]float32, n+1), make([]float32, n+1)
			}
			Wino4OutCols(n, &s, &y)
			wino4OutRef(n, &s, &yg)
			for i := range y {
				near("Wino4OutCols", y[i], yg[i])
			}
			src, stride := fill(4*n+4), n+3
			h, hg := make([]float32, 6*stride), make([]float32, 6*stride)
			Wino4Row(src, h, stride, n)
			wino4RowRef(src, hg, stride, n)
			near("Wino4Row", h, hg)
		}
		var s, o, og [6][]float32
		for k := range s {
			s[k], o[k], og[k] = fill(48), make([]float32, 2*40+16), make([]float32, 2*40+16)
		}
		Wino4Panels(3, 40, &s, &o)
		wino4PanelsRef(3, 40, &s, &og)
		for k := range o {
			near("Wino4Panels", o[k], og[k])
		}
	})
}

func TestPanelsMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		src := make([]float32, 300)
		for i := range src {
			src[i] = float32(i)
		}
		taps := []int32{0, 3, 40, 150, 151}
		for _, s := range []int{1, 2, 3} {
			for _, end := range []int{len(src), 151 + 15*s + 1, 151 + 16*s} {
				got, want := make([]float32, NR*len(taps)), make([]float32, NR*len(taps))
				PanelTaps(got, src[:end], taps, s)
				panelTapsRef(want, src[:end], taps, s)
				sameBits32(t, fmt.Sprintf("PanelTaps s=%d end=%d", s, end), got, want)
			}
		}
		var cols [NR]int32
		for i := range cols {
			cols[i] = int32(3*i + i/5)
		}
		got, want := make([]float32, NR*len(taps)), make([]float32, NR*len(taps))
		for _, end := range []int{len(src), 151 + int(cols[NR-1]) + 1} {
			PanelGather(got, src[:end], taps, &cols)
			panelGatherRef(want, src[:end], taps, &cols)
			sameBits32(t, "PanelGather", got, want)
		}
	})
}

// The assembly reads DW3Args and Pool2Args at fixed offsets
// (depthwise_amd64.s and pool_amd64.s #define them).
func TestArgsLayout(t *testing.T) {
	var a DW3Args
	dw := []uintptr{unsafe.Offsetof(a.Src), unsafe.Offsetof(a.Dst), unsafe.Offsetof(a.W), unsafe.Offsetof(a.Bias),
		unsafe.Offsetof(a.Masks), unsafe.Offsetof(a.Perm), unsafe.Offsetof(a.Planes), unsafe.Offsetof(a.InP),
		unsafe.Offsetof(a.OutP), unsafe.Offsetof(a.BiasStep), unsafe.Offsetof(a.H), unsafe.Offsetof(a.RowBytes),
		unsafe.Offsetof(a.OH), unsafe.Offsetof(a.OW), unsafe.Offsetof(a.SH), unsafe.Offsetof(a.PT),
		unsafe.Offsetof(a.RowOff), unsafe.Offsetof(a.Chunks), unsafe.Offsetof(a.Lo), unsafe.Offsetof(a.Hi),
		unsafe.Offsetof(a.PFDist), unsafe.Offsetof(a.PFLen)}
	want := []uintptr{0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 148, 152, 160}
	for i := range want {
		if dw[i] != want[i] {
			t.Fatalf("DW3Args field %d at offset %d, the assembly reads %d", i, dw[i], want[i])
		}
	}
	var p Pool2Args
	pl := []uintptr{unsafe.Offsetof(p.Src), unsafe.Offsetof(p.Dst), unsafe.Offsetof(p.Masks), unsafe.Offsetof(p.Perm),
		unsafe.Offsetof(p.ColDiv), unsafe.Offsetof(p.RowDiv), unsafe.Offsetof(p.Planes), unsafe.Offsetof(p.InP),
		unsafe.Offsetof(p.OutP), unsafe.Offsetof(p.H), unsafe.Offsetof(p.RowBytes), unsafe.Offsetof(p.OH),
		unsafe.Offsetof(p.OW), unsafe.Offsetof(p.KH), unsafe.Offsetof(p.SH), unsafe.Offsetof(p.PT),
		unsafe.Offsetof(p.RowOff), unsafe.Offsetof(p.Chunks), unsafe.Offsetof(p.ChunkIn), unsafe.Offsetof(p.IsMax),
		unsafe.Offsetof(p.Start), unsafe.Offsetof(p.PFDist), unsafe.Offsetof(p.PFLen), unsafe.Offsetof(p.From1),
		unsafe.Offsetof(p.Rows)}
	wantP := []uintptr{0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192}
	for i := range wantP {
		if pl[i] != wantP[i] {
			t.Fatalf("Pool2Args field %d at offset %d, the assembly reads %d", i, pl[i], wantP[i])
		}
	}
}

func TestPlanesMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(8))
		for i := range 60 {
			H, W := 1+r.Intn(20), 1+r.Intn(40)
			sh, sw := 1+r.Intn(2), 1+r.Intn(2)
			pt, pl := r.Intn(2), r.Intn(2)
			OH, OW := (H+2*pt-3)/sh+1, (W+2*pl-3)/sw+1
			if OH < 1 || OW < 1 {
				continue
			}
			planes := 1 + r.Intn(3)
			x := randF32(r, planes*H*W, 2)
			w, bias := randF32(r, planes*9, 1), randF32(r, planes, 1)
			if i%2 == 0 {
				bias = nil
			}
			masks := DW3Masks(OW, W, sw, pl)
			geom := DW3Args{Planes: planes, InP: H * W, OutP: OH * OW, H: H, RowBytes: 4 * W, OH: OH, OW: OW,
				SH: sh, PT: pt, RowOff: 4 * pl, Lo: -3, Hi: 3, PFDist: 8192, PFLen: 4 * sh * W}
			a, b := geom, geom
			got, want := make([]float32, planes*OH*OW), make([]float32, planes*OH*OW)
			DW3(&a, sw, x, got, w, bias, masks)
			bb := dw3Bind(&b, x, want, w, bias, masks)
			dw3Ref(&b, sw, x, want, w, bb, masks)
			sameBits32(t, fmt.Sprintf("DW3 case %d", i), got, want)

			kh, kw := 1+r.Intn(3), 1+r.Intn(3)
			POH := (H+2*pt-kh)/sh + 1
			if POH < 1 {
				continue
			}
			pm := DW3Masks(OW, W, sw, pl)
			for c := 0; c < len(pm); c += MaskRecord {
				for k := kw; k < 3; k++ {
					pm[c+k] = 0
				}
				if kw < 3 {
					pm[c+6] = 0
				}
			}
			colDiv, rowDiv := make([]float32, len(pm)/MaskRecord*16), make([]float32, POH)
			for j := range colDiv {
				colDiv[j] = float32(1 + r.Intn(3))
			}
			for j := range rowDiv {
				rowDiv[j] = float32(1 + r.Intn(3))
			}
			for _, isMax := range []int{0, 1} {
				pa := Pool2Args{Planes: planes, InP: H * W, OutP: POH * OW, H: H, RowBytes: 4 * W, OH: POH, OW: OW,
					KH: kh, SH: sh, PT: pt, RowOff: 4 * pl, ChunkIn: 64 * sw, IsMax: isMax, PFDist: 8192, PFLen: 4 * sh * W}
				if isMax == 1 {
					pa.Start = float32(math.Inf(-1))
				}
				pb := pa
				got, want := make([]float32, planes*POH*OW), make([]float32, planes*POH*OW)
				Pool2(&pa, x, got, pm, colDiv, rowDiv)
				pool2Bind(&pb, x, want, pm, colDiv, rowDiv)
				pool2Ref(&pb, x, want, pm, colDiv, rowDiv)
				sameBits32(t, fmt.Sprintf("Pool2 case %d max=%d", i, isMax), got, want)
			}
		}
	})
}

// fma32 rounds a·b + c once: checked against math/big's exact sum rounded
// to float32, on random values and on sums a hair from halfway between
// two float32 values, where rounding to float64 first would land exactly
// halfway.
func TestFMA32(t *testing.T) {
	exact := func(a, b, c float32) float32 {
		x := new(big.Float).SetPrec(200).SetFloat64(float64(a))
		x.Mul(x, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
		x.Add(x, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
		f, _ := x.Float32()
		return f
	}
	r := rand.New(rand.NewSource(9))
	check := func(a, b, c float32) {
		t.Helper()
		if got, want := fma32(a, b, c), exact(a, b, c); got != want && !(got == 0 && want == 0) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", a, b, c, got, want)
		}
	}
	for range 50000 {
		a, b, c := float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())
		check(a, b, c)
		// a·b a hair above or below half an ulp of c.
		half := float32(math.Ldexp(1, math.Ilogb(float64(c))-24))
		for _, s := range []float32{1, -1} {
			check(half*(1+0x1p-23), s*(1-0x1p-23), c)
			check(half*(1+0x1p-23), s*(1+0x1p-23), c)
			check(-half*(1-0x1p-23), s*(1-0x1p-23), c)
		}
		// subnormal results
		check(a*0x1p-70, b*0x1p-70, c*0x1p-130)
	}
}
