package tfliteimport

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// TestSoftmaxInt8Tables: exp_on_negative_values gives 1.0 (Q0.31) at 0
// and follows exp(x) to within a few Q0.31 steps below it.
func TestSoftmaxInt8Tables(t *testing.T) {
	if got := expOnNegativeValues(0); got != math.MaxInt32 {
		t.Fatalf("exp(0) = %d", got)
	}
	for _, x := range []float64{-0.01, -0.25, -0.5, -1, -2.5, -7, -15.9} {
		raw := int32(x * (1 << 26))
		got := float64(expOnNegativeValues(raw)) / (1 << 31)
		if d := math.Abs(got - math.Exp(x)); d > 1e-6 {
			t.Errorf("exp(%g) = %g, want %g", x, got, math.Exp(x))
		}
	}
	for _, x := range []float64{0, 0.1, 0.5, 0.99} {
		got := float64(oneOverOnePlusX(int32(x*(1<<31)))) / (1 << 31)
		if d := math.Abs(got - 1/(1+x)); d > 1e-6 {
			t.Errorf("1/(1+%g) = %g, want %g", x, got, 1/(1+x))
		}
	}
}

// TestSoftmaxInt8Expansion runs the canonical expansion of the int8
// kernel in the interpreter on random rows: it must match the scalar
// kernel bit for bit, and stay within one step of the float softmax.
func TestSoftmaxInt8Expansion(t *testing.T) {
	for _, scale := range []float32{0.0039215, 0.05, 0.1, 0.5} {
		p := newSoftmaxInt8Params(1, scale)
		const rows, depth = 40, 10
		rng := rand.New(rand.NewSource(int64(scale * 1e4)))
		data := make([]byte, rows*depth)
		for i := range data {
			data[i] = byte(rng.Intn(256))
		}
		if scale == 0.5 {
			data[0], data[1] = 127, 0x80 // a difference past diff_min
		}
		b := &builder{path: "test", g: &canon.Graph{Name: "softmax"}, taken: map[string]bool{}, vals: map[int][]held{},
			graphInput: map[string]bool{}, dequantOf: map[int]int{}, weights: map[string]string{}}
		b.budget.Limit = 1 << 30
		b.m = &model{}
		b.s = &subgraph{tensors: []tensorDef{
			{name: "x", dtype: 9, shape: []int64{rows, depth}, quant: &quantDef{scale: []float32{scale}, zero: []int64{3}}},
			{index: 1, name: "y", dtype: 9, shape: []int64{rows, depth}, quant: &quantDef{scale: []float32{1.0 / 256}, zero: []int64{-128}}},
		}}
		b.g.Inputs = []canon.ValueInfo{{Name: "x", DType: canon.Int8, Shape: canon.DimsOf(rows, depth), RankKnown: true}}
		b.define(0, "x", fileForm)
		c := &opCtx{b: b, op: &operatorDef{inputs: []int{0}, outputs: []int{1}}}
		if err := c.quantSoftmax(0, 1); err != nil {
			t.Fatal(err)
		}
		out, _ := b.value(1, fileForm)
		b.g.Outputs = []canon.ValueInfo{{Name: out, DType: canon.Int8}}
		res, err := interp.Run(b.g, map[string]*canon.Tensor{"x": {Name: "x", DType: canon.Int8, Shape: []int64{rows, depth}, Data: data}})
		if err != nil {
			t.Fatal(err)
		}
		got := res[out].Data
		for r := range rows {
			row := make([]int8, depth)
			for k := range row {
				row[k] = int8(data[r*depth+k])
			}
			want := softmaxInt8Ref(p, row)
			var mx float64 = -1e9
			for _, v := range row {
				mx = math.Max(mx, float64(v))
			}
			var sum float64
			for _, v := range row {
				sum += math.Exp(float64(scale) * (float64(v) - mx))
			}
			for k := range row {
				if int8(got[r*depth+k]) != want[k] {
					t.Fatalf("scale %g row %d col %d: expansion %d, kernel %d", scale, r, k, int8(got[r*depth+k]), want[k])
				}
				f := math.Exp(float64(scale)*(float64(row[k])-mx))/sum*256 - 128
				if math.Abs(float64(want[k])-math.Max(-128, math.Min(127, f))) > 1 {
					t.Errorf("scale %g row %d col %d: kernel %d, float softmax %.2f", scale, r, k, want[k], f)
				}
			}
		}
	}
}
