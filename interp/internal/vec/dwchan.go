package vec

// Depthwise convolution with sixteen channels in the lanes: the input of
// sixteen channels interleaved pixel by pixel (each pixel sixteen floats),
// the window's weights tap by tap (each tap sixteen floats), so that one
// vector fused multiply-add takes a tap for sixteen channels at once. A
// small plane (efficientnet's 7×7 and 14×14 maps) then fills every lane,
// where a plane at a time leaves most of them idle.

// dwChannelsRef sets each output pixel p < n of dst (sixteen floats from
// 16·p) to bias plus, tap by tap in order, w[16t:16t+16] times the sixteen
// floats of src at 16·(origins[p] + offs[t]), each a fused multiply-add.
func dwChannelsRef(n int, offs []int32, w, bias, src []float32, origins []int32, dst []float32) {
	for p := range n {
		for l := range 16 {
			s := bias[l]
			for t, o := range offs {
				s = fma32(w[16*t+l], src[16*int(origins[p]+o)+l], s)
			}
			dst[16*p+l] = s
		}
	}
}

// dwChannelsCheck panics unless every read and write lies inside its
// slice: the assembly trusts them.
func dwChannelsCheck(n int, offs []int32, w, bias, src []float32, origins []int32, dst []float32) {
	_ = bias[15]
	_ = w[16*len(offs)-1]
	_ = dst[16*n-1]
	hiO, hiP := int32(0), int32(0)
	for _, o := range offs {
		if o < 0 {
			panic("vec.DWChannels: negative tap offset")
		}
		hiO = max(hiO, o)
	}
	for _, o := range origins[:n] {
		if o < 0 {
			panic("vec.DWChannels: negative origin")
		}
		hiP = max(hiP, o)
	}
	_ = src[16*int(hiO+hiP)+15]
}
