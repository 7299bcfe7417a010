package vec

// Winograd and panel family: the element-by-element transforms of the
// Winograd convolutions and the gathers that pack a convolution's column
// matrix into GEMM panels.

func add3Ref(dst, a, b, c []float32) {
	a, b, c = a[:len(dst)], b[:len(dst)], c[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i] + c[i]
	}
}

func subSubRef(dst, a, b, c []float32) {
	a, b, c = a[:len(dst)], b[:len(dst)], c[:len(dst)]
	for i := range dst {
		dst[i] = a[i] - b[i] - c[i]
	}
}

// gatherEvenRef sets dst[i] = src[2i] (src holds 2·len(dst)-1 values).
func gatherEvenRef(dst, src []float32) {
	if len(dst) == 0 {
		return
	}
	src = src[:2*len(dst)-1]
	for i := range dst {
		dst[i] = src[2*i]
	}
}

// interleaveRef sets dst[2i] = ev[i] and dst[2i+1] = od[i], the last
// element from ev when len(dst) is odd.
func interleaveRef(dst, ev, od []float32) {
	n := len(dst) / 2
	ev, od = ev[:(len(dst)+1)/2], od[:n]
	for i := range n {
		dst[2*i], dst[2*i+1] = ev[i], od[i]
	}
	if len(dst)%2 == 1 {
		dst[2*n] = ev[n]
	}
}

// winoRowRef is F(2×2,3×3)'s horizontal input transform for len(h0) tiles
// of one row (src holds 2·len(h0)+2 values): with e[t] = src[2t] and o[t] =
// src[2t+1], h0 = e[t]-e[t+1], h1 = o[t]+e[t+1], h2 = e[t+1]-o[t], h3 =
// o[t]-o[t+1].
func winoRowRef(src, h0, h1, h2, h3 []float32) {
	for t := range h0 {
		e0, o0, e1, o1 := src[2*t], src[2*t+1], src[2*t+2], src[2*t+3]
		h0[t], h1[t], h2[t], h3[t] = e0-e1, o0+e1, e1-o0, o0-o1
	}
}

// winoColRef is the vertical half, over len(o0) tiles: o0 = a-c, o1 =
// b+c, o2 = c-b, o3 = b-d.
func winoColRef(a, b, c, d, o0, o1, o2, o3 []float32) {
	n := len(o0)
	a, b, c, d, o1, o2, o3 = a[:n], b[:n], c[:n], d[:n], o1[:n], o2[:n], o3[:n]
	for t := range o0 {
		o0[t], o1[t], o2[t], o3[t] = a[t]-c[t], b[t]+c[t], c[t]-b[t], b[t]-d[t]
	}
}

// panelTapsRef sets dst[16p+i] = src[taps[p]+s·i] for p < len(taps),
// i < 16.
func panelTapsRef(dst, src []float32, taps []int32, s int) {
	for p, t := range taps {
		for i := range NR {
			dst[NR*p+i] = src[int(t)+s*i]
		}
	}
}

// panelGatherRef sets dst[16p+i] = src[taps[p]+cols[i]].
func panelGatherRef(dst, src []float32, taps []int32, cols *[NR]int32) {
	for p, t := range taps {
		for i, c := range cols {
			dst[NR*p+i] = src[int(t)+int(c)]
		}
	}
}

// Wino4In is F(4×4,3×3)'s 1-D input transform v = Bᵀ·d, factored, each
// a·b + c a fused multiply-add as the vector code does it.
func Wino4In(d, v *[6]float32) {
	x, q := d[3]-d[1], d[4]-d[2]
	v[0] = fma32(-2, d[2], fma32(1.5, x, d[0]+d[4]))
	v[1] = fma32(2.5, d[3], fma32(0.5, d[2], d[4]-d[1]))
	v[2] = fma32(0.5, d[3], fma32(-2.5, d[2], d[4]+d[1]))
	v[3] = fma32(2, x, q)
	v[4] = fma32(-0.5, x, q)
	v[5] = fma32(-2, d[3], fma32(1.5, q, d[5]+d[1]))
}

// Wino4Out is the 1-D output transform y = Aᵀ·m, factored as Wino4In.
func Wino4Out(m *[6]float32, y *[4]float32) {
	a, b := m[1]+m[2], m[1]-m[2]
	y[0] = (m[0] + a) + (m[3] + m[4])
	y[1] = fma32(-2, m[4], fma32(0.5, m[3], b))
	y[2] = fma32(4, m[4], fma32(0.25, m[3], a))
	y[3] = fma32(-8, m[4], fma32(0.125, m[3], b+m[5]))
}

// wino4RowRef: tile t of n reads src[4t:4t+6] and writes h[j·stride+t].
func wino4RowRef(src, h []float32, stride, n int) {
	var d, v [6]float32
	for t := 0; t < n; t++ {
		copy(d[:], src[4*t:4*t+6])
		Wino4In(&d, &v)
		for j, x := range v {
			h[j*stride+t] = x
		}
	}
}

// wino4ColRef sets o[j][t] = (Bᵀ·s[·][t])[j] for t < n.
func wino4ColRef(n int, s, o *[6][]float32) {
	var d, v [6]float32
	for t := 0; t < n; t++ {
		for k := range d {
			d[k] = s[k][t]
		}
		Wino4In(&d, &v)
		for j := range v {
			o[j][t] = v[j]
		}
	}
}

// wino4PanelsRef is wino4ColRef over chunks runs of 16 floats: run c reads
// s[k][16c:] and writes o[k][c·gap:].
func wino4PanelsRef(chunks, gap int, s, o *[6][]float32) {
	for c := 0; c < chunks; c++ {
		var sc, oc [6][]float32
		for k := range sc {
			sc[k], oc[k] = s[k][c*NR:], o[k][c*gap:]
		}
		wino4ColRef(NR, &sc, &oc)
	}
}

// wino4OutRef sets o[i][t] = (Aᵀ·s[·][t])[i] for t < n.
func wino4OutRef(n int, s *[6][]float32, o *[4][]float32) {
	var d [6]float32
	var y [4]float32
	for t := 0; t < n; t++ {
		for k := range d {
			d[k] = s[k][t]
		}
		Wino4Out(&d, &y)
		for i := range y {
			o[i][t] = y[i]
		}
	}
}

// interleave4Ref sets dst[4t+c] = oc[t] for 4t+c < len(dst).
func interleave4Ref(dst, o0, o1, o2, o3 []float32) {
	n := len(dst) / 4
	o0, o1, o2, o3 = o0[:(len(dst)+3)/4], o1[:(len(dst)+2)/4], o2[:(len(dst)+1)/4], o3[:n]
	for t := range n {
		dst[4*t], dst[4*t+1], dst[4*t+2], dst[4*t+3] = o0[t], o1[t], o2[t], o3[t]
	}
	tail := [3][]float32{o0, o1, o2}
	for c := 0; 4*n+c < len(dst); c++ {
		dst[4*n+c] = tail[c][n]
	}
}
