package interp

import (
	"fmt"
	"math"
	"sort"
)

type poolAttrs struct {
	kernel, strides, dilations, padsBegin, padsEnd []int64
	ceil, max, includePad, colMajor                bool
	// lp, when > 0, makes the pool the lp-norm of each window.
	lp int64
}

func runPool(x *exec, a *poolAttrs) error {
	orig := x.in(0)
	if len(orig.shape) < 3 {
		return fmt.Errorf("X has shape %v, want (N, C, spatial...)", orig.shape)
	}
	if !orig.isFloat() && !a.max || a.lp > 0 && !orig.isFloat() {
		return fmt.Errorf("X is %s, want a floating-point tensor", orig.dt)
	}
	g, err := newGeom3(orig.shape, a.kernel, a.strides, a.dilations, a.padsBegin, a.padsEnd)
	if err != nil {
		return err
	}
	for i := range 3 {
		ext := (g.k[i]-1)*g.d[i] + 1
		span := g.in[i] + g.pb[i] + g.pe[i] - ext
		if span < 0 {
			return fmt.Errorf("window extent %d is larger than the padded input %d", ext, g.in[i]+g.pb[i]+g.pe[i])
		}
		if a.ceil {
			g.out[i] = (span+g.s[i]-1)/g.s[i] + 1
			// ONNX/PyTorch rule: the last window must start inside the
			// input or its left padding.
			if (g.out[i]-1)*g.s[i] >= g.in[i]+g.pb[i] {
				g.out[i]--
			}
		} else {
			g.out[i] = span/g.s[i] + 1
		}
	}
	in := x.asFloat(orig)
	planes := in.shape[0] * in.shape[1]
	y := x.newF(g.outShape(in.shape, in.shape[0], in.shape[1]))
	P, inP, K := g.outSize(), g.inSize(), g.kernelSize()
	parallelFor(planes, P*K, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			poolPlane(g, a, in.f[p*inP:(p+1)*inP], y.f[p*P:(p+1)*P])
		}
	})
	if a.max && x.nout() > 1 {
		x.set(1, poolIndices(x, g, in, y.shape, a.colMajor))
	}
	if in != orig {
		x.p.pool.put(in)
		y = x.backToInt(y, orig.dt)
	}
	x.set(0, y)
	return nil
}

func poolPlane(g *geom3, a *poolAttrs, src, dst []float32) {
	if a.max && g.in[0] == 1 && g.k[0] == 1 && g.out[0] == 1 {
		maxPlane2D(g, src, dst)
		return
	}
	D, H, W := g.in[0], g.in[1], g.in[2]
	OD, OH, OW := g.out[0], g.out[1], g.out[2]
	negInf := float32(math.Inf(-1))
	i := 0
	for oz := 0; oz < OD; oz++ {
		z0 := oz*g.s[0] - g.pb[0]
		for oy := 0; oy < OH; oy++ {
			y0 := oy*g.s[1] - g.pb[1]
			for ox := 0; ox < OW; ox++ {
				x0 := ox*g.s[2] - g.pb[2]
				m := negInf
				var sum float32
				var lpSum float64
				n, padded := 0, 0
				for kz := 0; kz < g.k[0]; kz++ {
					iz := z0 + kz*g.d[0]
					zin := iz >= 0 && iz < D
					zpad := iz < D+g.pe[0]
					for ky := 0; ky < g.k[1]; ky++ {
						iy := y0 + ky*g.d[1]
						yin := zin && iy >= 0 && iy < H
						ypad := zpad && iy < H+g.pe[1]
						for kx := 0; kx < g.k[2]; kx++ {
							ix := x0 + kx*g.d[2]
							if ypad && ix < W+g.pe[2] {
								padded++ // inside input or explicit pads, not ceil overhang
							}
							if !yin || ix < 0 || ix >= W {
								continue
							}
							v := src[(iz*H+iy)*W+ix]
							m = max(m, v)
							sum += v
							if a.lp > 0 {
								lpSum += math.Pow(math.Abs(float64(v)), float64(a.lp))
							}
							n++
						}
					}
				}
				switch {
				case a.lp > 0:
					dst[i] = float32(math.Pow(lpSum, 1/float64(a.lp)))
				case a.max:
					dst[i] = m
				case a.includePad:
					dst[i] = sum / float32(padded)
				case n == 0:
					dst[i] = 0
				default:
					dst[i] = sum / float32(n)
				}
				i++
			}
		}
	}
}

func runGlobalPool(x *exec, isMax bool) error {
	in := x.in(0)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	if len(in.shape) < 2 {
		return fmt.Errorf("X has shape %v, want (N, C, spatial...)", in.shape)
	}
	shape := append([]int{}, in.shape...)
	for i := 2; i < len(shape); i++ {
		shape[i] = 1
	}
	planes := in.shape[0] * in.shape[1]
	inner := numel(in.shape[2:])
	y := x.newF(shape)
	for p := 0; p < planes; p++ {
		src := in.f[p*inner : (p+1)*inner]
		if isMax {
			m := float32(math.Inf(-1))
			for _, v := range src {
				m = max(m, v)
			}
			y.f[p] = m
			continue
		}
		var s float64
		for _, v := range src {
			s += float64(v)
		}
		y.f[p] = float32(s / float64(inner))
	}
	x.set(0, y)
	return nil
}

// sortedAxes normalizes, sorts and checks for duplicates.
func sortedAxes(axes []int64, rank int) ([]int, error) {
	out := make([]int, len(axes))
	for i, a := range axes {
		n, err := normAxis(a, rank)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	sort.Ints(out)
	for i := 1; i < len(out); i++ {
		if out[i] == out[i-1] {
			return nil, fmt.Errorf("axes %v repeat axis %d", axes, out[i])
		}
	}
	return out, nil
}

// maxPlane2D is poolPlane for 2-D max pooling: windows that lie wholly
// inside the input (nearly all of them) skip the bounds and padding
// bookkeeping of the general loop.
func maxPlane2D(g *geom3, src, dst []float32) {
	H, W := g.in[1], g.in[2]
	OH, OW := g.out[1], g.out[2]
	kh, kw, sh, sw, dh, dw := g.k[1], g.k[2], g.s[1], g.s[2], g.d[1], g.d[2]
	negInf := float32(math.Inf(-1))
	for oy := 0; oy < OH; oy++ {
		y0 := oy*sh - g.pb[1]
		rowInside := y0 >= 0 && y0+(kh-1)*dh < H
		out := dst[oy*OW : (oy+1)*OW]
		for ox := range out {
			x0 := ox*sw - g.pb[2]
			m := negInf
			if rowInside && x0 >= 0 && x0+(kw-1)*dw < W {
				for ky := 0; ky < kh; ky++ {
					row := src[(y0+ky*dh)*W+x0:]
					for kx := 0; kx < kw; kx++ {
						if v := row[kx*dw]; v > m || v != v {
							m = v
						}
					}
				}
				out[ox] = m
				continue
			}
			for ky := 0; ky < kh; ky++ {
				iy := y0 + ky*dh
				if iy < 0 || iy >= H {
					continue
				}
				for kx := 0; kx < kw; kx++ {
					ix := x0 + kx*dw
					if ix < 0 || ix >= W {
						continue
					}
					if v := src[iy*W+ix]; v > m || v != v {
						m = v
					}
				}
			}
			out[ox] = m
		}
	}
}
