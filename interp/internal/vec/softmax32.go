package vec

// Softmax in float32 lanes: each row's maximum, e^(x - max) by expNeg32
// (Cephes expf, within about an ulp of the correctly rounded float32
// value), their sum in float64 (SumF64's order), each exponential times
// 1/sum in float64, rounded once: within 2 ulp of float64 exponentials,
// which cost twice as much for digits float32 scores do not hold. The
// Softmax op on float32 data (any axis), the fused attention pattern and
// the Attention op all take it, so a pattern fused or a layout changed
// does not change a probability's bits.

// SoftmaxRows32 writes the softmax of each run of n values of src to the
// same place of dst (which may be src), as softmaxRows32Ref does. A row
// with a NaN takes the float64 softmax (softmaxStridedRef), which makes it
// NaN as the float64 softmax does.
func SoftmaxRows32(dst, src []float32, n int) {
	if n <= 0 {
		return
	}
	for r := 0; r+n <= len(src) && r+n <= len(dst); r += n {
		in, row := src[r:r+n], dst[r:r+n]
		m, ok := rowMax32(in)
		if !ok {
			softmaxStridedRef(row, in, 0, n, 1)
			continue
		}
		ExpShift32(row, in, m)
		scaleRow32(row, 1/SumF64(row))
	}
}

// softmaxRows32Ref is SoftmaxRows32's reference.
func softmaxRows32Ref(dst, src []float32, n int) {
	if n <= 0 {
		return
	}
	for r := 0; r+n <= len(src) && r+n <= len(dst); r += n {
		in, row := src[r:r+n], dst[r:r+n]
		m, ok := rowMax32Ref(in)
		if !ok {
			softmaxStridedRef(row, in, 0, n, 1)
			continue
		}
		expShift32Ref(row, in, m)
		inv := 1 / sumF64Ref(row)
		for j, v := range row {
			row[j] = float32(float64(v) * inv)
		}
	}
}

// rowMax32Ref is the maximum of row, ok false if it holds a NaN.
func rowMax32Ref(row []float32) (m float32, ok bool) {
	m = row[0]
	for _, v := range row {
		if v != v {
			return 0, false
		}
		m = max(m, v)
	}
	return m, true
}

// SoftmaxColumns32 writes the softmax of cols adjacent columns of src,
// each n values stride apart from base, to the same places of dst (which
// may be src), each column exactly as SoftmaxRows32 computes a row: blocks
// of 16 columns are transposed into rows of scratch (at least 16·n
// floats), taken as rows, and transposed back.
func SoftmaxColumns32(dst, src []float32, base, n, stride, cols int, scratch []float32) {
	for c0 := 0; c0 < cols; c0 += 16 {
		w := min(16, cols-c0)
		rows := scratch[:w*n]
		ColumnsToRows(rows, src, base+c0, n, stride, w)
		SoftmaxRows32(rows, rows, n)
		RowsToColumns(dst, rows, base+c0, n, stride, w)
	}
}

// ColumnsToRows sets rows[c·n+k] = src[base+k·stride+c] for c < w ≤ 16,
// k < n: w adjacent columns of src as rows, sixteen at a time by
// Transpose16.
func ColumnsToRows(rows, src []float32, base, n, stride, w int) {
	k0 := 0
	if w == 16 {
		for ; k0+16 <= n; k0 += 16 {
			Transpose16(1, rows[k0:], n, src[base+k0*stride:], stride)
		}
	}
	for k := k0; k < n; k++ {
		for c := range w {
			rows[c*n+k] = src[base+k*stride+c]
		}
	}
}

// RowsToColumns is ColumnsToRows' inverse: dst[base+k·stride+c] =
// rows[c·n+k].
func RowsToColumns(dst, rows []float32, base, n, stride, w int) {
	k0 := 0
	if w == 16 {
		for ; k0+16 <= n; k0 += 16 {
			Transpose16(1, dst[base+k0*stride:], stride, rows[k0:], n)
		}
	}
	for k := k0; k < n; k++ {
		for c := range w {
			dst[base+k*stride+c] = rows[c*n+k]
		}
	}
}
