package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&kernels, map[string]kernelEntry{"DeformConv": computesF64(withOp(runDeformConv))})
}

// deformSample is torchvision's bilinear read of one channel plane at
// (y, x): zero when the point is a whole pixel or more outside the map,
// otherwise the four neighbours that lie inside, weighted.
func deformSample(t *tensor, base, height, width int, y, x float64) float64 {
	if y <= -1 || y >= float64(height) || x <= -1 || x >= float64(width) {
		return 0
	}
	y0, x0 := floorInt(y), floorInt(x)
	ly, lx := y-float64(y0), x-float64(x0)
	at := func(yy, xx int) float64 {
		if yy < 0 || xx < 0 || yy >= height || xx >= width {
			return 0
		}
		return t.fl(base + yy*width + xx)
	}
	return (1-ly)*(1-lx)*at(y0, x0) + (1-ly)*lx*at(y0, x0+1) + ly*(1-lx)*at(y0+1, x0) + ly*lx*at(y0+1, x0+1)
}

func floorInt(v float64) int {
	i := int(v)
	if float64(i) > v {
		i--
	}
	return i
}

// runDeformConv computes DeformConv directly in float64: for each output
// position, every input channel's kernel taps are sampled at their
// offsets (times the mask) and multiplied with W.
func runDeformConv(x *exec, op *canon.DeformConv) error {
	in, w, off, bias, mask := x.in(0), x.in(1), x.in(2), x.in(3), x.in(4)
	for _, t := range []struct {
		t    *tensor
		what string
	}{{in, "input X"}, {w, "W"}, {off, "Offset"}, {bias, "B"}, {mask, "Mask"}} {
		if t.t != nil {
			if err := needFloating(t.t, t.what); err != nil {
				return err
			}
		}
	}
	if len(in.shape) != 4 || len(w.shape) != 4 || len(off.shape) != 4 {
		return fmt.Errorf("X %v, W %v and Offset %v must all be 4-D", in.shape, w.shape, off.shape)
	}
	n, c, h, wd := in.shape[0], in.shape[1], in.shape[2], in.shape[3]
	cout, cg, kh, kw := w.shape[0], w.shape[1], w.shape[2], w.shape[3]
	g, og := int(op.Group), int(op.OffsetGroup)
	if c != cg*g || cout%g != 0 || c%og != 0 {
		return fmt.Errorf("X has %d channels, W %v with group %d and offset_group %d do not fit", c, w.shape, g, og)
	}
	sh, sw := int(op.Strides[0]), int(op.Strides[1])
	dh, dw := int(op.Dilations[0]), int(op.Dilations[1])
	ph, pw := int(op.PadsBegin[0]), int(op.PadsBegin[1])
	oh := (h+ph+int(op.PadsEnd[0])-dh*(kh-1)-1)/sh + 1
	ow := (wd+pw+int(op.PadsEnd[1])-dw*(kw-1)-1)/sw + 1
	if oh < 1 || ow < 1 {
		return fmt.Errorf("the kernel %dx%d does not fit the padded input %v", kh, kw, in.shape)
	}
	taps := kh * kw
	if off.shape[0] != n || off.shape[1] != 2*og*taps || off.shape[2] != oh || off.shape[3] != ow {
		return fmt.Errorf("Offset has shape %v, want [%d %d %d %d]", off.shape, n, 2*og*taps, oh, ow)
	}
	if mask != nil && (len(mask.shape) != 4 || mask.shape[0] != n || mask.shape[1] != og*taps || mask.shape[2] != oh || mask.shape[3] != ow) {
		return fmt.Errorf("Mask has shape %v, want [%d %d %d %d]", mask.shape, n, og*taps, oh, ow)
	}
	if bias != nil && (len(bias.shape) != 1 || bias.shape[0] != cout) {
		return fmt.Errorf("B has shape %v, want [%d]", bias.shape, cout)
	}
	if work := float64(n) * float64(oh*ow) * float64(c*taps) * float64(cout/g+1); work > maxDFTWork {
		return fmt.Errorf("the deformable convolution needs %.3g operations, more than the interpreter's %d", work, int64(maxDFTWork))
	}
	out := x.newFloatLike(in, []int{n, cout, oh, ow})
	plane := oh * ow
	cols := make([]float64, c*taps) // the sampled taps of one output position
	perOG := c / og
	coutG := cout / g
	for b := range n {
		for oy := range oh {
			for ox := range ow {
				pos := oy*ow + ox
				for ch := range c {
					grp := ch / perOG
					for i := range kh {
						for j := range kw {
							t := i*kw + j
							oi := ((b*2*og+grp*2)*taps + 2*t) * plane
							dy, dx := off.fl(oi+pos), off.fl(oi+plane+pos)
							y := float64(oy*sh-ph+i*dh) + dy
							xx := float64(ox*sw-pw+j*dw) + dx
							v := deformSample(in, (b*c+ch)*h*wd, h, wd, y, xx)
							if mask != nil {
								v *= mask.fl(((b*og+grp)*taps+t)*plane + pos)
							}
							cols[ch*taps+t] = v
						}
					}
				}
				for o := range cout {
					grp := o / coutG
					var sum float64
					if bias != nil {
						sum = bias.fl(o)
					}
					wBase := o * cg * taps
					cBase := grp * cg * taps
					for k := range cg * taps {
						sum += w.fl(wBase+k) * cols[cBase+k]
					}
					out.setFl((b*cout+o)*plane+pos, sum)
				}
			}
		}
	}
	x.set(0, out)
	return nil
}
