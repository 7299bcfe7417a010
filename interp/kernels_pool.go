package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of LpPool, GlobalLpPool and MaxUnpool, and MaxPool's Indices.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"LpPool": computesF64(func(op canon.Op) kernel {
			o := op.(*canon.LpPool)
			p := &poolAttrs{kernel: o.Kernel, strides: o.Strides, dilations: o.Dilations, padsBegin: o.PadsBegin, padsEnd: o.PadsEnd, ceil: o.CeilMode, lp: o.P}
			return func(x *exec) error { return runPool(x, p) }
		}),
		"GlobalLpPool": float32Only(withOp(runGlobalLpPool)),
		"MaxUnpool":    float32Only(withOp(runMaxUnpool)),
	})
}

// poolIndices is MaxPool's Indices output: for each window the flat offset
// in X of its first maximum (NaN counts as the maximum), batch and channel
// included; the spatial part row-major, or column-major when colMajor.
func poolIndices(x *exec, g *geom3, in *tensor, shape []int, colMajor bool) *tensor {
	out := x.newI(canon.Int64, shape)
	D, H, W := g.in[0], g.in[1], g.in[2]
	inP := g.inSize()
	i := 0
	for p := 0; p < in.shape[0]*in.shape[1]; p++ {
		src := in.f[p*inP : (p+1)*inP]
		for oz := 0; oz < g.out[0]; oz++ {
			for oy := 0; oy < g.out[1]; oy++ {
				for ox := 0; ox < g.out[2]; ox++ {
					best, at := float32(math.Inf(-1)), -1
					for kz := 0; kz < g.k[0]; kz++ {
						iz := oz*g.s[0] - g.pb[0] + kz*g.d[0]
						for ky := 0; ky < g.k[1]; ky++ {
							iy := oy*g.s[1] - g.pb[1] + ky*g.d[1]
							for kx := 0; kx < g.k[2]; kx++ {
								ix := ox*g.s[2] - g.pb[2] + kx*g.d[2]
								if iz < 0 || iz >= D || iy < 0 || iy >= H || ix < 0 || ix >= W {
									continue
								}
								off := (iz*H+iy)*W + ix
								if v := src[off]; at < 0 || v > best || (v != v && best == best) {
									best, at = v, off
								}
							}
						}
					}
					if at >= 0 && colMajor {
						iz, iy, ix := at/(H*W), at/W%H, at%W
						at = iz + iy*D + ix*D*H
					}
					out.i[i] = int64(p*inP + max(at, 0))
					i++
				}
			}
		}
	}
	return out
}

func runGlobalLpPool(x *exec, op *canon.GlobalLpPool) error {
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
	inner := numel(in.shape[2:])
	y := x.newF(shape)
	p := float64(op.P)
	for k := range y.f {
		var s float64
		for _, v := range in.f[k*inner : (k+1)*inner] {
			s += math.Pow(math.Abs(float64(v)), p)
		}
		y.f[k] = float32(math.Pow(s, 1/p))
	}
	x.set(0, y)
	return nil
}

func runMaxUnpool(x *exec, op *canon.MaxUnpool) error {
	in, idx := x.in(0), x.in(1)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	if idx.isFloat() || len(idx.i) != len(in.f) {
		return fmt.Errorf("indices I have shape %v and dtype %s; want i64 of X's shape %v", idx.shape, idx.dt, in.shape)
	}
	ns := len(in.shape) - 2
	if ns < 1 || len(op.Kernel) != ns {
		return fmt.Errorf("X has shape %v, want (N, C) and %d spatial axes", in.shape, len(op.Kernel))
	}
	var shape []int
	if op.OutputShape != nil {
		s, err := toShape(op.OutputShape)
		if err != nil {
			return err
		}
		shape = s
	} else {
		shape = append([]int{}, in.shape[:2]...)
		for i := 0; i < ns; i++ {
			shape = append(shape, (in.shape[2+i]-1)*int(op.Strides[i])+int(op.Kernel[i])-int(op.PadsBegin[i])-int(op.PadsEnd[i]))
		}
	}
	y := x.newZF(shape)
	for k, at := range idx.i {
		if at < 0 || at >= int64(len(y.f)) {
			return fmt.Errorf("index %d at position %d is outside the output of shape %v", at, k, shape)
		}
		y.f[at] = in.f[k]
	}
	x.set(0, y)
	return nil
}
