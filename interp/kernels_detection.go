package interp

import (
	"fmt"
	"math"
	"sort"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"RoiAlign":          float32Only(withOp(runRoiAlign)),
		"NonMaxSuppression": float32Only(withOp(runNMS)),
	})
}

// roiSample is one bilinear sample: four flat offsets into a channel and
// their weights (all zero for a sample outside the map).
type roiSample struct {
	pos [4]int
	w   [4]float64
}

// roiSamples lists the samples of every bin of one region, bin by bin, as
// ONNX's reference and ONNX Runtime compute them: the geometry in float32
// (a region whose size is a whole number of bins in float64 may not be in
// float32, which changes the adaptive sample count).
func roiSamples(op *canon.RoiAlign, roi []float32, height, width int) (samples []roiSample, perBin int, err error) {
	var offset float32
	if op.HalfPixel {
		offset = 0.5
	}
	scale := op.SpatialScale
	x0, y0 := roi[0]*scale-offset, roi[1]*scale-offset
	x1, y1 := roi[2]*scale-offset, roi[3]*scale-offset
	rw, rh := x1-x0, y1-y0
	if !op.HalfPixel {
		rw, rh = max(rw, 1), max(rh, 1)
	}
	ph, pw := int(op.OutputHeight), int(op.OutputWidth)
	binH, binW := rh/float32(ph), rw/float32(pw)
	gh, gw := int(op.SamplingRatio), int(op.SamplingRatio)
	if op.SamplingRatio <= 0 {
		gh, gw = int(math.Ceil(float64(rh/float32(ph)))), int(math.Ceil(float64(rw/float32(pw))))
	}
	if n := float64(ph) * float64(pw) * math.Max(float64(rh/float32(ph)), 1) * math.Max(float64(rw/float32(pw)), 1); op.SamplingRatio <= 0 && !(n <= maxRoiSamples) {
		return nil, 0, fmt.Errorf("region %v needs %.3g adaptive samples (more than %d): its coordinates are out of proportion to the map", roi, n, maxRoiSamples)
	}
	gh, gw = max(gh, 0), max(gw, 0)
	if n := ph * pw * gh * gw; n > maxRoiSamples {
		return nil, 0, fmt.Errorf("region %v needs %d samples, more than %d", roi, n, maxRoiSamples)
	}
	samples = make([]roiSample, 0, ph*pw*gh*gw)
	for by := 0; by < ph; by++ {
		for bx := 0; bx < pw; bx++ {
			for iy := 0; iy < gh; iy++ {
				y := y0 + float32(by)*binH + float32(float64(iy)+0.5)*binH/float32(gh)
				for ix := 0; ix < gw; ix++ {
					x := x0 + float32(bx)*binW + float32(float64(ix)+0.5)*binW/float32(gw)
					samples = append(samples, bilinearSample(y, x, height, width))
				}
			}
		}
	}
	return samples, gh * gw, nil
}

// maxRoiSamples bounds the samples of one region: adaptive sampling of a
// region with absurd coordinates would otherwise allocate without limit.
const maxRoiSamples = 1 << 24

func bilinearSample(y, x float32, height, width int) roiSample {
	if y < -1 || y > float32(height) || x < -1 || x > float32(width) {
		return roiSample{}
	}
	y, x = max(y, 0), max(x, 0)
	yl, xl := int(y), int(x)
	yh, xh := yl+1, xl+1
	if yl >= height-1 {
		yl, yh, y = height-1, height-1, float32(height-1)
	}
	if xl >= width-1 {
		xl, xh, x = width-1, width-1, float32(width-1)
	}
	ly, lx := y-float32(yl), x-float32(xl)
	hy, hx := 1-ly, 1-lx
	return roiSample{pos: [4]int{yl*width + xl, yl*width + xh, yh*width + xl, yh*width + xh},
		w: [4]float64{float64(hy * hx), float64(hy * lx), float64(ly * hx), float64(ly * lx)}}
}

func runRoiAlign(x *exec, op *canon.RoiAlign) error {
	in, rois, idx := x.in(0), x.in(1), x.in(2)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	if err := needFloat(rois, "rois"); err != nil {
		return err
	}
	if len(in.shape) != 4 || len(rois.shape) != 2 || rois.shape[1] != 4 || idx.isFloat() || len(idx.shape) != 1 || idx.shape[0] != rois.shape[0] {
		return fmt.Errorf("X %v, rois %v and batch_indices %v: want (N, C, H, W), (R, 4) and R integer indices", in.shape, rois.shape, idx.shape)
	}
	n, ch, h, w := in.shape[0], in.shape[1], in.shape[2], in.shape[3]
	R, ph, pw := rois.shape[0], int(op.OutputHeight), int(op.OutputWidth)
	out := x.newF([]int{R, ch, ph, pw})
	for r := 0; r < R; r++ {
		b := idx.i[r]
		if b < 0 || b >= int64(n) {
			return fmt.Errorf("batch_indices[%d] is %d; X has %d images", r, b, n)
		}
		samples, perBin, err := roiSamples(op, rois.f[r*4:r*4+4], h, w)
		if err != nil {
			return err
		}
		count := float64(max(perBin, 1))
		for c := 0; c < ch; c++ {
			plane := in.f[(int(b)*ch+c)*h*w:][:h*w]
			dst := out.f[(r*ch+c)*ph*pw:][:ph*pw]
			for bin := range dst {
				var acc float64
				for k, s := range samples[bin*perBin : (bin+1)*perBin] {
					if op.Max {
						v := math.Max(math.Max(s.w[0]*float64(plane[s.pos[0]]), s.w[1]*float64(plane[s.pos[1]])),
							math.Max(s.w[2]*float64(plane[s.pos[2]]), s.w[3]*float64(plane[s.pos[3]])))
						if k == 0 || v > acc {
							acc = v
						}
						continue
					}
					acc += s.w[0]*float64(plane[s.pos[0]]) + s.w[1]*float64(plane[s.pos[1]]) + s.w[2]*float64(plane[s.pos[2]]) + s.w[3]*float64(plane[s.pos[3]])
				}
				if !op.Max {
					acc /= count
				}
				dst[bin] = float32(acc)
			}
		}
	}
	x.set(0, out)
	return nil
}

// box is a box as (y1, x1, y2, x2) with y1 <= y2 and x1 <= x2.
type box [4]float64

func readBox(v []float32, center bool) box {
	if center {
		xc, yc, w, h := float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])
		return box{yc - h/2, xc - w/2, yc + h/2, xc + w/2}
	}
	return box{math.Min(float64(v[0]), float64(v[2])), math.Min(float64(v[1]), float64(v[3])),
		math.Max(float64(v[0]), float64(v[2])), math.Max(float64(v[1]), float64(v[3]))}
}

func iou(a, b box) float64 {
	areaA := (a[2] - a[0]) * (a[3] - a[1])
	areaB := (b[2] - b[0]) * (b[3] - b[1])
	if areaA <= 0 || areaB <= 0 {
		return 0
	}
	ih := math.Min(a[2], b[2]) - math.Max(a[0], b[0])
	iw := math.Min(a[3], b[3]) - math.Max(a[1], b[1])
	if ih <= 0 || iw <= 0 {
		return 0
	}
	inter := ih * iw
	return inter / (areaA + areaB - inter)
}

// scalarIn reads optional scalar input k as float64 (def when absent).
func scalarIn(t *tensor, def float64, what string) (float64, error) {
	if t == nil {
		return def, nil
	}
	if t.size() != 1 {
		return 0, fmt.Errorf("%s has shape %v; want one value", what, t.shape)
	}
	if t.isFloat() {
		return float64(t.f[0]), nil
	}
	return float64(t.i[0]), nil
}

func runNMS(x *exec, op *canon.NonMaxSuppression) error {
	boxes, scores := x.in(canon.NMSBoxes), x.in(canon.NMSScores)
	if err := needFloat(boxes, "boxes"); err != nil {
		return err
	}
	if err := needFloat(scores, "scores"); err != nil {
		return err
	}
	if len(boxes.shape) != 3 || boxes.shape[2] != 4 || len(scores.shape) != 3 || scores.shape[0] != boxes.shape[0] || scores.shape[2] != boxes.shape[1] {
		return fmt.Errorf("boxes %v and scores %v: want (batch, boxes, 4) and (batch, classes, boxes)", boxes.shape, scores.shape)
	}
	maxOut, err := scalarIn(x.in(canon.NMSMaxOutput), 0, "max_output_boxes_per_class")
	if err != nil {
		return err
	}
	iouMax, err := scalarIn(x.in(canon.NMSIoUThreshold), 0, "iou_threshold")
	if err != nil {
		return err
	}
	scoreMin, err := scalarIn(x.in(canon.NMSScoreThreshold), math.Inf(-1), "score_threshold")
	if err != nil {
		return err
	}
	hasScoreMin := x.in(canon.NMSScoreThreshold) != nil
	B, C, N := scores.shape[0], scores.shape[1], boxes.shape[1]
	limit := int(min(maxOut, float64(N)))
	var rows []int64
	order := make([]int, 0, N)
	var kept []int
	for b := 0; b < B; b++ {
		bx := make([]box, N)
		for i := range bx {
			bx[i] = readBox(boxes.f[(b*N+i)*4:][:4], op.CenterPointBox)
		}
		for c := 0; c < C; c++ {
			sc := scores.f[(b*C+c)*N:][:N]
			order = order[:0]
			for i, s := range sc {
				if !hasScoreMin || float64(s) > scoreMin {
					order = append(order, i)
				}
			}
			// Highest score first; equal scores by box index.
			sort.SliceStable(order, func(i, j int) bool { return sc[order[i]] > sc[order[j]] })
			kept = kept[:0]
			for _, i := range order {
				if len(kept) >= limit {
					break
				}
				ok := true
				for _, k := range kept {
					if iou(bx[i], bx[k]) > iouMax {
						ok = false
						break
					}
				}
				if ok {
					kept = append(kept, i)
					rows = append(rows, int64(b), int64(c), int64(i))
				}
			}
		}
	}
	out := x.newI(canon.Int64, []int{len(rows) / 3, 3})
	copy(out.i, rows)
	x.set(0, out)
	return nil
}

func init() {
	optable.Add(&kernels, map[string]kernelEntry{"MaxRoiPool": float32Only(withOp(runMaxRoiPool))})
}

func runMaxRoiPool(x *exec, op *canon.MaxRoiPool) error {
	in, rois := x.in(0), x.in(1)
	if err := needFloat(in, "X"); err != nil {
		return err
	}
	if err := needFloat(rois, "rois"); err != nil {
		return err
	}
	if len(in.shape) != 4 || len(rois.shape) != 2 || rois.shape[1] != 5 {
		return fmt.Errorf("X %v and rois %v: want (N, C, H, W) and (R, 5)", in.shape, rois.shape)
	}
	n, ch, h, w := in.shape[0], in.shape[1], in.shape[2], in.shape[3]
	R, ph, pw := rois.shape[0], int(op.PooledHeight), int(op.PooledWidth)
	out := x.newF([]int{R, ch, ph, pw})
	scale := float64(op.SpatialScale)
	clamp := func(v, hi int) int { return min(max(v, 0), hi) }
	for r := 0; r < R; r++ {
		roi := rois.f[r*5 : r*5+5]
		b := int(roi[0])
		if b < 0 || b >= n {
			return fmt.Errorf("rois[%d] names image %d; X has %d", r, b, n)
		}
		x0, y0 := int(math.Round(float64(roi[1])*scale)), int(math.Round(float64(roi[2])*scale))
		x1, y1 := int(math.Round(float64(roi[3])*scale)), int(math.Round(float64(roi[4])*scale))
		rh, rw := max(y1-y0+1, 1), max(x1-x0+1, 1)
		binH, binW := float64(rh)/float64(ph), float64(rw)/float64(pw)
		for c := 0; c < ch; c++ {
			plane := in.f[(b*ch+c)*h*w:][:h*w]
			dst := out.f[(r*ch+c)*ph*pw:][:ph*pw]
			for i := 0; i < ph; i++ {
				hs := clamp(int(math.Floor(float64(i)*binH))+y0, h)
				he := clamp(int(math.Ceil(float64(i+1)*binH))+y0, h)
				for j := 0; j < pw; j++ {
					ws := clamp(int(math.Floor(float64(j)*binW))+x0, w)
					we := clamp(int(math.Ceil(float64(j+1)*binW))+x0, w)
					if he <= hs || we <= ws {
						dst[i*pw+j] = 0
						continue
					}
					m := float32(math.Inf(-1))
					for yy := hs; yy < he; yy++ {
						for xx := ws; xx < we; xx++ {
							m = max(m, plane[yy*w+xx])
						}
					}
					dst[i*pw+j] = m
				}
			}
		}
	}
	x.set(0, out)
	return nil
}
