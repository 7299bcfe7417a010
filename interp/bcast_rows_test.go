package interp

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// rowRange started at any row gives the offsets rows gives that row, for
// shapes that broadcast on leading, middle and trailing axes.
func TestBcastRowRange(t *testing.T) {
	for _, c := range [][3][]int{
		{{2, 3, 4, 5}, {2, 3, 4, 5}, {1, 3, 1, 1}},
		{{2, 3, 4, 5}, {1, 3, 4, 1}, {2, 1, 1, 5}},
		{{4, 6, 7}, {4, 1, 7}, {6, 1}},
		{{3, 5}, {3, 5}, {5}},
		{{1152, 7, 7}, {1152, 7, 7}, {1152, 1, 1}},
	} {
		p := newBcast(c[0], c[1], c[2])
		var want [][3]int
		p.rows(func(o, oa, ob int) { want = append(want, [3]int{o, oa, ob}) })
		if len(want) != p.outerRows() {
			t.Fatalf("%v: rows gave %d rows, outerRows %d", c, len(want), p.outerRows())
		}
		for lo := range want {
			hi := min(lo+3, len(want))
			var got [][3]int
			p.rowRange(lo, hi, func(o, oa, ob int) { got = append(got, [3]int{o, oa, ob}) })
			if !slices.Equal(got, want[lo:hi]) {
				t.Fatalf("%v rows %d..%d: %v, want %v", c, lo, hi, got, want[lo:hi])
			}
		}
	}
}

// A float32 Add, Sub, Mul or Div of a tensor and one value per row of it
// (either operand order, planes of whole vectors, with a tail, or
// shorter than a vector; large enough to split between cores) gives
// each element the scalar operation's bits, vector paths or not.
func TestBinaryPerRowValue(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for _, shapes := range [][2][]int64{
		{{1, 1152, 7, 7}, {1, 1152, 1, 1}},
		{{2, 96, 16, 16}, {1, 96, 1, 1}},
		{{3, 40, 5}, {3, 40, 1}},
		{{4, 300, 9}, {300, 1}},
	} {
		full := randTensor(rng, "f", ints(shapes[0])...)
		k := randTensor(rng, "k", ints(shapes[1])...)
		fv, _ := full.Float64s()
		kv, _ := k.Float64s()
		p := newBcast(ints(shapes[0]), ints(shapes[0]), ints(shapes[1]))
		var koff []int
		p.rows(func(_, _, ob int) { koff = append(koff, ob) })
		n := len(fv) / len(koff)
		for _, fn := range []canon.BinaryFn{canon.Add, canon.Sub, canon.Mul, canon.Div} {
			for _, left := range []bool{false, true} {
				ins := []string{"f", "k"}
				if left {
					ins = []string{"k", "f"}
				}
				feed := map[string]*canon.Tensor{"f": full, "k": k}
				got, err := runOne(t, &canon.Binary{Fn: fn}, ins, feed, canon.Float32)
				if err != nil {
					t.Fatal(err)
				}
				gv, _ := got.Float64s()
				for i, v := range fv {
					a, b := float32(v), float32(kv[koff[i/n]])
					if left {
						a, b = b, a
					}
					var want float32
					switch fn {
					case canon.Add:
						want = a + b
					case canon.Sub:
						want = a - b
					case canon.Mul:
						want = a * b
					case canon.Div:
						want = a / b
					}
					if math.Float32bits(float32(gv[i])) != math.Float32bits(want) {
						t.Fatalf("%v %v left %v: y[%d] = %v, want %v", shapes, fn, left, i, gv[i], want)
					}
				}
			}
		}
	}
}

// A broadcast too large for one core (rows split between cores, each
// started by rowRange) gives every element its operands' sum.
func TestBinaryBroadcastSplit(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	a := randTensor(rng, "a", 8, 300, 40)
	b := randTensor(rng, "b", 8, 1, 40)
	got, err := runOne(t, &canon.Binary{Fn: canon.Add}, []string{"a", "b"}, map[string]*canon.Tensor{"a": a, "b": b}, canon.Float32)
	if err != nil {
		t.Fatal(err)
	}
	av, _ := a.Float64s()
	bv, _ := b.Float64s()
	gv, _ := got.Float64s()
	for i := range av {
		n, j := i/(300*40), i%40
		if want := float32(av[i]) + float32(bv[n*40+j]); float32(gv[i]) != want {
			t.Fatalf("y[%d] = %v, want %v", i, gv[i], want)
		}
	}
}
