package interp

import (
	"math/rand"
	"runtime"
	"testing"
)

// gatherAxes split between cores gives each element its definition: maps
// that skip, repeat and pad (-1), last maps that are runs and that are
// not, sizes on either side of the split's threshold.
func TestGatherAxesParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewSource(21))
	for trial := range 40 {
		shape := []int{1 + rng.Intn(5), 1 + rng.Intn(40), 1 + rng.Intn(300)}
		src := make([]float32, shape[0]*shape[1]*shape[2])
		for i := range src {
			src[i] = float32(i)
		}
		maps := make([][]int, len(shape))
		for k, d := range shape {
			n := 1 + rng.Intn(2*d)
			start := rng.Intn(d)
			for i := range n {
				switch {
				case trial%2 == 0 && k == len(shape)-1:
					maps[k] = append(maps[k], min(start+i, d-1)) // a run, until it repeats the end
				case rng.Intn(10) == 0:
					maps[k] = append(maps[k], -1)
				default:
					maps[k] = append(maps[k], rng.Intn(d))
				}
			}
		}
		size := 1
		for _, m := range maps {
			size *= len(m)
		}
		got, want := make([]float32, size), make([]float32, size)
		gatherAxes(got, src, shape, maps, -7)
		// The definition, element by element.
		o := 0
		for _, i0 := range maps[0] {
			for _, i1 := range maps[1] {
				for _, i2 := range maps[2] {
					want[o] = -7
					if i0 >= 0 && i1 >= 0 && i2 >= 0 {
						want[o] = src[(i0*shape[1]+i1)*shape[2]+i2]
					}
					o++
				}
			}
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("trial %d (shape %v): element %d is %v, want %v", trial, shape, i, got[i], want[i])
			}
		}
	}
}
