package interp

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Slice → Reshape → Transpose(s) chains plan as one step whose outputs
// are the ops' own, for views the strides address (a transformer's heads
// out of its QKV rows, the keys transposed once more; a strided slice; a
// reversed one) and for ones they cannot (a reshape across a slice's
// gaps, done on a copy of the slice); a chain whose middle value is also
// read elsewhere stays as it is.
func TestViewChainFusion(t *testing.T) {
	defer func() { fuseEpilogues = true }()
	type chain struct {
		name   string
		in     []int64
		slice  canon.Slice
		target []int64
		perms  [][]int64
		extra  bool // the Reshape's output is read twice
		steps  int  // steps after fusion
	}
	for _, c := range []chain{
		{"qkv heads", []int64{7, 1, 36}, canon.Slice{Starts: []int64{12}, Ends: []int64{24}, Axes: []int64{2}}, []int64{7, 3, 4}, [][]int64{{1, 0, 2}}, false, 1},
		{"keys transposed twice", []int64{7, 1, 36}, canon.Slice{Starts: []int64{24}, Ends: []int64{36}, Axes: []int64{-1}}, []int64{7, 3, 4}, [][]int64{{1, 0, 2}, {0, 2, 1}}, false, 1},
		{"keys in 16×16 blocks", []int64{40, 1, 96}, canon.Slice{Starts: []int64{32}, Ends: []int64{64}, Axes: []int64{2}}, []int64{40, 2, 16}, [][]int64{{1, 0, 2}, {0, 2, 1}}, false, 1},
		{"batched heads", []int64{2, 5, 24}, canon.Slice{Starts: []int64{0}, Ends: []int64{8}, Axes: []int64{2}}, []int64{2, 5, 2, 4}, [][]int64{{0, 2, 1, 3}}, false, 1},
		{"strided", []int64{6, 10}, canon.Slice{Starts: []int64{1, 0}, Ends: []int64{6, 10}, Axes: []int64{0, 1}, Steps: []int64{2, 3}}, []int64{3, 2, 2}, [][]int64{{2, 0, 1}}, false, 1},
		{"reversed", []int64{4, 9}, canon.Slice{Starts: []int64{-1}, Ends: []int64{-100}, Axes: []int64{1}, Steps: []int64{-1}}, []int64{4, 3, 3}, [][]int64{{1, 2, 0}}, false, 1},
		{"reshape across gaps", []int64{4, 8}, canon.Slice{Starts: []int64{0}, Ends: []int64{6}, Axes: []int64{1}}, []int64{3, 8}, [][]int64{{1, 0}}, false, 1},
		{"zero and -1 targets", []int64{3, 1, 20}, canon.Slice{Starts: []int64{5}, Ends: []int64{15}, Axes: []int64{2}}, []int64{0, -1, 5}, [][]int64{{2, 1, 0}}, false, 1},
		{"middle read twice", []int64{7, 1, 36}, canon.Slice{Starts: []int64{0}, Ends: []int64{12}, Axes: []int64{2}}, []int64{7, 3, 4}, [][]int64{{1, 0, 2}}, true, 5},
	} {
		build := func() *canon.Graph {
			nb := newNetBuilder("x", c.in...)
			sl := c.slice
			y := nb.node(&sl, "x")
			r := nb.node(&canon.Reshape{Shape: c.target}, y)
			z := r
			for _, p := range c.perms {
				z = nb.node(&canon.Transpose{Perm: p}, z)
			}
			if c.extra {
				z = nb.node(&canon.Binary{Fn: canon.Add}, z, nb.node(&canon.Transpose{Perm: c.perms[0]}, r))
			}
			return nb.finish(t, z)
		}
		in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(4)), "x", ints(c.in)...)}
		var outs [2][]float64
		for k, fuse := range []bool{false, true} {
			fuseEpilogues = fuse
			p, err := New(build())
			if err != nil {
				t.Fatal(err)
			}
			if fuse && len(p.steps) != c.steps {
				t.Errorf("%s: %d steps after fusion, want %d", c.name, len(p.steps), c.steps)
			}
			o, err := p.Run(in)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			for _, tv := range o {
				outs[k], _ = tv.Float64s()
			}
		}
		if len(outs[0]) != len(outs[1]) || len(outs[0]) == 0 {
			t.Fatalf("%s: %d values fused, %d unfused", c.name, len(outs[1]), len(outs[0]))
		}
		for i := range outs[0] {
			if math.Float32bits(float32(outs[0][i])) != math.Float32bits(float32(outs[1][i])) {
				t.Fatalf("%s: y[%d] = %v fused, %v unfused", c.name, i, outs[1][i], outs[0][i])
			}
		}
	}
}

// viewReshape finds strides exactly where the elements are evenly spaced
// within each group of axes it merges or splits.
func TestViewReshape(t *testing.T) {
	for _, c := range []struct {
		shape, strides, target, want []int
	}{
		{[]int{7, 1, 12}, []int{36, 36, 1}, []int{7, 3, 4}, []int{36, 4, 1}},
		{[]int{7, 12}, []int{36, 1}, []int{84}, nil},
		{[]int{3, 4}, []int{4, 1}, []int{12}, []int{1}},
		{[]int{3, 4}, []int{1, 3}, []int{12}, nil},
		{[]int{2, 6}, []int{-6, 2}, []int{2, 2, 3}, []int{-6, 6, 2}},
		{[]int{1, 1}, []int{5, 5}, []int{1}, []int{0}},
	} {
		got, ok := viewReshape(c.shape, c.strides, c.target)
		if ok != (c.want != nil) || ok && !slices.Equal(got, c.want) {
			t.Errorf("viewReshape(%v, %v, %v) = %v, %v; want %v", c.shape, c.strides, c.target, got, ok, c.want)
		}
	}
}
