package interp

import "github.com/modelbridge/modelbridge/interp/internal/vec"

// Depthwise convolutions on small planes with sixteen channels in the
// vector lanes (vec.DWChannels): a block of sixteen channels is
// transposed into one padded image of sixteen-float pixels, each output
// pixel is its bias plus the window's taps in row-major order, each a
// fused multiply-add of sixteen channels at once, and the block is
// transposed back into its planes. The sums, their order and the pads'
// zeros are the taps path's (depthwiseRows), so the results are its bits;
// a 7×7 plane there fills 49 of a run's 80 lanes and pays a fill and a
// copy for each plane, here every lane counts.

// dwChannelsMaxPlane is the largest output plane the channels path takes
// (BenchmarkDepthwiseLarge: it wins up to 14×14 and loses at 28×28).
var dwChannelsMaxPlane = 14 * 14

// depthwiseChannelsFits reports a depthwise convolution the channels
// path takes: a 2-D window other than 3×3 over a small plane (output and
// input: a block holds sixteen input planes twice, padded and not), with
// finite weights (the pads' zeros times an infinite weight would be NaN
// where the definition leaves the tap out), channels in whole blocks of
// sixteen, and AVX-512.
func depthwiseChannelsFits(g *geom3, c int, finite bool) bool {
	return useAVX512 && c%16 == 0 && depthwiseRowsFitsFinite(g, finite) &&
		g.outSize() <= dwChannelsMaxPlane && g.inSize() <= 4*dwChannelsMaxPlane
}

// depthwiseChannels computes a depthwise convolution depthwiseChannelsFits
// takes, blocks of sixteen channels split between cores.
func depthwiseChannels(g *geom3, x, w, bias, y []float32, n, c int, ep clampEp) {
	P, inP, K := g.outSize(), g.inSize(), g.kernelSize()
	if P == 0 {
		return
	}
	H, W, OH, OW := g.in[1], g.in[2], g.out[1], g.out[2]
	pt, pl := g.pb[1], g.pb[2]
	hp, wp := H+pt+g.pe[1], W+pl+g.pe[2]
	// Taps and output pixels as pixel offsets into the padded image.
	offs := make([]int32, 0, K)
	for ky := range g.k[1] {
		for kx := range g.k[2] {
			offs = append(offs, int32(ky*g.d[1]*wp+kx*g.d[2]))
		}
	}
	origins := make([]int32, 0, P)
	for oy := range OH {
		for ox := range OW {
			origins = append(origins, int32(oy*g.s[1]*wp+ox*g.s[2]))
		}
	}
	// The clamp, then a residual (which clamps after its sum), as the taps
	// path applies them.
	lo, hi := ep.bounds()
	clamps := ep.clamp && ep.res == nil
	blocks := c / 16
	parallelFor(n*blocks, 16*P*K, func(b0, b1 int) {
		padded, pixels, out := 16*hp*wp, 16*inP, 16*P
		pb := getPack(padded + pixels + out + 16*K + 16)
		defer packPool.Put(pb)
		buf := *pb
		img, in, sums := buf[:padded], buf[padded:padded+pixels], buf[padded+pixels:padded+pixels+out]
		wt, b16 := buf[padded+pixels+out:][:16*K], buf[padded+pixels+out+16*K:][:16]
		clear(img) // the pads stay zero; each block writes the inside
		for blk := b0; blk < b1; blk++ {
			c0 := blk % blocks * 16
			first := blk/blocks*c + c0                           // the block's first plane
			vec.RowsToColumns(in, x[first*inP:], 0, inP, 16, 16) // pixel by pixel
			for iy := range H {
				copy(img[16*((iy+pt)*wp+pl):], in[16*iy*W:16*(iy+1)*W])
			}
			vec.RowsToColumns(wt, w[c0*K:], 0, K, 16, 16)
			clear(b16)
			if bias != nil {
				copy(b16, bias[c0:c0+16])
			}
			vec.DWChannels(P, offs, wt, b16, img, origins, sums)
			planes := y[first*P : (first+16)*P]
			vec.ColumnsToRows(planes, sums, 0, P, 16, 16)
			if clamps {
				vec.CopyRowsClamp(planes, 16*P, planes, 16*P, 1, 16*P, lo, hi)
			}
			if ep.res != nil {
				ep.at(first*P).apply(planes, 16*P, nil, 0, 1, 0, 16*P)
			}
		}
	})
}
