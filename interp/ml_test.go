package interp

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// mlGraph is x (dtype, shape) through one node of op to output "y".
func mlGraph(t *testing.T, op canon.Op, dt canon.DType, shape ...int64) *canon.Graph {
	t.Helper()
	g := &canon.Graph{Name: "ml", Inputs: []canon.ValueInfo{{Name: "x", DType: dt, Shape: canon.DimsOf(shape...), RankKnown: true}}}
	g.Nodes = []*canon.Node{{Name: "n", Op: op, Inputs: []string{"x"}, Outputs: []string{"y"}}}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

func runF32(t *testing.T, g *canon.Graph, shape []int64, x ...float32) []float32 {
	t.Helper()
	out, err := Run(g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", shape, x)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := out["y"].Float64s()
	if err != nil {
		t.Fatal(err)
	}
	f := make([]float32, len(v))
	for i := range v {
		f[i] = float32(v[i])
	}
	return f
}

// Binarizer's comparison is strict and NaN gives 0 (ONNX's reference).
func TestBinarizerByHand(t *testing.T) {
	g := mlGraph(t, &canon.Binarizer{Threshold: 1}, canon.Float32, 5)
	got := runF32(t, g, []int64{5}, 1, 1.0000001, -3, float32(math.NaN()), float32(math.Inf(1)))
	if want := []float32{0, 1, 0, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Each node mode and aggregate worked out by hand on one tree of one
// split: leaf 0 (target 0, weight 3) when the comparison holds, leaf 1
// (target 1, weight 5) otherwise.
func TestTreeEnsembleModesByHand(t *testing.T) {
	one := func(mode canon.TreeMode, agg canon.TreeAggregate, missingTrue bool) *canon.TreeEnsemble {
		op := &canon.TreeEnsemble{DType: canon.Float32, Aggregate: agg, NTargets: 2, TreeRoots: []int64{0},
			Modes: []canon.TreeMode{mode}, Features: []int64{0}, Splits: []float64{2},
			TrueIDs: []int64{0}, FalseIDs: []int64{1}, TrueLeaf: []bool{true}, FalseLeaf: []bool{true},
			LeafTargets: []int64{0, 1}, LeafWeights: []float64{3, 5}}
		if mode == canon.TreeMember {
			op.Members = []float64{2, 4, math.NaN()}
		}
		if missingTrue {
			op.MissingTrue = []bool{true}
		}
		return op
	}
	x := []float32{1, 2, 4, float32(math.NaN())}
	for _, c := range []struct {
		mode        canon.TreeMode
		missingTrue bool
		holds       []bool // per x
	}{
		{canon.TreeLEQ, false, []bool{true, true, false, false}},
		{canon.TreeLT, false, []bool{true, false, false, false}},
		{canon.TreeGTE, false, []bool{false, true, true, false}},
		{canon.TreeGT, false, []bool{false, false, true, false}},
		{canon.TreeEQ, false, []bool{false, true, false, false}},
		{canon.TreeNEQ, false, []bool{true, false, true, true}},
		{canon.TreeMember, false, []bool{false, true, true, false}},
		{canon.TreeLEQ, true, []bool{true, true, false, true}},
	} {
		got := runF32(t, mlGraph(t, one(c.mode, canon.TreeSum, c.missingTrue), canon.Float32, 4, 1), []int64{4, 1}, x...)
		for i, h := range c.holds {
			want := []float32{0, 5}
			if h {
				want = []float32{3, 0}
			}
			if !slices.Equal(got[2*i:2*i+2], want) {
				t.Errorf("%s (missing true %v) on %v: got %v, want %v", c.mode, c.missingTrue, x[i], got[2*i:2*i+2], want)
			}
		}
	}
	// MIN and MAX leave a target no leaf reaches at float32's extremes;
	// AVERAGE divides by the number of trees.
	for agg, want := range map[canon.TreeAggregate][]float32{
		canon.TreeMin:     {3, math.MaxFloat32},
		canon.TreeMax:     {3, -math.MaxFloat32},
		canon.TreeAverage: {3, 0},
	} {
		got := runF32(t, mlGraph(t, one(canon.TreeLEQ, agg, false), canon.Float32, 1, 1), []int64{1, 1}, 1)
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", agg, got, want)
		}
	}
}

// A node reached twice (here: a cycle) is refused, never walked forever.
func TestTreeEnsembleCycleRefused(t *testing.T) {
	op := &canon.TreeEnsemble{DType: canon.Float32, Aggregate: canon.TreeSum, NTargets: 1, TreeRoots: []int64{0},
		Modes: []canon.TreeMode{canon.TreeLEQ, canon.TreeLEQ}, Features: []int64{0, 0}, Splits: []float64{0, 0},
		TrueIDs: []int64{1, 0}, FalseIDs: []int64{0, 0}, TrueLeaf: []bool{false, false}, FalseLeaf: []bool{true, true},
		LeafTargets: []int64{0}, LeafWeights: []float64{1}}
	if err := op.Validate(); err == nil || !strings.Contains(err.Error(), "reached twice") {
		t.Errorf("got %v", err)
	}
}

// LabelEncoder on float keys: NaN finds NaN, -0 finds +0; others get the
// default.
func TestLabelEncoderFloatKeys(t *testing.T) {
	op := &canon.LabelEncoder{
		Keys:    canon.NewFloat32Tensor("", []int64{3}, []float32{float32(math.NaN()), 0, 1.5}),
		Values:  canon.NewInt64Tensor("", []int64{3}, []int64{7, 8, 9}),
		Default: canon.NewInt64Tensor("", []int64{1}, []int64{-1}),
	}
	g := mlGraph(t, op, canon.Float32, 4)
	out, err := Run(g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{4}, []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 1.5, 2})})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := out["y"].Int64s()
	if want := []int64{7, 8, 9, -1}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// ArrayFeatureExtractor refuses an index outside the last axis.
func TestArrayFeatureExtractorOutOfRange(t *testing.T) {
	g := &canon.Graph{Name: "afe", Inputs: []canon.ValueInfo{
		{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 3), RankKnown: true},
		{Name: "i", DType: canon.Int64, Shape: canon.DimsOf(1), RankKnown: true}}}
	g.Nodes = []*canon.Node{{Name: "n", Op: &canon.ArrayFeatureExtractor{}, Inputs: []string{"x", "i"}, Outputs: []string{"y"}}}
	g.Outputs = []canon.ValueInfo{{Name: "y"}}
	x := canon.NewFloat32Tensor("x", []int64{2, 3}, []float32{0, 1, 2, 3, 4, 5})
	for _, k := range []int64{3, -1} {
		_, err := Run(g, map[string]*canon.Tensor{"x": x, "i": canon.NewInt64Tensor("i", []int64{1}, []int64{k})})
		if err == nil || !strings.Contains(err.Error(), "outside [0, 3)") {
			t.Errorf("index %d: got %v", k, err)
		}
	}
	out, err := Run(g, map[string]*canon.Tensor{"x": x, "i": canon.NewInt64Tensor("i", []int64{1}, []int64{2})})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := out["y"].Float64s(); !slices.Equal(got, []float64{2, 5}) {
		t.Errorf("got %v", got)
	}
}
