package vec

// Depthwise-taps family: a run of outputs of one depthwise plane, each its
// bias plus every tap of the window, where tap t of output i reads
// src[offs[t]+i]. The caller lays the input out so that this holds for
// every output it keeps (a padded copy of the plane, split into its
// stride phases); the window's sums then stay in registers.

// dwTapsRef sets dst[i] = bias + Σ_t w[t]·src[offs[t]+i], each tap added
// by a fused multiply-add in t order.
func dwTapsRef(src []float32, offs []int32, w []float32, bias float32, dst []float32) {
	w = w[:len(offs)]
	for i := range dst {
		s := bias
		for t, o := range offs {
			s = fma32(w[t], src[int(o)+i], s)
		}
		dst[i] = s
	}
}

// dwTapsCheck panics unless src holds every value the run reads: the
// assembly trusts it. It returns the largest offset.
func dwTapsCheck(src []float32, offs []int32, w []float32, n int) int {
	_ = w[len(offs)-1]
	hi := 0
	for _, o := range offs {
		if o < 0 {
			panic("vec.DWTaps: negative tap offset")
		}
		hi = max(hi, int(o))
	}
	_ = src[hi+n-1]
	return hi
}

// copyRowsClampRef sets dst[r·ldd+c] = min(max(src[r·lds+c], lo), hi) for
// r < rows, c < cols: the rows of a strided plane moved to another stride
// (a plane into its padded copy, a flat run into its output rows) with the
// epilogue's clamp (infinite bounds: a plain copy).
func copyRowsClampRef(dst []float32, ldd int, src []float32, lds, rows, cols int, lo, hi float32) {
	for r := range rows {
		d, s := dst[r*ldd:r*ldd+cols], src[r*lds:r*lds+cols]
		for c, v := range s {
			d[c] = min(max(v, lo), hi)
		}
	}
}

// deinterleaveRowsRef sets even[r·ldd+i] = src[r·lds+2i] and
// odd[r·ldd+i] = src[r·lds+2i+1] for r < rows and places < w: rows of a
// plane split into their even and odd columns (the phases of stride 2).
func deinterleaveRowsRef(even, odd []float32, ldd int, src []float32, lds, rows, w int) {
	for r := range rows {
		s := src[r*lds : r*lds+w]
		e, o := even[r*ldd:r*ldd+(w+1)/2], odd[r*ldd:r*ldd+w/2]
		for i := range e {
			e[i] = s[2*i]
		}
		for i := range o {
			o[i] = s[2*i+1]
		}
	}
}

// TapRows is L when offs comes in rows of L consecutive offsets, for the L
// the row-run kernels serve (5, 7), else 0: DWTapsRows's rowLen.
func TapRows(offs []int32) int {
	for _, l := range []int{5, 7} {
		if len(offs)%l != 0 {
			continue
		}
		rows := true
		for i := range offs {
			if i%l != 0 && offs[i] != offs[i-1]+1 {
				rows = false
				break
			}
		}
		if rows {
			return l
		}
	}
	return 0
}
