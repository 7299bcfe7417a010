package vec

// Pool family: whole planes of a 2-D max or average pool with windows up
// to 3 wide, unit dilation and horizontal stride 1 or 2, straight from the
// input planes (Pool2).

// Pool2Args describes planes for Pool2; the kernel reads it at the offsets
// defined in pool_amd64.s and writes From1 and Rows as it goes. Pool2 sets
// the pointers and Chunks from its slices; the caller sets the geometry.
type Pool2Args struct {
	Src, Dst *float32 // the first input and output planes
	Masks    *uint16  // MaskRecord uint16s a chunk of 16 outputs (taps past the window's width cleared)
	Perm     *int32   // even then odd places, 16 each (stride 2)
	ColDiv   *float32 // an average's divisor factor of each output column, 16 a chunk
	RowDiv   *float32 // an average's divisor factor of each output row
	Planes   int
	InP      int // elements from one input plane to the next
	OutP     int
	H        int
	RowBytes int // input row length in bytes
	OH, OW   int
	KH       int
	SH, PT   int // vertical stride and top pad
	RowOff   int // left pad in bytes
	Chunks   int // chunks of 16 outputs a row
	ChunkIn  int // input bytes from one chunk's first tap to the next's: 64·stride
	IsMax    int // 1 for a max pool, 0 for an average
	Start    float32
	_        float32
	PFDist   int // how far ahead of the window's first row to prefetch, in bytes
	PFLen    int // input bytes the window moves down a row of outputs
	From1    int // (kernel's) the first window row of the pass's second output row
	Rows     int // (kernel's) window rows the pass reads
}

// pool2Ref computes a's planes: each output starts at Start and takes its
// window's taps inside the input plane (as the masks say) in window order,
// a max taking a tap that is greater or NaN, an average adding it and
// then dividing by RowDiv[oy]·ColDiv[ox] (their product in float32).
func pool2Ref(a *Pool2Args, src, dst []float32, masks []uint16, colDiv, rowDiv []float32) {
	W, pl, sw := a.RowBytes/4, a.RowOff/4, a.ChunkIn/64
	for p := range a.Planes {
		x, y := src[p*a.InP:], dst[p*a.OutP:]
		for oy := range a.OH {
			for ox := range a.OW {
				rec := masks[(ox/16)*MaskRecord:]
				lane := uint(ox % 16)
				s := a.Start
				for r := range a.KH {
					iy := oy*a.SH - a.PT + r
					if iy < 0 || iy >= a.H {
						continue
					}
					for k := range 3 {
						if rec[k]>>lane&1 == 0 {
							continue
						}
						v := x[iy*W+ox*sw+k-pl]
						switch {
						case a.IsMax == 0:
							s += v
						case v > s || v != v:
							s = v
						}
					}
				}
				if a.IsMax == 0 {
					s /= rowDiv[oy] * colDiv[ox]
				}
				y[oy*a.OW+ox] = s
			}
		}
	}
}

// pool2Bind points a at its slices and checks their lengths, which the
// assembly trusts.
func pool2Bind(a *Pool2Args, x, y []float32, masks []uint16, colDiv, rowDiv []float32) {
	_ = x[a.Planes*a.InP-1]
	_ = y[a.Planes*a.OutP-1]
	a.Chunks = len(masks) / MaskRecord
	_ = masks[a.Chunks*MaskRecord-1]
	_ = colDiv[16*a.Chunks-1]
	_ = rowDiv[a.OH-1]
	a.Src, a.Dst, a.Masks, a.Perm, a.ColDiv, a.RowDiv = &x[0], &y[0], &masks[0], &perm[0], &colDiv[0], &rowDiv[0]
}
