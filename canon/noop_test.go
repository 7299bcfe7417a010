package canon

import "testing"

// TestIsNoop: each NoopWhen answers yes for its do-nothing setting and no
// for a setting that changes the data; views answer by shape.
func TestIsNoop(t *testing.T) {
	x := ValueInfo{DType: Float32, Shape: DimsOf(2, 3), RankKnown: true}
	y := ValueInfo{DType: Float32, Shape: DimsOf(3, 2), RankKnown: true}
	cases := []struct {
		name    string
		op      Op
		inputs  []string
		in, out ValueInfo
		want    bool
	}{
		{"identity Transpose", &Transpose{Perm: []int64{0, 1}}, []string{"x"}, x, x, true},
		{"swapping Transpose", &Transpose{Perm: []int64{1, 0}}, []string{"x"}, x, y, false},
		{"zero Pad", &Pad{PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}, []string{"x"}, x, x, true},
		{"run-time Pad", &Pad{}, []string{"x", "pads"}, x, x, false},
		{"whole Slice", &Slice{Starts: []int64{0}, Ends: []int64{9}, Axes: []int64{0}, Steps: []int64{1}}, []string{"x"}, x, x, true},
		{"reversing Slice", &Slice{Starts: []int64{-1}, Ends: []int64{-9}, Axes: []int64{0}, Steps: []int64{-1}}, []string{"x"}, x, x, false},
		{"Concat of one", &Concat{Axis: 0}, []string{"x"}, x, x, true},
		{"Cast to its own type", &Cast{To: Float32}, []string{"x"}, x, x, true},
		{"widening Cast", &Cast{To: Float64}, []string{"x"}, x, ValueInfo{DType: Float64, Shape: DimsOf(2, 3), RankKnown: true}, false},
		{"Reshape to its shape", &Reshape{Shape: []int64{2, 3}}, []string{"x"}, x, x, true},
		{"Reshape to another", &Reshape{Shape: []int64{3, 2}}, []string{"x"}, x, y, false},
		{"Softmax", &Softmax{Axis: -1}, []string{"x"}, x, x, false},
	}
	for _, c := range cases {
		n := &Node{Name: c.name, Op: c.op, Inputs: c.inputs, Outputs: []string{"y"}}
		in := make([]ValueInfo, len(c.inputs))
		in[0] = c.in
		if got := IsNoop(n, in, []ValueInfo{c.out}); got != c.want {
			t.Errorf("%s: IsNoop = %v, want %v", c.name, got, c.want)
		}
	}
}
