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

func writeRoiAlign(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.RoiAlign)
	code := func(format string, args ...any) { gen.forward = append(gen.forward, fmt.Sprintf(format, args...)) }
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
	out := gen.genName("pooled")
	axis := gen.genName("axis")
	// axis(start, size, bins, grid, limit): sample positions along one
	// axis, the low and high neighbours, their weights and validity.
	code("def %s(start, size, bins, grid, limit):", axis)
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
	code("%s = %s.new_zeros((%s.shape[0], %s.shape[1], %d, %d))", out, x, rois, x, ph, pw)
	code("for r in range(%s.shape[0]):", rois)
	code("    x0, y0, x1, y1 = (%s[r].double() * %s - %s).tolist()", rois, pyFloat(op.SpatialScale), off)
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
	code("    fm = %s[int(%s[r])].double()", x, idx)
	code("    yl, yh, wyl, wyh = %s(y0, rh, %d, gh, fm.shape[1])", axis, ph)
	code("    xl, xh, wxl, wxh = %s(x0, rw, %d, gw, fm.shape[2])", axis, pw)
	code("    corners = torch.stack([wyl[:, None] * wxl[None, :] * fm[:, yl][:, :, xl], wyl[:, None] * wxh[None, :] * fm[:, yl][:, :, xh],")
	code("                           wyh[:, None] * wxl[None, :] * fm[:, yh][:, :, xl], wyh[:, None] * wxh[None, :] * fm[:, yh][:, :, xh]])")
	code("    grid = corners.reshape(4, fm.shape[0], %d, gh, %d, gw)", ph, pw)
	if op.Max {
		code("    %s[r] = grid.amax(0).amax((2, 4)).to(%s.dtype)", out, x)
	} else {
		code("    %s[r] = grid.sum(0).mean((2, 4)).to(%s.dtype)", out, x)
	}
	gen.assign(out)
	return nil
}

func writeNMS(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.NonMaxSuppression)
	code := func(format string, args ...any) { gen.forward = append(gen.forward, fmt.Sprintf(format, args...)) }
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
	lim, thr, sel := gen.genName("limit"), gen.genName("score_min"), gen.genName("selected")
	bx, area, sc, kept, ov := gen.genName("boxes"), gen.genName("area"), gen.genName("scores"), gen.genName("kept"), gen.genName("iou")
	code("%s, %s, %s = int(%s), %s, []", lim, thr, sel, maxOut, scoreMin)
	code("for b in range(%s.shape[0]):", boxes)
	code("    %s = %s[b].double()", bx, boxes)
	if op.CenterPointBox {
		code("    %s = torch.stack([%s[:, 1] - %s[:, 3] / 2, %s[:, 0] - %s[:, 2] / 2, %s[:, 1] + %s[:, 3] / 2, %s[:, 0] + %s[:, 2] / 2], 1)",
			bx, bx, bx, bx, bx, bx, bx, bx, bx)
	} else {
		code("    %s = torch.stack([torch.minimum(%s[:, 0], %s[:, 2]), torch.minimum(%s[:, 1], %s[:, 3]), torch.maximum(%s[:, 0], %s[:, 2]), torch.maximum(%s[:, 1], %s[:, 3])], 1)",
			bx, bx, bx, bx, bx, bx, bx, bx, bx)
	}
	code("    %s = (%s[:, 2] - %s[:, 0]) * (%s[:, 3] - %s[:, 1])", area, bx, bx, bx, bx)
	code("    for c in range(%s.shape[1]):", scores)
	code("        %s = %s[b, c]", sc, scores)
	code("        %s = []", kept)
	code("        for i in torch.sort(%s, descending=True, stable=True).indices.tolist():", sc)
	code("            if len(%s) >= %s:", kept, lim)
	code("                break")
	code("            if %s is not None and not %s[i].item() > %s:", thr, sc, thr)
	code("                continue")
	code("            ok = True")
	code("            for k in %s:", kept)
	code("                ih = min(%s[i, 2], %s[k, 2]) - max(%s[i, 0], %s[k, 0])", bx, bx, bx, bx)
	code("                iw = min(%s[i, 3], %s[k, 3]) - max(%s[i, 1], %s[k, 1])", bx, bx, bx, bx)
	code("                %s = 0.0", ov)
	code("                if %s[i] > 0 and %s[k] > 0 and ih > 0 and iw > 0:", area, area)
	code("                    %s = float(ih * iw / (%s[i] + %s[k] - ih * iw))", ov, area, area)
	code("                if %s > %s:", ov, iouMax)
	code("                    ok = False")
	code("                    break")
	code("            if ok:")
	code("                %s.append(i)", kept)
	code("                %s.append([b, c, i])", sel)
	gen.assign(fmt.Sprintf("torch.tensor(%s, dtype=torch.long).reshape(-1, 3)", sel))
	return nil
}

// writeMaxRoiPool: Python's round() rounds halves to even where Caffe's
// rounds them away from zero, so corners use int(|v| + 0.5) with the sign
// restored; bin bounds are int() (floor, for the positive offsets) and
// -int(-v // 1) (ceil).
func writeMaxRoiPool(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.MaxRoiPool)
	code := func(format string, args ...any) { gen.forward = append(gen.forward, fmt.Sprintf(format, args...)) }
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	rois, err := gen.in(1)
	if err != nil {
		return err
	}
	out := gen.genName("pooled")
	ph, pw := op.PooledHeight, op.PooledWidth
	code("%s = %s.new_zeros((%s.shape[0], %s.shape[1], %d, %d))", out, x, rois, x, ph, pw)
	code("for r in range(%s.shape[0]):", rois)
	code("    b, x0, y0, x1, y1 = %s[r].double().tolist()", rois)
	code("    x0, y0, x1, y1 = [(1 if v >= 0 else -1) * int(abs(v * %s) + 0.5) for v in (x0, y0, x1, y1)]", pyFloat(op.SpatialScale))
	code("    bh, bw = max(y1 - y0 + 1, 1) / %d, max(x1 - x0 + 1, 1) / %d", ph, pw)
	code("    for i in range(%d):", ph)
	code("        hs = min(max(int(i * bh) + y0, 0), %s.shape[2])", x)
	code("        he = min(max(-int(-((i + 1) * bh) // 1) + y0, 0), %s.shape[2])", x)
	code("        for j in range(%d):", pw)
	code("            ws = min(max(int(j * bw) + x0, 0), %s.shape[3])", x)
	code("            we = min(max(-int(-((j + 1) * bw) // 1) + x0, 0), %s.shape[3])", x)
	code("            if he > hs and we > ws:")
	code("                %s[r, :, i, j] = %s[int(b), :, hs:he, ws:we].amax((1, 2))", out, x)
	gen.assign(out)
	return nil
}
