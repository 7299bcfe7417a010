package canon

import (
	"strings"
	"testing"
)

// TestDFTShapes: the output length of each DFT form, a run-time axis
// (rank known, sizes not), and the refusals of a bad last axis and of the
// pair axis as the signal axis.
func TestDFTShapes(t *testing.T) {
	x := func(dims ...int64) ValueInfo {
		return ValueInfo{Name: "x", DType: Float32, Shape: DimsOf(dims...), RankKnown: true}
	}
	axisIn := ValueInfo{Name: "a", DType: Int64, Shape: DimsOf(), RankKnown: true}
	for _, c := range []struct {
		name string
		op   *DFT
		in   []ValueInfo
		want string // shape, or the error's text
	}{
		{"forward", &DFT{Axis: 1}, []ValueInfo{x(2, 6, 3, 1)}, "[2 6 3 2]"},
		{"padded", &DFT{Axis: 1, Length: 9}, []ValueInfo{x(2, 6, 3, 2)}, "[2 9 3 2]"},
		{"one-sided", &DFT{Axis: -2, Onesided: true}, []ValueInfo{x(2, 6, 3, 1)}, "[2 6 2 2]"},
		{"irfft default", &DFT{Axis: 1, Inverse: true, Onesided: true}, []ValueInfo{x(1, 6, 10, 2)}, "[1 10 10 1]"},
		{"irfft odd", &DFT{Axis: 1, Length: 7, Inverse: true, Onesided: true}, []ValueInfo{x(1, 6, 10, 2)}, "[1 7 10 1]"},
		{"run-time axis", &DFT{Axis: 1}, []ValueInfo{x(1, 6, 10, 1), {}, axisIn}, "[? ? ? 2]"},
		{"bad last axis", &DFT{Axis: 1}, []ValueInfo{x(2, 6, 3)}, "last axis must be 1"},
		{"pair axis", &DFT{Axis: -1}, []ValueInfo{x(2, 6, 2)}, "not a signal axis"},
	} {
		ins := []string{"x"}
		if len(c.in) == 3 {
			ins = []string{"x", "", "a"}
		}
		n := &Node{Name: "dft", Op: c.op, Inputs: ins, Outputs: []string{"y"}}
		out, err := InferNode(n, c.in)
		switch {
		case err != nil && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		case err == nil && fmtShape(out[0]) != c.want:
			t.Errorf("%s: shape %s, want %s", c.name, fmtShape(out[0]), c.want)
		}
	}
}

// TestSTFTAndWindowShapes: frames and bins from constant parameters; a
// window of run-time size has a named length.
func TestSTFTAndWindowShapes(t *testing.T) {
	step := ValueInfo{Name: "s", DType: Int64, Shape: DimsOf(), RankKnown: true, Const: NewInt64Tensor("s", []int64{}, []int64{8})}
	sig := ValueInfo{Name: "x", DType: Float32, Shape: DimsOf(1, 128, 1), RankKnown: true}
	win := ValueInfo{Name: "w", DType: Float32, Shape: DimsOf(16), RankKnown: true}
	out, err := InferNode(&Node{Name: "st", Op: &STFT{Onesided: true}, Inputs: []string{"x", "s", "w"}, Outputs: []string{"y"}}, []ValueInfo{sig, step, win})
	if err != nil || fmtShape(out[0]) != "[1 15 9 2]" {
		t.Errorf("STFT: %v %v, want [1 15 9 2]", err, out)
	}
	size := ValueInfo{Name: "n", DType: Int64, Shape: DimsOf(), RankKnown: true}
	out, err = InferNode(&Node{Name: "hann", Op: &HannWindow{Periodic: true, DType: Float32}, Inputs: []string{"n"}, Outputs: []string{"y"}}, []ValueInfo{size})
	if err != nil || out[0].Shape[0].Known() || out[0].Shape[0].Param == "" {
		t.Errorf("HannWindow of a run-time size: %v %v, want a named length", err, out)
	}
}
