package e2e

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func detTensors(boxes, scores []float32, labels []int64) []*canon.Tensor {
	n := int64(len(scores))
	return []*canon.Tensor{
		canon.NewFloat32Tensor("boxes", []int64{n, 4}, boxes),
		canon.NewFloat32Tensor("scores", []int64{n}, scores),
		canon.NewInt64Tensor("labels", []int64{n}, labels),
	}
}

// The detection comparison pairs reordered near-ties, lets a tie at the
// cut-off change the count, and rejects a moved box, a changed label or a
// missing detection that scored well.
func TestMatchDetections(t *testing.T) {
	names := []string{"boxes", "scores", "labels"}
	want := detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20, 1, 1, 2, 2}, []float32{0.9, 0.8999, 0.5}, []int64{1, 2, 3})
	for _, c := range []struct {
		name string
		got  []*canon.Tensor
		fail string
	}{
		{"reordered", detTensors([]float32{5, 5, 20, 20, 0, 0, 10, 10, 1, 1, 2, 2}, []float32{0.8999, 0.9, 0.5}, []int64{2, 1, 3}), ""},
		{"tie at the cut-off", detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20}, []float32{0.9, 0.8999}, []int64{1, 2}), "no counterpart"},
		{"moved box", detTensors([]float32{0, 0, 10, 10.5, 5, 5, 20, 20, 1, 1, 2, 2}, []float32{0.9, 0.8999, 0.5}, []int64{1, 2, 3}), "no counterpart"},
		{"other label", detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20, 1, 1, 2, 2}, []float32{0.9, 0.8999, 0.5}, []int64{7, 2, 3}), "no counterpart"},
	} {
		_, err := matchDetections(names, c.got, want, detectionRules{NMSIoU: 0.5, MaxDetections: 3})
		switch {
		case c.fail == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)):
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.fail)
		}
	}
	// The lowest-scoring detection may go missing when the counts differ
	// and it ties with the cut-off.
	tie := detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20, 1, 1, 2, 2}, []float32{0.9, 0.8999, 0.8997}, []int64{1, 2, 3})
	if _, err := matchDetections(names, detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20}, []float32{0.9, 0.8999}, []int64{1, 2}), tie, detectionRules{}); err != nil {
		t.Errorf("tie at the cut-off: %v", err)
	}
}

// A run that keeps a box PyTorch suppressed at an IoU tie with the NMS
// threshold, and so drops PyTorch's lowest detection from its full list,
// matches with both reported; the same box clear of the threshold fails.
func TestMatchDetectionsNMSTie(t *testing.T) {
	names := []string{"boxes", "scores", "labels"}
	rules := detectionRules{NMSIoU: 0.5, MaxDetections: 3}
	want := detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20, 1, 1, 2, 2}, []float32{0.9, 0.8, 0.5}, []int64{1, 2, 3})
	// IoU of [3.33511,0,13.33511,10] with [0,0,10,10] is 0.4998.
	tied := detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20, 3.33511, 0, 13.33511, 10}, []float32{0.9, 0.8, 0.7}, []int64{1, 2, 1})
	m, err := matchDetections(names, tied, want, rules)
	if err != nil {
		t.Fatalf("NMS tie: %v", err)
	}
	if len(m.ties) != 2 || !strings.Contains(m.ties[0], "IoU 0.4998") {
		t.Errorf("NMS tie: want the tie and the displaced detection reported, got %q", m.ties)
	}
	clear := detTensors([]float32{0, 0, 10, 10, 5, 5, 20, 20, 4, 0, 14, 10}, []float32{0.9, 0.8, 0.7}, []int64{1, 2, 1})
	if _, err := matchDetections(names, clear, want, rules); err == nil || !strings.Contains(err.Error(), "meets no threshold tie") {
		t.Errorf("IoU 0.43: got %v, want an unpaired detection", err)
	}
}

// A keypoint may move only where both runs found equal heatmap maxima; a
// mask may differ only where the expanded box truncates to another pixel.
func TestMatchDetectionsKeypointAndMaskTies(t *testing.T) {
	want := []float64{10, 20, 1, 30, 40, 1}
	if _, ties, err := compareKeypoints([]float64{10, 20, 1, 35, 40, 1}, want, []float64{0.5, 0.3}, []float64{0.5, 0.30001}, 0.01, 1e-4); err != nil || len(ties) != 1 {
		t.Errorf("tied maxima: ties %q, err %v", ties, err)
	}
	if _, _, err := compareKeypoints([]float64{10, 20, 1, 35, 40, 1}, want, []float64{0.5, 0.3}, []float64{0.5, 0.31}, 0.01, 1e-4); err == nil {
		t.Error("a moved keypoint with another score passed")
	}
	rules := detectionRules{MaskSize: 28, MaskPadding: 1}
	// Box width 28 expands to 30 about x 14: x1 -1 exactly; 13.99999 vs
	// 14.00001 as x2 straddles the truncation of the expanded x2 = 29.
	if why := maskBoxTie([]float64{0, 0, 27.99999, 28}, []float64{0, 0, 28.00001, 28}, rules); why == "" {
		t.Error("expanded boxes a pixel apart not reported")
	}
	if why := maskBoxTie([]float64{0, 0, 27.5, 28}, []float64{0, 0, 27.50001, 28}, rules); why != "" {
		t.Errorf("same pixel box reported: %s", why)
	}
}
