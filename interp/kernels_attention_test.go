package interp

import (
	"math"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func seqTensor(name string, scale float64, shape ...int64) *canon.Tensor {
	v := make([]float32, canon.NumElements(shape))
	for i := range v {
		v[i] = float32(math.Sin(float64(i)*0.7+1) * scale)
	}
	return canon.NewFloat32Tensor(name, shape, v)
}

// TestAttentionByHand: with one key every query returns that key's value;
// a causal first query sees only the first key; grouped heads read key
// head h / reps; the scores output after the softmax sums to one per row.
func TestAttentionByHand(t *testing.T) {
	q, k, v := seqTensor("q", 2, 1, 2, 3, 4), seqTensor("k", 1, 1, 2, 1, 4), seqTensor("v", 1, 1, 2, 1, 5)
	g := graphOf(&canon.Attention{}, map[string]*canon.Tensor{"q": q, "k": k, "v": v}, []string{"q", "k", "v"}, nil)
	outs, err := Run(g, map[string]*canon.Tensor{"q": q, "k": k, "v": v})
	if err != nil {
		t.Fatal(err)
	}
	y, vv := floats(t, outs["y"]), floats(t, v)
	for h := 0; h < 2; h++ {
		for i := 0; i < 3; i++ {
			assertClose(t, "one key", y[(h*3+i)*5:(h*3+i+1)*5], vv[h*5:(h+1)*5], 1e-6)
		}
	}

	// Causal, grouped: 4 query heads over 2 key heads, 3 queries, 3 keys.
	q, k, v = seqTensor("q", 2, 1, 4, 3, 2), seqTensor("k", 1, 1, 2, 3, 2), seqTensor("v", 1, 1, 2, 3, 2)
	g = graphOf(&canon.Attention{IsCausal: true, QKOutputMode: 3}, map[string]*canon.Tensor{"q": q, "k": k, "v": v}, []string{"q", "k", "v"}, nil)
	g.Nodes[0].Outputs = []string{"y", "", "", "p"}
	g.Outputs = append(g.Outputs, canon.ValueInfo{Name: "p", DType: canon.Float32})
	outs, err = Run(g, map[string]*canon.Tensor{"q": q, "k": k, "v": v})
	if err != nil {
		t.Fatal(err)
	}
	y, vv, p := floats(t, outs["y"]), floats(t, v), floats(t, outs["p"])
	for h := 0; h < 4; h++ {
		kv := h / 2
		assertClose(t, "causal first query", y[h*3*2:h*3*2+2], vv[kv*3*2:kv*3*2+2], 1e-6)
		for i := 0; i < 3; i++ {
			row := p[(h*3+i)*3 : (h*3+i+1)*3]
			sum := float64(row[0] + row[1] + row[2])
			if math.Abs(sum-1) > 1e-6 {
				t.Errorf("head %d query %d: probabilities %v sum to %g", h, i, row, sum)
			}
			for j := i + 1; j < 3; j++ {
				if row[j] != 0 {
					t.Errorf("head %d query %d attends future key %d: %v", h, i, j, row)
				}
			}
		}
	}
}

// TestAttentionBadShapes: mismatched head sizes are an error, not a panic.
func TestAttentionBadShapes(t *testing.T) {
	q, k, v := seqTensor("q", 1, 1, 2, 3, 4), seqTensor("k", 1, 1, 2, 3, 5), seqTensor("v", 1, 1, 2, 3, 4)
	g := rawGraphOf(&canon.Attention{}, map[string]*canon.Tensor{"q": q, "k": k, "v": v}, []string{"q", "k", "v"}, nil)
	_, err := Run(g, map[string]*canon.Tensor{"q": q, "k": k, "v": v})
	if err == nil || !strings.Contains(err.Error(), "head sizes") && !strings.Contains(err.Error(), "do not fit") {
		t.Fatalf("want a head-size error, got %v", err)
	}
}

// TestNMSByHand: a box overlapping a better one by IoU 0.8 is dropped at
// threshold 0.5 and kept at 0.9; max_output 0 selects nothing; the score
// threshold is strict.
func TestNMSByHand(t *testing.T) {
	boxes := canon.NewFloat32Tensor("boxes", []int64{1, 3, 4}, []float32{0, 0, 10, 10, 0, 0, 10, 8, 20, 20, 30, 30})
	scores := canon.NewFloat32Tensor("scores", []int64{1, 1, 3}, []float32{0.9, 0.95, 0.5})
	run := func(maxOut int64, iou, scoreMin float32) []int64 {
		t.Helper()
		inits := []*canon.Tensor{canon.NewInt64Tensor("m", []int64{1}, []int64{maxOut}),
			canon.NewFloat32Tensor("iou", []int64{1}, []float32{iou}), canon.NewFloat32Tensor("smin", []int64{1}, []float32{scoreMin})}
		g := graphOf(&canon.NonMaxSuppression{}, map[string]*canon.Tensor{"boxes": boxes, "scores": scores},
			[]string{"boxes", "scores", "m", "iou", "smin"}, inits)
		g.Outputs[0].DType = canon.Int64
		outs, err := Run(g, map[string]*canon.Tensor{"boxes": boxes, "scores": scores})
		if err != nil {
			t.Fatal(err)
		}
		v, err := outs["y"].Int64s()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	eq := func(what string, got, want []int64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
		}
	}
	eq("iou 0.5", run(10, 0.5, 0), []int64{0, 0, 1, 0, 0, 2})
	eq("iou 0.9", run(10, 0.9, 0), []int64{0, 0, 1, 0, 0, 0, 0, 0, 2})
	eq("max 0", run(0, 0.5, 0), nil)
	eq("score > 0.5", run(10, 0.9, 0.5), []int64{0, 0, 1, 0, 0, 0})
}

// TestRoiAlignHostileRegion: a region with absurd coordinates is an error
// naming it, not an unbounded allocation.
func TestRoiAlignHostileRegion(t *testing.T) {
	x := seqTensor("x", 1, 1, 1, 4, 4)
	rois := canon.NewFloat32Tensor("rois", []int64{1, 4}, []float32{0, 0, 1e30, 1e30})
	idx := canon.NewInt64Tensor("idx", []int64{1}, []int64{0})
	g := graphOf(&canon.RoiAlign{OutputHeight: 2, OutputWidth: 2, SpatialScale: 1}, map[string]*canon.Tensor{"x": x}, []string{"x", "rois", "idx"},
		[]*canon.Tensor{rois, idx})
	_, err := Run(g, map[string]*canon.Tensor{"x": x})
	if err == nil || !strings.Contains(err.Error(), "samples") {
		t.Fatalf("want an error about the samples, got %v", err)
	}
}
