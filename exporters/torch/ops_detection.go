package torchexport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Detection ops, in plain torch so that model.py needs no torchvision:
// RoiAlign as its sample grid per region, NonMaxSuppression as its greedy
// loop, both in float64.

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"RoiAlign": {write: writeRoiAlign, floatOnly: "RoiAlign",
			detail: "per region in Python: the bilinear sample grid by gathers along both axes, weights in float64, mean or max per bin"},
		"MaxRoiPool": {write: writeMaxRoiPool, floatOnly: "MaxRoiPool",
			detail: "per region and bin in Python: rounded corners, floor/ceil bin bounds clipped to the map, amax (0 for an empty bin)"},
		"NonMaxSuppression": {write: writeNMS, floatOnly: "NonMaxSuppression",
			detail: "the greedy loop per batch and class in Python, IoU in float64"},
	})
}

// localFn emits `def NAME(params):` with body lines indented under it and
// returns NAME: the body's variables are the function's own, so they can
// never clash with the model's.
func (gen *generator) localFn(base, params string, body []string) string {
	name := gen.genName(base)
	gen.forward = append(gen.forward, "def "+name+"("+params+"):")
	for _, l := range body {
		gen.forward = append(gen.forward, "    "+l)
	}
	return name
}

func writeRoiAlign(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.RoiAlign)
	var body []string
	code := func(format string, args ...any) { body = append(body, fmt.Sprintf(format, args...)) }
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	rois, err := gen.in(1)
	if err != nil {
		return err
	}
	idx, err := gen.in(2)
	if err != nil {
		return err
	}
	off := "0.0"
	if op.HalfPixel {
		off = "0.5"
	}
	ph, pw := op.OutputHeight, op.OutputWidth
	// axis(start, size, bins, grid, limit): sample positions along one
	// axis, the low and high neighbours, their weights and validity.
	code("def axis(start, size, bins, grid, limit):")
	code("    p = start + torch.arange(bins, dtype=torch.float64).repeat_interleave(grid) * (size / bins) + (torch.arange(grid, dtype=torch.float64).repeat(bins) + 0.5) * (size / bins) / grid")
	code("    valid = (p >= -1.0) & (p <= limit)")
	code("    p = p.clamp(min=0)")
	code("    lo = p.floor().long()")
	code("    edge = lo >= limit - 1")
	code("    lo = torch.where(edge, torch.full_like(lo, limit - 1), lo)")
	code("    hi = torch.where(edge, lo, lo + 1)")
	code("    p = torch.where(edge, lo.double(), p)")
	code("    frac = (p - lo) * valid")
	code("    return lo, hi, (1 - frac) * valid, frac")
	code("out = x.new_zeros((rois.shape[0], x.shape[1], %d, %d))", ph, pw)
	code("for r in range(rois.shape[0]):")
	code("    x0, y0, x1, y1 = (rois[r].double() * %s - %s).tolist()", pyFloat(op.SpatialScale), off)
	code("    rw, rh = x1 - x0, y1 - y0")
	if !op.HalfPixel {
		code("    rw, rh = max(rw, 1.0), max(rh, 1.0)")
	}
	if op.SamplingRatio > 0 {
		code("    gh = gw = %d", op.SamplingRatio)
	} else {
		code("    gh, gw = int(-(-(rh / %d) // 1)), int(-(-(rw / %d) // 1))", ph, pw)
	}
	code("    if gh <= 0 or gw <= 0:")
	code("        continue")
	code("    fm = x[int(idx[r])].double()")
	code("    yl, yh, wyl, wyh = axis(y0, rh, %d, gh, fm.shape[1])", ph)
	code("    xl, xh, wxl, wxh = axis(x0, rw, %d, gw, fm.shape[2])", pw)
	code("    corners = torch.stack([wyl[:, None] * wxl[None, :] * fm[:, yl][:, :, xl], wyl[:, None] * wxh[None, :] * fm[:, yl][:, :, xh],")
	code("                           wyh[:, None] * wxl[None, :] * fm[:, yh][:, :, xl], wyh[:, None] * wxh[None, :] * fm[:, yh][:, :, xh]])")
	code("    grid = corners.reshape(4, fm.shape[0], %d, gh, %d, gw)", ph, pw)
	if op.Max {
		code("    out[r] = grid.amax(0).amax((2, 4)).to(x.dtype)")
	} else {
		code("    out[r] = grid.sum(0).mean((2, 4)).to(x.dtype)")
	}
	code("return out")
	fn := gen.localFn("roi_align", "x, rois, idx", body)
	gen.assign(fmt.Sprintf("%s(%s, %s, %s)", fn, x, rois, idx))
	return nil
}

func writeNMS(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.NonMaxSuppression)
	var body []string
	code := func(format string, args ...any) { body = append(body, fmt.Sprintf(format, args...)) }
	boxes, err := gen.in(canon.NMSBoxes)
	if err != nil {
		return err
	}
	scores, err := gen.in(canon.NMSScores)
	if err != nil {
		return err
	}
	param := func(i int, def string) (string, error) {
		if !gen.given(i) {
			return def, nil
		}
		e, err := gen.in(i)
		if err != nil {
			return "", err
		}
		return e + ".reshape(-1)[0].item()", nil
	}
	maxOut, err := param(canon.NMSMaxOutput, "0")
	if err != nil {
		return err
	}
	iouMax, err := param(canon.NMSIoUThreshold, "0.0")
	if err != nil {
		return err
	}
	scoreMin, err := param(canon.NMSScoreThreshold, "None")
	if err != nil {
		return err
	}
	code("selected = []")
	code("for b in range(boxes.shape[0]):")
	code("    bx = boxes[b].double()")
	if op.CenterPointBox {
		code("    bx = torch.stack([bx[:, 1] - bx[:, 3] / 2, bx[:, 0] - bx[:, 2] / 2, bx[:, 1] + bx[:, 3] / 2, bx[:, 0] + bx[:, 2] / 2], 1)")
	} else {
		code("    bx = torch.stack([torch.minimum(bx[:, 0], bx[:, 2]), torch.minimum(bx[:, 1], bx[:, 3]), torch.maximum(bx[:, 0], bx[:, 2]), torch.maximum(bx[:, 1], bx[:, 3])], 1)")
	}
	code("    area = (bx[:, 2] - bx[:, 0]) * (bx[:, 3] - bx[:, 1])")
	code("    for c in range(scores.shape[1]):")
	code("        sc = scores[b, c]")
	code("        kept = []")
	code("        for i in torch.sort(sc, descending=True, stable=True).indices.tolist():")
	code("            if len(kept) >= limit:")
	code("                break")
	code("            if score_min is not None and not sc[i].item() > score_min:")
	code("                continue")
	code("            ok = True")
	code("            for k in kept:")
	code("                ih = min(bx[i, 2], bx[k, 2]) - max(bx[i, 0], bx[k, 0])")
	code("                iw = min(bx[i, 3], bx[k, 3]) - max(bx[i, 1], bx[k, 1])")
	code("                iou = 0.0")
	code("                if area[i] > 0 and area[k] > 0 and ih > 0 and iw > 0:")
	code("                    iou = float(ih * iw / (area[i] + area[k] - ih * iw))")
	code("                if iou > iou_max:")
	code("                    ok = False")
	code("                    break")
	code("            if ok:")
	code("                kept.append(i)")
	code("                selected.append([b, c, i])")
	code("return torch.tensor(selected, dtype=torch.long).reshape(-1, 3)")
	fn := gen.localFn("nms", "boxes, scores, limit, iou_max, score_min", body)
	gen.assign(fmt.Sprintf("%s(%s, %s, int(%s), %s, %s)", fn, boxes, scores, maxOut, iouMax, scoreMin))
	return nil
}

// writeMaxRoiPool: Python's round() rounds halves to even where Caffe's
// rounds them away from zero, so corners use int(|v| + 0.5) with the sign
// restored; bin bounds are int() (floor, for the positive offsets) and
// -int(-v // 1) (ceil).
func writeMaxRoiPool(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.MaxRoiPool)
	var body []string
	code := func(format string, args ...any) { body = append(body, fmt.Sprintf(format, args...)) }
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	rois, err := gen.in(1)
	if err != nil {
		return err
	}
	ph, pw := op.PooledHeight, op.PooledWidth
	code("out = x.new_zeros((rois.shape[0], x.shape[1], %d, %d))", ph, pw)
	code("for r in range(rois.shape[0]):")
	code("    b, x0, y0, x1, y1 = rois[r].double().tolist()")
	code("    x0, y0, x1, y1 = [(1 if v >= 0 else -1) * int(abs(v * %s) + 0.5) for v in (x0, y0, x1, y1)]", pyFloat(op.SpatialScale))
	code("    bh, bw = max(y1 - y0 + 1, 1) / %d, max(x1 - x0 + 1, 1) / %d", ph, pw)
	code("    for i in range(%d):", ph)
	code("        hs = min(max(int(i * bh) + y0, 0), x.shape[2])")
	code("        he = min(max(-int(-((i + 1) * bh) // 1) + y0, 0), x.shape[2])")
	code("        for j in range(%d):", pw)
	code("            ws = min(max(int(j * bw) + x0, 0), x.shape[3])")
	code("            we = min(max(-int(-((j + 1) * bw) // 1) + x0, 0), x.shape[3])")
	code("            if he > hs and we > ws:")
	code("                out[r, :, i, j] = x[int(b), :, hs:he, ws:we].amax((1, 2))")
	code("return out")
	fn := gen.localFn("roi_pool", "x, rois", body)
	gen.assign(fmt.Sprintf("%s(%s, %s)", fn, x, rois))
	return nil
}
