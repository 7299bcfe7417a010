//go:build !noasm

package vec

import "unsafe"

//go:noescape
func dwChannelsAVX512(n, taps int, offs *int32, w, bias, src *float32, origins *int32, dst *float32)

// DWChannels is dwChannelsRef, four pixels at a time in AVX-512 where
// there is. n need not be a multiple of four.
func DWChannels(n int, offs []int32, w, bias, src []float32, origins []int32, dst []float32) {
	if !UseAVX512 || n <= 0 || len(offs) == 0 {
		dwChannelsRef(n, offs, w, bias, src, origins, dst)
		return
	}
	dwChannelsCheck(n, offs, w, bias, src, origins, dst)
	v := n &^ 3
	if v > 0 {
		dwChannelsAVX512(v, len(offs), unsafe.SliceData(offs), unsafe.SliceData(w), unsafe.SliceData(bias),
			unsafe.SliceData(src), unsafe.SliceData(origins), unsafe.SliceData(dst))
	}
	if v == n {
		return
	}
	// The last one to three pixels as a group of four, the last repeated.
	var o4 [4]int32
	var d4 [64]float32
	for i := range o4 {
		o4[i] = origins[min(v+i, n-1)]
	}
	dwChannelsAVX512(4, len(offs), unsafe.SliceData(offs), unsafe.SliceData(w), unsafe.SliceData(bias),
		unsafe.SliceData(src), &o4[0], &d4[0])
	copy(dst[16*v:16*n], d4[:])
}
