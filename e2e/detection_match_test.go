package e2e

import (
	"fmt"
	"math"
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

// detectionMatch is how well got's detections match PyTorch's.
type detectionMatch struct {
	gotN, wantN int
	// diffs are the largest differences over paired detections, by output.
	diffs map[string]float64
}

func (m *detectionMatch) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d detections (PyTorch %d); max |diff|", m.gotN, m.wantN)
	for _, n := range []string{"boxes", "scores", "masks", "keypoints", "keypoints_scores"} {
		if v, ok := m.diffs[n]; ok {
			fmt.Fprintf(&b, " %s %.3g", n, v)
		}
	}
	return b.String()
}

// matchDetections pairs got's detections with want's (PyTorch's). Every
// detection must be paired, except one that ties (within detScoreTol) with
// the other run's lowest score: a tie at the cut-off.
func matchDetections(names []string, gotT, wantT []*canon.Tensor) (*detectionMatch, error) {
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
	extraTol := map[string]float64{}
	for name, v := range want.extras {
		extraTol[name] = math.Max(detExtraTol*detMaxAbs(v), 1e-5)
		m.diffs[name] = 0
	}
	paired := make([]bool, got.n)
	var unpairedWant []int
	for i := 0; i < want.n; i++ {
		best, bestDiff := -1, math.Inf(1)
		for j := 0; j < got.n; j++ {
			if paired[j] || got.labels[j] != want.labels[i] || math.Abs(got.scores[j]-want.scores[i]) > detScoreTol {
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
		paired[best] = true
		m.diffs["boxes"] = math.Max(m.diffs["boxes"], bestDiff)
		m.diffs["scores"] = math.Max(m.diffs["scores"], math.Abs(got.scores[best]-want.scores[i]))
		for name, v := range want.extras {
			d := detMaxAbsDiff(got.row(got.extras[name], best), want.row(v, i))
			if d > extraTol[name] {
				return m, fmt.Errorf("detection %d (label %v, score %.4g): %s differ by %.3g (tolerance %.3g)", i, want.labels[i], want.scores[i], name, d, extraTol[name])
			}
			m.diffs[name] = math.Max(m.diffs[name], d)
		}
	}
	// A detection may be unpaired only when it ties with the other run's
	// lowest score: the two runs cut their lists at the same place.
	gotMin, wantMin := detMin(got.scores), detMin(want.scores)
	for _, i := range unpairedWant {
		if math.Abs(want.scores[i]-gotMin) > detScoreTol {
			return m, fmt.Errorf("PyTorch's detection %d (label %v, score %.4g, box %v) has no counterpart; %s", i, want.labels[i], want.scores[i], want.row(want.boxes, i), m)
		}
	}
	for j := 0; j < got.n; j++ {
		if !paired[j] && math.Abs(got.scores[j]-wantMin) > detScoreTol {
			return m, fmt.Errorf("detection %d (label %v, score %.4g, box %v) is not among PyTorch's; %s", j, got.labels[j], got.scores[j], got.row(got.boxes, j), m)
		}
	}
	return m, nil
}

func detMin(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}
