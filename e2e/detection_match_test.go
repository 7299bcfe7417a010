package e2e

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// Detections are compared as sets: two runs that agree to float rounding
// may order detections whose scores (nearly) tie differently, so each of
// PyTorch's detections is paired with an unpaired one of the same label
// whose box and score are within tolerance.
const (
	// detBoxTol is relative to the largest box coordinate (the image size).
	detBoxTol = 2.5e-4
	// detScoreTol is absolute: scores are probabilities.
	detScoreTol = 5e-4
	// detExtraTol is relative to the largest magnitude of masks, keypoints
	// and keypoint scores.
	detExtraTol = 5e-4
)

type detections struct {
	boxes, scores, labels []float64
	// extras are the per-detection outputs besides boxes, scores and
	// labels (masks, keypoints, keypoints_scores), by name.
	extras map[string][]float64
	n      int
}

func readDetections(names []string, ts []*canon.Tensor) (*detections, error) {
	d := &detections{extras: map[string][]float64{}}
	for i, name := range names {
		if ts[i] == nil {
			return nil, fmt.Errorf("output %q missing", name)
		}
		v, err := ts[i].Float64s()
		if err != nil {
			return nil, fmt.Errorf("output %q: %w", name, err)
		}
		switch name {
		case "boxes":
			d.boxes, d.n = v, int(ts[i].Shape[0])
		case "scores":
			d.scores = v
		case "labels":
			d.labels = v
		default:
			d.extras[name] = v
		}
	}
	if d.boxes == nil || d.scores == nil || d.labels == nil {
		return nil, fmt.Errorf("outputs %v lack boxes, scores or labels", names)
	}
	if len(d.boxes) != 4*d.n || len(d.scores) != d.n || len(d.labels) != d.n {
		return nil, fmt.Errorf("boxes %d, scores %d and labels %d disagree on the number of detections", len(d.boxes)/4, len(d.scores), len(d.labels))
	}
	for name, v := range d.extras {
		if d.n > 0 && len(v)%d.n != 0 {
			return nil, fmt.Errorf("output %q has %d values, not a multiple of %d detections", name, len(v), d.n)
		}
	}
	return d, nil
}

func (d *detections) row(v []float64, i int) []float64 {
	w := len(v) / d.n
	return v[i*w : (i+1)*w]
}

func detMaxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

func detMaxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// detectionRules are the model's own cut-offs, which decide where two runs
// that agree to float rounding may still keep different detections.
type detectionRules struct {
	// NMSIoU is the IoU above which NMS suppresses a lower-scored box of
	// the same label.
	NMSIoU float64 `json:"nms_iou"`
	// MaxDetections is how many detections the model keeps at most.
	MaxDetections int `json:"max_detections"`
	// MaskPadding is the padding (in mask cells) torchvision pastes masks
	// with; MaskSize the side of the predicted masks.
	MaskPadding int `json:"mask_padding"`
	MaskSize    int `json:"mask_size"`
	// MinSize and MaxSize are the transform's resizing (R-CNN); ImageH and
	// ImageW the image's size, set per image.
	MinSize float64 `json:"min_size"`
	MaxSize float64 `json:"max_size"`
	ImageH  int     `json:"-"`
	ImageW  int     `json:"-"`
}

// toResized is the factor per axis (y, x) from the image's pixels to those of
// the resized image the network saw: torchvision scales by
// min(MinSize/short side, MaxSize/long side) and floors the sizes.
func (r detectionRules) toResized() (float64, float64) {
	h, w := float64(r.ImageH), float64(r.ImageW)
	scale := math.Min(r.MinSize/math.Min(h, w), r.MaxSize/math.Max(h, w))
	return math.Floor(h*scale) / h, math.Floor(w*scale) / w
}

// heatmapSizeTie says why two runs resized a detection's keypoint heatmaps
// to different sizes: torchvision resizes them to the ceiling of the box's
// width and height in the resized image, so sizes that agree to rounding
// but straddle an integer give maps a pixel apart (keypoints move by up to
// a pixel, their scores by the resampling).
func heatmapSizeTie(got, want []float64, rules detectionRules) string {
	if rules.MinSize == 0 {
		return ""
	}
	fy, fx := rules.toResized()
	size := func(b []float64) [2]float64 {
		return [2]float64{math.Ceil(math.Max((b[2]-b[0])*fx, 1)), math.Ceil(math.Max((b[3]-b[1])*fy, 1))}
	}
	if g, w := size(got), size(want); g != w {
		return fmt.Sprintf("heatmaps resized to %vx%v here, %vx%v in PyTorch (box %.5f x %.5f, PyTorch %.5f x %.5f resized pixels)",
			g[0], g[1], w[0], w[1], (got[2]-got[0])*fx, (got[3]-got[1])*fy, (want[2]-want[0])*fx, (want[3]-want[1])*fy)
	}
	return ""
}

// detNMSTieTol is how close to the NMS threshold an IoU must be for the two
// runs to decide it differently by rounding (box coordinates agree to about
// 1e-4 pixels, which moves an IoU by far less).
const detNMSTieTol = 1e-3

// detectionMatch is how well got's detections match PyTorch's.
type detectionMatch struct {
	gotN, wantN, paired int
	// diffs are the largest differences over paired detections, by output.
	diffs map[string]float64
	// ties are the threshold ties found, one line each.
	ties []string
}

func (m *detectionMatch) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d detections (PyTorch %d, %d paired); max |diff|", m.gotN, m.wantN, m.paired)
	for _, n := range []string{"boxes", "scores", "masks", "keypoints", "keypoints_scores"} {
		if v, ok := m.diffs[n]; ok {
			fmt.Fprintf(&b, " %s %.3g", n, v)
		}
	}
	if len(m.ties) > 0 {
		fmt.Fprintf(&b, "; %d tie(s) at a threshold: %s", len(m.ties), strings.Join(m.ties, "; "))
	}
	return b.String()
}

// matchDetections pairs got's detections with want's (PyTorch's). Every
// detection must be paired, with its masks and keypoints within tolerance,
// except where the two runs met a threshold tie, each reported:
//   - NMS: the detection's IoU with a higher-scored box of its label is
//     within detNMSTieTol of rules.NMSIoU, so one run kept it and the other
//     suppressed it;
//   - the cut-off: its score ties (within detScoreTol) with the other run's
//     lowest, or, when a run is full (rules.MaxDetections), it lies below the
//     other run's lowest and the other run kept as many NMS ties;
//   - a mask pasted into an integer box one pixel apart (the expanded box
//     coordinate truncates differently), or a keypoint whose heatmap maximum
//     (its score) ties with another position.
func matchDetections(names []string, gotT, wantT []*canon.Tensor, rules detectionRules) (*detectionMatch, error) {
	got, err := readDetections(names, gotT)
	if err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	want, err := readDetections(names, wantT)
	if err != nil {
		return nil, fmt.Errorf("PyTorch: %w", err)
	}
	m := &detectionMatch{gotN: got.n, wantN: want.n, diffs: map[string]float64{"boxes": 0, "scores": 0}}
	boxTol := math.Max(detBoxTol*detMaxAbs(want.boxes), 1e-4)
	for name := range want.extras {
		m.diffs[name] = 0
	}
	pairOf := make([]int, got.n)
	for j := range pairOf {
		pairOf[j] = -1
	}
	var unpairedWant []int
	for i := 0; i < want.n; i++ {
		best, bestDiff := -1, math.Inf(1)
		for j := 0; j < got.n; j++ {
			if pairOf[j] >= 0 || got.labels[j] != want.labels[i] || math.Abs(got.scores[j]-want.scores[i]) > detScoreTol {
				continue
			}
			if d := detMaxAbsDiff(got.row(got.boxes, j), want.row(want.boxes, i)); d < bestDiff {
				best, bestDiff = j, d
			}
		}
		if best < 0 || bestDiff > boxTol {
			unpairedWant = append(unpairedWant, i)
			continue
		}
		pairOf[best] = i
		m.paired++
		m.diffs["boxes"] = math.Max(m.diffs["boxes"], bestDiff)
		m.diffs["scores"] = math.Max(m.diffs["scores"], math.Abs(got.scores[best]-want.scores[i]))
		if err := m.compareExtras(got, best, want, i, rules); err != nil {
			return m, err
		}
	}
	var unpairedGot []int
	for j := 0; j < got.n; j++ {
		if pairOf[j] < 0 {
			unpairedGot = append(unpairedGot, j)
		}
	}
	gotNMS, gotRest := m.nmsTies(got, unpairedGot, rules, "kept here, suppressed by PyTorch")
	wantNMS, wantRest := m.nmsTies(want, unpairedWant, rules, "kept by PyTorch, suppressed here")
	if err := m.cutOffTies(want, wantRest, detMin(got.scores), got.n, gotNMS, rules, "PyTorch's"); err != nil {
		return m, err
	}
	if err := m.cutOffTies(got, gotRest, detMin(want.scores), want.n, wantNMS, rules, "this run's"); err != nil {
		return m, err
	}
	return m, nil
}

// nmsTies takes out of unpaired the detections of d that NMS decided at a
// tie: their largest IoU with a higher-scored box of the same label in d is
// within detNMSTieTol of the threshold. It returns how many and the rest.
func (m *detectionMatch) nmsTies(d *detections, unpaired []int, rules detectionRules, how string) (int, []int) {
	if rules.NMSIoU == 0 {
		return 0, unpaired
	}
	var rest []int
	n := 0
	for _, i := range unpaired {
		worst, with := 0.0, -1
		for k := 0; k < d.n; k++ {
			if k == i || d.labels[k] != d.labels[i] || d.scores[k] < d.scores[i] {
				continue
			}
			if iou := detIoU(d.row(d.boxes, i), d.row(d.boxes, k)); iou > worst {
				worst, with = iou, k
			}
		}
		if with < 0 || math.Abs(worst-rules.NMSIoU) > detNMSTieTol {
			rest = append(rest, i)
			continue
		}
		n++
		m.ties = append(m.ties, fmt.Sprintf("NMS: label %v score %.4g has IoU %.5f with score %.4g against the threshold %g (%s)",
			d.labels[i], d.scores[i], worst, d.scores[with], rules.NMSIoU, how))
	}
	return n, rest
}

// cutOffTies accepts the unpaired detections of d that lie at the other
// run's cut-off: tied with its lowest score, or below it when the other run
// is full and kept otherNMS detections that d's run suppressed at a tie.
func (m *detectionMatch) cutOffTies(d *detections, unpaired []int, otherMin float64, otherN, otherNMS int, rules detectionRules, whose string) error {
	displaced := 0
	for _, i := range unpaired {
		switch {
		case math.Abs(d.scores[i]-otherMin) <= detScoreTol:
			m.ties = append(m.ties, fmt.Sprintf("cut-off: %s label %v score %.4g ties with the other run's lowest %.4g", whose, d.labels[i], d.scores[i], otherMin))
		case otherN == rules.MaxDetections && d.scores[i] <= otherMin && displaced < otherNMS:
			displaced++
			m.ties = append(m.ties, fmt.Sprintf("cut-off: %s label %v score %.4g lies below the other run's lowest %.4g, displaced by its NMS tie", whose, d.labels[i], d.scores[i], otherMin))
		default:
			return fmt.Errorf("%s detection %d (label %v, score %.4g, box %v) has no counterpart and meets no threshold tie; %s", whose, i, d.labels[i], d.scores[i], d.row(d.boxes, i), m)
		}
	}
	return nil
}

// compareExtras compares the masks, keypoints and keypoint scores of a
// paired detection.
func (m *detectionMatch) compareExtras(got *detections, j int, want *detections, i int, rules detectionRules) error {
	if _, ok := want.extras["keypoints"]; ok {
		if why := heatmapSizeTie(got.row(got.boxes, j), want.row(want.boxes, i), rules); why != "" {
			m.ties = append(m.ties, fmt.Sprintf("keypoints: label %v score %.4g %s", want.labels[i], want.scores[i], why))
			return m.compareExtrasExcept(got, j, want, i, rules, "keypoints", "keypoints_scores")
		}
	}
	return m.compareExtrasExcept(got, j, want, i, rules)
}

func (m *detectionMatch) compareExtrasExcept(got *detections, j int, want *detections, i int, rules detectionRules, skip ...string) error {
	for name, v := range want.extras {
		if slices.Contains(skip, name) {
			continue
		}
		g, w := got.row(got.extras[name], j), want.row(v, i)
		tol := math.Max(detExtraTol*detMaxAbs(v), 1e-5)
		switch name {
		case "masks":
			if why := maskBoxTie(got.row(got.boxes, j), want.row(want.boxes, i), rules); why != "" {
				m.ties = append(m.ties, fmt.Sprintf("mask: label %v score %.4g %s", want.labels[i], want.scores[i], why))
				continue
			}
		case "keypoints":
			d, ties, err := compareKeypoints(g, w, got.row(got.extras["keypoints_scores"], j), want.row(want.extras["keypoints_scores"], i), tol,
				math.Max(detExtraTol*detMaxAbs(want.extras["keypoints_scores"]), 1e-5))
			if err != nil {
				return fmt.Errorf("detection %d (label %v, score %.4g): %w", i, want.labels[i], want.scores[i], err)
			}
			for _, t := range ties {
				m.ties = append(m.ties, fmt.Sprintf("keypoint: label %v score %.4g %s", want.labels[i], want.scores[i], t))
			}
			m.diffs[name] = math.Max(m.diffs[name], d)
			continue
		}
		d := detMaxAbsDiff(g, w)
		if d > tol {
			return fmt.Errorf("detection %d (label %v, score %.4g): %s differ by %.3g (tolerance %.3g)", i, want.labels[i], want.scores[i], name, d, tol)
		}
		m.diffs[name] = math.Max(m.diffs[name], d)
	}
	return nil
}

// maskBoxTie says why two runs pasted a detection's mask into different
// pixel boxes: torchvision expands the box by (size+2·padding)/size about
// its centre and truncates each coordinate to an integer, so coordinates
// that agree to rounding but straddle an integer paste a pixel apart.
func maskBoxTie(got, want []float64, rules detectionRules) string {
	if rules.MaskSize == 0 {
		return ""
	}
	scale := float64(rules.MaskSize+2*rules.MaskPadding) / float64(rules.MaskSize)
	g, w := detExpandBox(got, scale), detExpandBox(want, scale)
	for k := range g {
		if math.Trunc(g[k]) != math.Trunc(w[k]) {
			return fmt.Sprintf("pasted into a box a pixel apart (expanded coordinate %d: %.5f here, %.5f in PyTorch)", k, g[k], w[k])
		}
	}
	return ""
}

func detExpandBox(b []float64, scale float64) [4]float64 {
	wHalf, hHalf := (b[2]-b[0])*0.5*scale, (b[3]-b[1])*0.5*scale
	xc, yc := (b[2]+b[0])*0.5, (b[3]+b[1])*0.5
	return [4]float64{xc - wHalf, yc - hHalf, xc + wHalf, yc + hHalf}
}

// compareKeypoints compares keypoints (x, y, visibility per keypoint) and
// their scores (the heatmap maximum). A keypoint may sit elsewhere only
// where its score ties: both runs found equal maxima at different places.
func compareKeypoints(got, want, gotScores, wantScores []float64, tol, scoreTol float64) (float64, []string, error) {
	worst := 0.0
	var ties []string
	for k := 0; k < len(want)/3; k++ {
		d := detMaxAbsDiff(got[3*k:3*k+3], want[3*k:3*k+3])
		if d <= tol {
			worst = math.Max(worst, d)
			continue
		}
		if math.Abs(gotScores[k]-wantScores[k]) > scoreTol {
			return worst, ties, fmt.Errorf("keypoint %d at %v, PyTorch %v (tolerance %.3g), and its score %.5g, PyTorch %.5g", k, got[3*k:3*k+2], want[3*k:3*k+2], tol, gotScores[k], wantScores[k])
		}
		ties = append(ties, fmt.Sprintf("keypoint %d at %.4g,%.4g, PyTorch %.4g,%.4g: equal heatmap maxima %.7g and %.7g (|diff| %.2g)",
			k, got[3*k], got[3*k+1], want[3*k], want[3*k+1], gotScores[k], wantScores[k], math.Abs(gotScores[k]-wantScores[k])))
	}
	return worst, ties, nil
}

func detIoU(a, b []float64) float64 {
	areaA := (a[2] - a[0]) * (a[3] - a[1])
	areaB := (b[2] - b[0]) * (b[3] - b[1])
	w := math.Max(0, math.Min(a[2], b[2])-math.Max(a[0], b[0]))
	h := math.Max(0, math.Min(a[3], b[3])-math.Max(a[1], b[1]))
	inter := w * h
	if union := areaA + areaB - inter; union > 0 {
		return inter / union
	}
	return 0
}

func detMin(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}
