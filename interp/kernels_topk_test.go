package interp

import (
	"cmp"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"testing"
)

// topKSorted is TopK by a stable sort of each whole row: the definition
// (best first, ties to the lower index, NaN below every number).
func topKSorted[T cmp.Ordered](in []T, outer, n, inner, k int, largest bool) ([]T, []int64) {
	vals, idx := make([]T, outer*k*inner), make([]int64, outer*k*inner)
	for o := range outer {
		for i := range inner {
			order := make([]int, n)
			for j := range order {
				order[j] = j
			}
			slices.SortStableFunc(order, func(a, b int) int {
				c := cmp.Compare(in[o*n*inner+b*inner+i], in[o*n*inner+a*inner+i])
				if !largest {
					c = -c
				}
				return c
			})
			for j := range k {
				vals[o*k*inner+j*inner+i] = in[o*n*inner+order[j]*inner+i]
				idx[o*k*inner+j*inner+i] = int64(order[j])
			}
		}
	}
	return vals, idx
}

// TopK by heaps, one row per core or one long row split between cores,
// gives the sort's values and indices: ties (few distinct values), NaNs,
// largest and smallest, k from 1 to the whole row.
func TestTopKMatchesSort(t *testing.T) {
	defer func(old int) { topKSplitMin = old }(topKSplitMin)
	topKSplitMin = 1 << 14
	rng := rand.New(rand.NewSource(19))
	for trial := range 120 {
		outer, inner := 1+rng.Intn(3), 1+rng.Intn(2)
		n := 1 + rng.Intn(300)
		if trial%4 == 0 {
			outer, inner, n = 1, 1, topKSplitMin+rng.Intn(3*topKSplitMin)
		}
		k := 1 + rng.Intn(min(n, 400))
		if trial%5 == 1 || trial%5 == 2 { // the sorted candidates of small k
			k = 1 + rng.Intn(min(n, topKSmall+1))
		}
		if trial%9 == 0 {
			k = n
		}
		largest := trial%2 == 0
		in := make([]float32, outer*n*inner)
		for i := range in {
			if trial%3 == 0 {
				in[i] = float32(rng.Intn(7)) // many ties
			} else {
				in[i] = float32(rng.NormFloat64())
			}
			if rng.Intn(100) == 0 {
				in[i] = float32(math.NaN())
			}
		}
		wantV, wantI := topKSorted(in, outer, n, inner, k, largest)
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			vals, idx := make([]float32, len(wantV)), make([]int64, len(wantI))
			topKRows(in, vals, idx, outer, n, inner, k, largest)
			runtime.GOMAXPROCS(old)
			for j := range idx {
				if idx[j] != wantI[j] || math.Float32bits(vals[j]) != math.Float32bits(wantV[j]) {
					t.Fatalf("trial %d (%d×%d×%d, k %d, largest %v, %d cores): entry %d is %v at %d, want %v at %d",
						trial, outer, n, inner, k, largest, procs, j, vals[j], idx[j], wantV[j], wantI[j])
				}
			}
		}
	}
}

// BenchmarkTopKRows is BenchmarkOpFamilies' TopK 128×1000 k5 without the
// interpreter around it: random rows, one core.
func BenchmarkTopKRows(b *testing.B) {
	rng := rand.New(rand.NewSource(5))
	const rows, n, k = 128, 1000, 5
	in := make([]float32, rows*n)
	for i := range in {
		in[i] = rng.Float32()*2 - 1
	}
	vals, idx := make([]float32, rows*k), make([]int64, rows*k)
	for b.Loop() {
		topKRows(in, vals, idx, rows, n, 1, k, true)
	}
}
