package mxnetimport

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestBilinearResize2D checks both coordinate maps of MXNet's bilinear
// resize on x = [[0, 1], [2, 3]]. Aligned corners to 3×3 interpolate
// halfway; half-pixel to 4×4 samples rows and columns at
// (d+0.5)/2-0.5 clamped to [0, 1]: 0, 0.25, 0.75, 1, so out = 2·f(i)+f(j).
func TestBilinearResize2D(t *testing.T) {
	x := arange([]int64{1, 1, 2, 2})
	aligned := checkpoint(t, oneOp("_contrib_BilinearResize2D", `{"height":"3","width":"3"}`), nil)
	expect(t, run(t, aligned, x), []int64{1, 1, 3, 3}, 0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3)
	half := checkpoint(t, oneOp("_contrib_BilinearResize2D", `{"height":"4","width":"4","align_corners":"False"}`), nil)
	f := []float64{0, 0.25, 0.75, 1}
	var want []float64
	for i := range 4 {
		for j := range 4 {
			want = append(want, 2*f[i]+f[j])
		}
	}
	expect(t, run(t, half, x), []int64{1, 1, 4, 4}, want...)
	// Mode to_odd_up turns 2 into 3, as the aligned case above.
	odd := checkpoint(t, oneOp("_contrib_BilinearResize2D", `{"mode":"to_odd_up"}`), nil)
	expect(t, run(t, odd, x), []int64{1, 1, 3, 3}, 0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3)
}

// TestUpSamplingBilinear checks that bilinear UpSampling is its
// Deconvolution: a single 1 under MXNet's scale-2 bilinear kernel
// (outer product of [0.25, 0.75, 0.75, 0.25]) cropped by the padding of 1
// gives the kernel's centre, 0.75² everywhere.
func TestUpSamplingBilinear(t *testing.T) {
	k1 := []float32{0.25, 0.75, 0.75, 0.25}
	k := make([]float32, 16)
	for i := range 4 {
		for j := range 4 {
			k[4*i+j] = k1[i] * k1[j]
		}
	}
	sym := checkpoint(t, oneOp("UpSampling", `{"scale":"2","sample_type":"bilinear","num_filter":"1","num_args":"2"}`, "w"),
		map[string]*canon.Tensor{"arg:w": f32s([]int64{1, 1, 4, 4}, k...)})
	expect(t, run(t, sym, f32s([]int64{1, 1, 1, 1}, 1)), []int64{1, 1, 2, 2}, 0.5625, 0.5625, 0.5625, 0.5625)
}

// TestAdaptiveAvgPooling2D: windows of 5 columns into 3 are [0, 2), [1, 4)
// and [3, 5) (floor(i·5/3) to ceil((i+1)·5/3)), whose means over 0..4 are
// 0.5, 2 and 3.5; rows of 3 into 2 are [0, 2) and [1, 3).
func TestAdaptiveAvgPooling2D(t *testing.T) {
	sym := checkpoint(t, oneOp("_contrib_AdaptiveAvgPooling2D", `{"output_size":"(1, 3)"}`), nil)
	expect(t, run(t, sym, arange([]int64{1, 1, 1, 5})), []int64{1, 1, 1, 3}, 0.5, 2, 3.5)
	sym = checkpoint(t, oneOp("_contrib_AdaptiveAvgPooling2D", `{"output_size":"(2, 3)"}`), nil)
	// x = arange(15).reshape(3, 5): row windows average rows 0-1 and 1-2,
	// i.e. add 2.5 and 7.5 to the column means above.
	expect(t, run(t, sym, arange([]int64{1, 1, 3, 5})), []int64{1, 1, 2, 3}, 3, 4.5, 6, 8, 9.5, 11)
	sym = checkpoint(t, oneOp("_contrib_AdaptiveAvgPooling2D", `{}`), nil)
	expect(t, run(t, sym, arange([]int64{1, 1, 1, 5})), []int64{1, 1, 1, 1}, 2)
}
