package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"GridSample": float32Only(withOp(runGridSample)),
		"AffineGrid": float32Only(withOp(runAffineGrid)),
		"Col2Im":     float32Only(withOp(runCol2Im)),
	})
}

// gridTap is one input index along an axis (-1: a zero read) and its
// weight.
type gridTap struct {
	i int
	w float64
}

// runGridSample follows ONNX GridSample-20 (after PyTorch's grid_sample):
// denormalize, round for nearest (half to even, as ONNX's reference), fold
// coordinates outside the borders back for border and reflection padding,
// then read the taps with the padding rule.
func runGridSample(x *exec, op *canon.GridSample) error {
	in, grid := x.in(0), x.in(1)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	if err := needFloat(grid, "Grid"); err != nil {
		return err
	}
	r := len(in.shape)
	k := r - 2
	if k < 1 || len(grid.shape) != r || grid.shape[r-1] != k || grid.shape[0] != in.shape[0] {
		return fmt.Errorf("X has shape %v and Grid %v: want (N, C, D1..Dk) and (N, O1..Ok, k)", in.shape, grid.shape)
	}
	n, ch := in.shape[0], in.shape[1]
	dims := in.shape[2:]
	outSp := grid.shape[1 : r-1]
	points := numel(outSp)
	outShape := append([]int{n, ch}, outSp...)
	out := x.newF(outShape)
	inner := numel(dims)
	strides := make([]int, k)
	acc := 1
	for a := k - 1; a >= 0; a-- {
		strides[a] = acc
		acc *= dims[a]
	}
	lo, hi := make([]float64, k), make([]float64, k)
	for a, d := range dims {
		lo[a], hi[a] = -0.5, float64(d)-0.5
		if op.AlignCorners {
			lo[a], hi[a] = 0, float64(d-1)
		}
	}
	// Points are independent: each worker takes blocks of them, with its
	// own taps. A block's taps are made once, then each channel's outputs
	// of the block are written in a row from reads near one another in
	// its plane.
	blocks := (points + gridBlock - 1) / gridBlock
	parallelFor(n*blocks, gridBlock*ch*8, func(q0, q1 int) {
		taps := make([][]gridTap, k)
		var planes []gridTaps2D
		var quads *gridQuads
		var inPlane [gridBlock]bool
		var quadAt, planeAt []int
		var bilinear *gridBilinear
		if k == 2 && op.Mode == canon.ResizeLinear && inner <= math.MaxInt32 {
			bilinear = new(gridBilinear)
		} else {
			planes, quads = make([]gridTaps2D, gridBlock), new(gridQuads)
			quadAt, planeAt = make([]int, 0, gridBlock), make([]int, 0, gridBlock)
		}
		for q := q0; q < q1; q++ {
			b, p0 := q/blocks, q%blocks*gridBlock
			p1 := min(points, p0+gridBlock)
			for p := p0; p < p1; p++ {
				g := grid.f[(b*points+p)*k : (b*points+p+1)*k]
				for a := range k {
					d := dims[a]
					v := float64(g[k-1-a])
					if op.AlignCorners {
						v = (v + 1) / 2 * float64(d-1)
					} else {
						v = ((v+1)*float64(d) - 1) / 2
					}
					if op.Mode == canon.ResizeNearest {
						v = math.RoundToEven(v)
					}
					if v < lo[a] || v > hi[a] {
						switch op.Padding {
						case canon.GridBorder:
							v = min(max(v, 0), float64(d-1))
						case canon.GridReflection:
							v = gridReflect(v, lo[a], hi[a])
						}
					}
					taps[a] = gridAxisTaps(taps[a][:0], op, v, d, lo[a], hi[a])
				}
				if bilinear != nil {
					bilinear.set(p-p0, taps, strides[0])
					continue
				}
				plane := &planes[p-p0]
				if inPlane[p-p0] = k == 2 && len(taps[0]) <= len(plane.rows) && len(taps[0])*len(taps[1]) <= len(plane.w); inPlane[p-p0] {
					plane.set(taps, strides[0])
					quads.take(p-p0, plane)
					continue
				}
				for c := 0; c < ch; c++ {
					src := in.f[(b*ch+c)*inner : (b*ch+c+1)*inner]
					out.f[(b*ch+c)*points+p] = float32(gridSum(src, taps, strides, 0, 0, 1))
				}
			}
			if bilinear != nil {
				for c := 0; c < ch; c++ {
					src := in.f[(b*ch+c)*inner : (b*ch+c+1)*inner]
					vec.Quads(out.f[(b*ch+c)*points+p0:(b*ch+c)*points+p1], src, bilinear.off[:], bilinear.w[:], gridBlock)
				}
				continue
			}
			// The block's quads and other in-plane points, listed once so
			// the channel loop runs without a test a point.
			quadAt, planeAt := quadAt[:0], planeAt[:0]
			for i := range p1 - p0 {
				switch {
				case !inPlane[i]:
				case quads.is[i]:
					quadAt = append(quadAt, i)
				default:
					planeAt = append(planeAt, i)
				}
			}
			for c := 0; c < ch; c++ {
				src := in.f[(b*ch+c)*inner : (b*ch+c+1)*inner]
				dst := out.f[(b*ch+c)*points+p0 : (b*ch+c)*points+p1]
				for _, i := range quadAt {
					dst[i] = float32(quads.sum(i, src))
				}
				for _, i := range planeAt {
					dst[i] = float32(planes[i].sum(src))
				}
			}
		}
	})
	x.set(0, out)
	return nil
}

// gridBlock is how many points GridSample lays out taps for at a time.
const gridBlock = 128

// gridTaps2D is a 2-D point's taps laid out once for all channels: the
// reads of each row tap in turn (rows[r] of them), with the weights
// gridSum would use, so that sum adds them in gridSum's order.
type gridTaps2D struct {
	off  [16]int
	w    [16]float64
	rows [4]int
	nrow int
}

// set lays out the valid taps of taps (two axes) over rows of length ld.
func (g *gridTaps2D) set(taps [][]gridTap, ld int) {
	g.nrow = 0
	n := 0
	for _, ty := range taps[0] {
		if ty.i < 0 || ty.w == 0 {
			continue
		}
		start := n
		for _, tx := range taps[1] {
			if tx.i < 0 || tx.w == 0 {
				continue
			}
			g.off[n], g.w[n] = ty.i*ld+tx.i, ty.w*tx.w
			n++
		}
		g.rows[g.nrow] = n - start
		g.nrow++
	}
}

// sum is gridSum of the plane src at the point: each row's products
// summed, then the rows, as gridSum nests them.
func (g *gridTaps2D) sum(src []float32) float64 {
	s, n := 0.0, 0
	for _, cnt := range g.rows[:g.nrow] {
		r := 0.0
		for _, o := range g.off[n : n+cnt] {
			// The conversion rounds the product, as gridSum's return
			// does: without it a GOAMD64=v3 build fuses it into an FMA.
			r += float64(g.w[n] * float64(src[o]))
			n++
		}
		s += r
	}
	return s
}

// gridSum adds the products of the taps of axes a.. at offset off.
func gridSum(src []float32, taps [][]gridTap, strides []int, a, off int, w float64) float64 {
	if a == len(taps) {
		return w * float64(src[off])
	}
	s := 0.0
	for _, t := range taps[a] {
		if t.i < 0 || t.w == 0 {
			continue
		}
		s += gridSum(src, taps, strides, a+1, off+t.i*strides[a], w*t.w)
	}
	return s
}

// gridAxisTaps lists the reads of one axis at coordinate v.
func gridAxisTaps(dst []gridTap, op *canon.GridSample, v float64, d int, lo, hi float64) []gridTap {
	at := func(i int, w float64) gridTap {
		switch op.Padding {
		case canon.GridBorder:
			i = min(max(i, 0), d-1)
		case canon.GridReflection:
			i = int(gridReflect(float64(i), lo, hi))
			i = min(max(i, 0), d-1)
		default:
			if i < 0 || i >= d {
				i = -1
			}
		}
		return gridTap{i, w}
	}
	switch op.Mode {
	case canon.ResizeNearest:
		return append(dst, at(int(v), 1))
	case canon.ResizeLinear:
		f := math.Floor(v)
		t := v - f
		return append(dst, at(int(f), 1-t), at(int(f)+1, t))
	}
	f := math.Floor(v)
	t := v - f
	const a = -0.75
	t1, t2, q := t+1, 2-t, 1-t
	ws := [4]float64{
		((a*t1-5*a)*t1+8*a)*t1 - 4*a,
		((a+2)*t-(a+3))*t*t + 1,
		((a+2)*q-(a+3))*q*q + 1,
		((a*t2-5*a)*t2+8*a)*t2 - 4*a,
	}
	for j, w := range ws {
		dst = append(dst, at(int(f)-1+j, w))
	}
	return dst
}

// gridReflect folds v into [lo, hi] by reflecting at the borders.
func gridReflect(v, lo, hi float64) float64 {
	rng := hi - lo
	if rng <= 0 {
		return lo
	}
	if v < lo {
		dx := lo - v
		n := math.Floor(dx / rng)
		r := dx - n*rng
		if math.Mod(n, 2) == 0 {
			return lo + r
		}
		return hi - r
	}
	if v > hi {
		dx := v - hi
		n := math.Floor(dx / rng)
		r := dx - n*rng
		if math.Mod(n, 2) == 0 {
			return hi - r
		}
		return lo + r
	}
	return v
}

// affineBase is the normalized coordinate of index i of d points.
func affineBase(i, d int, align bool) float64 {
	if align {
		if d <= 1 {
			return -1 // ONNX's arange(-1, 1, 2/(d-1)) starts at -1; torch uses 0
		}
		return -1 + 2*float64(i)/float64(d-1)
	}
	return (2*float64(i)+1)/float64(d) - 1
}

func runAffineGrid(x *exec, op *canon.AffineGrid) error {
	th := x.in(0)
	if err := needFloat(th, "Theta"); err != nil {
		return err
	}
	size, err := x.intsParam(1, op.Size, "size")
	if err != nil {
		return err
	}
	if len(size) != 4 && len(size) != 5 {
		return fmt.Errorf("size %v: want (N, C, H, W) or (N, C, D, H, W)", size)
	}
	k := len(size) - 2
	if len(th.shape) != 3 || th.shape[0] != int(size[0]) || th.shape[1] != k || th.shape[2] != k+1 {
		return fmt.Errorf("theta has shape %v; for size %v want (%d, %d, %d)", th.shape, size, size[0], k, k+1)
	}
	sp := make([]int, k)
	for i, s := range size[2:] {
		if s < 0 || s > math.MaxInt32 {
			return fmt.Errorf("size %v: invalid size", size)
		}
		sp[i] = int(s)
	}
	outShape := append(append([]int{int(size[0])}, sp...), k)
	out := x.newF(outShape)
	points := numel(sp)
	idx := make([]int, k)
	base := make([]float64, k+1)
	for b := 0; b < int(size[0]); b++ {
		t := th.f[b*k*(k+1) : (b+1)*k*(k+1)]
		clear(idx)
		for p := 0; p < points; p++ {
			// (x, y[, z], 1): x runs along the last axis.
			for a := range k {
				base[a] = affineBase(idx[k-1-a], sp[k-1-a], op.AlignCorners)
			}
			base[k] = 1
			o := out.f[(b*points+p)*k : (b*points+p+1)*k]
			for row := range k {
				s := 0.0
				for j := 0; j <= k; j++ {
					s += float64(t[row*(k+1)+j]) * base[j]
				}
				o[row] = float32(s)
			}
			for a := k - 1; a >= 0; a-- {
				idx[a]++
				if idx[a] < sp[a] {
					break
				}
				idx[a] = 0
			}
		}
	}
	x.set(0, out)
	return nil
}

func runCol2Im(x *exec, op *canon.Col2Im) error {
	in := x.in(0)
	if err := needFloat(in, "input"); err != nil {
		return err
	}
	image, err := x.intsParam(1, op.ImageShape, "image_shape")
	if err != nil {
		return err
	}
	block, err := x.intsParam(2, op.BlockShape, "block_shape")
	if err != nil {
		return err
	}
	p, err := op.Plan(image, block)
	if err != nil {
		return err
	}
	if len(in.shape) != 3 || int64(in.shape[1])%p.BlockSize != 0 || int64(in.shape[2]) != p.L {
		return fmt.Errorf("input has shape %v; want (N, C·%d, %d)", in.shape, p.BlockSize, p.L)
	}
	n, K, L := in.shape[0], int(p.BlockSize), int(p.L)
	ch := in.shape[1] / K
	k := len(image)
	outShape := []int{n, ch}
	for _, s := range image {
		if s > math.MaxInt32 {
			return fmt.Errorf("image shape %v is too large", image)
		}
		outShape = append(outShape, int(s))
	}
	out := x.newZF(outShape)
	pix := numel(outShape[2:])
	bi := make([]int, k) // index within the block
	li := make([]int, k) // block position
	for b := 0; b < n; b++ {
		for c := 0; c < ch; c++ {
			dst := out.f[(b*ch+c)*pix : (b*ch+c+1)*pix]
			clear(bi)
			for kk := 0; kk < K; kk++ {
				row := in.f[((b*ch+c)*K+kk)*L : ((b*ch+c)*K+kk+1)*L]
				clear(li)
				for l := 0; l < L; l++ {
					off, ok := 0, true
					for a := range k {
						pos := int64(li[a])*p.Strides[a] + int64(bi[a])*p.Dilations[a] - p.PadsBegin[a]
						if pos < 0 || pos >= image[a] {
							ok = false
							break
						}
						off = off*int(image[a]) + int(pos)
					}
					if ok {
						dst[off] += row[l]
					}
					for a := k - 1; a >= 0; a-- {
						li[a]++
						if int64(li[a]) < p.Blocks[a] {
							break
						}
						li[a] = 0
					}
				}
				for a := k - 1; a >= 0; a-- {
					bi[a]++
					if int64(bi[a]) < block[a] {
						break
					}
					bi[a] = 0
				}
			}
		}
	}
	x.set(0, out)
	return nil
}
