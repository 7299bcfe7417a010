package vec

// stripMoveRef sets the first cols elements of each of rows rows of dst
// (row stride ldd) to bias[j] + src[r·lds + j] when bias is not nil (else
// src's value), then to res[r·ldd + j] + that when res is not nil: the
// move of a finished GEMM strip out of a scratch C, with a bias Add over
// the last axis and a residual Add in the graph's float32 order.
func stripMoveRef(dst []float32, ldd int, src []float32, lds, rows, cols int, bias, res []float32) {
	for r := range rows {
		d, s := dst[r*ldd:r*ldd+cols], src[r*lds:r*lds+cols]
		for j, v := range s {
			if bias != nil {
				v = bias[j] + v
			}
			if res != nil {
				v = res[r*ldd+j] + v
			}
			d[j] = v
		}
	}
}
