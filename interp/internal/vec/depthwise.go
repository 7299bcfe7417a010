package vec

// Depthwise family: whole planes of a 2-D 3×3 depthwise convolution with
// unit dilation and horizontal stride 1 or 2, straight from the input
// planes (DW3), and the masks that say which taps of 16 outputs lie inside
// an input row (DW3Masks, shared with the pool family).

// DW3Args describes planes for DW3; the kernels read it at the offsets
// defined in depthwise_amd64.s and advance W, Bias and Planes as they go.
// DW3 sets the pointers, BiasStep and Chunks from its slices; the caller
// sets the geometry.
type DW3Args struct {
	Src, Dst *float32 // the first input and output planes
	W        *float32 // 9 weights a plane, plane after plane
	Bias     *float32 // the first plane's bias
	Masks    *uint16  // MaskRecord uint16s a chunk of 16 outputs
	Perm     *int32   // even then odd places, 16 each (stride 2)
	Planes   int
	InP      int // elements from one input plane to the next
	OutP     int
	BiasStep int // bytes from one plane's bias to the next: 4, or 0 for one shared zero
	H        int
	RowBytes int // input row length in bytes
	OH, OW   int
	SH, PT   int // vertical stride and top pad
	RowOff   int // left pad in bytes
	Chunks   int // chunks of 16 outputs a row
	Lo, Hi   float32
	PFDist   int // how far ahead of the window's first row to prefetch, in bytes
	PFLen    int // input bytes the window moves down a row of outputs
}

// perm holds the even places of 32 floats, then the odd ones.
var perm = func() (p [32]int32) {
	for i := range 16 {
		p[i], p[16+i] = int32(2*i), int32(2*i+1)
	}
	return p
}()

// MaskRecord is the number of masks a chunk of 16 outputs has: for each
// horizontal tap k the outputs whose tap is inside the row (0–2), the
// outputs inside the row (3), and for stride 2 the inputs inside the row
// among the 32 from the chunk's first tap (4–5) and whether the input after
// them is (6, all ones or zero, for a broadcast load); 7 is unused.
const MaskRecord = 8

// DW3Masks builds the mask records of an output row of ow outputs with
// horizontal stride sw and left pad pl over input rows of w elements.
func DW3Masks(ow, w, sw, pl int) []uint16 {
	chunks := (ow + 15) / 16
	m := make([]uint16, chunks*MaskRecord)
	inside := func(first, lanes, step int) (bits uint16) {
		for i := range lanes {
			if ix := first + i*step; ix >= 0 && ix < w {
				bits |= 1 << i
			}
		}
		return bits
	}
	for c := range chunks {
		ox0, rec := 16*c, m[c*MaskRecord:]
		lanes := min(16, ow-ox0)
		for k := range 3 {
			rec[k] = inside(ox0*sw+k-pl, lanes, sw)
		}
		rec[3] = uint16(1<<lanes - 1)
		if sw == 2 {
			base := 2*ox0 - pl
			rec[4], rec[5] = inside(base, 16, 1), inside(base+16, 16, 1)
			if inside(base+32, 1, 1) != 0 {
				rec[6] = 0xffff
			}
		}
	}
	return m
}

// dw3Ref computes a's planes with horizontal stride sw: each output is the
// plane's bias plus the taps inside the input plane (as the masks say) in
// row-major order, each added by a fused multiply-add, then clamped to
// [Lo, Hi] as Go's max and min clamp (a NaN passing through).
func dw3Ref(a *DW3Args, sw int, src, dst, w, bias []float32, masks []uint16) {
	W, pl := a.RowBytes/4, a.RowOff/4
	for p := range a.Planes {
		x, y, wp := src[p*a.InP:], dst[p*a.OutP:], w[9*p:]
		b := bias[0]
		if a.BiasStep != 0 {
			b = bias[p]
		}
		for oy := range a.OH {
			for ox := range a.OW {
				rec := masks[(ox/16)*MaskRecord:]
				lane := uint(ox % 16)
				s := b
				for r := range 3 {
					iy := oy*a.SH - a.PT + r
					if iy < 0 || iy >= a.H {
						continue
					}
					for k := range 3 {
						if rec[k]>>lane&1 != 0 {
							s = fma32(wp[3*r+k], x[iy*W+ox*sw+k-pl], s)
						}
					}
				}
				y[oy*a.OW+ox] = min(max(s, a.Lo), a.Hi)
			}
		}
	}
}

// dw3Bind points a at its slices (bias nil: one shared zero) and checks
// their lengths, which the assembly trusts.
func dw3Bind(a *DW3Args, x, y, w, bias []float32, masks []uint16) []float32 {
	if bias == nil {
		bias, a.BiasStep = []float32{0}, 0
	} else {
		_ = bias[a.Planes-1]
		a.BiasStep = 4
	}
	_ = x[a.Planes*a.InP-1]
	_ = y[a.Planes*a.OutP-1]
	_ = w[a.Planes*9-1]
	a.Chunks = len(masks) / MaskRecord
	_ = masks[a.Chunks*MaskRecord-1]
	a.Src, a.Dst, a.W, a.Bias, a.Masks, a.Perm = &x[0], &y[0], &w[0], &bias[0], &masks[0], &perm[0]
	return bias
}
