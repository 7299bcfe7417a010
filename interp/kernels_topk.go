package interp

import (
	"cmp"
	"container/heap"
	"sort"
)

// TopK keeps, for each row along the axis, the k best entries in a heap
// whose root is the worst one kept: O(n log k) per row instead of a sort
// of the whole row. Ties go to the lower index; NaN ranks below every
// number (cmp.Compare's order).

// topKEntry is one candidate: its value and its index along the axis.
type topKEntry[T cmp.Ordered] struct {
	v T
	i int
}

// topKHeap holds the best entries seen so far with the worst at the root.
type topKHeap[T cmp.Ordered] struct {
	e       []topKEntry[T]
	largest bool
}

// better reports whether a ranks before b.
func (h *topKHeap[T]) better(a, b topKEntry[T]) bool {
	c := cmp.Compare(a.v, b.v)
	if !h.largest {
		c = -c
	}
	return c > 0 || c == 0 && a.i < b.i
}

func (h *topKHeap[T]) Len() int           { return len(h.e) }
func (h *topKHeap[T]) Less(p, q int) bool { return h.better(h.e[q], h.e[p]) }
func (h *topKHeap[T]) Swap(p, q int)      { h.e[p], h.e[q] = h.e[q], h.e[p] }
func (h *topKHeap[T]) Push(x any)         { h.e = append(h.e, x.(topKEntry[T])) }
func (h *topKHeap[T]) Pop() any {
	last := h.e[len(h.e)-1]
	h.e = h.e[:len(h.e)-1]
	return last
}

// topKRows writes the k best entries of every (outer, inner) row of in
// (outer × n × inner) to vals and their indices to idx (outer × k × inner),
// best first. Rows run in parallel.
func topKRows[T cmp.Ordered](in, vals []T, idx []int64, outer, n, inner, k int, largest bool) {
	if k == 0 {
		return
	}
	parallelFor(outer*inner, n*4, func(lo, hi int) {
		h := &topKHeap[T]{e: make([]topKEntry[T], 0, k), largest: largest}
		for r := lo; r < hi; r++ {
			o, i := r/inner, r%inner
			base := o*n*inner + i
			h.e = h.e[:0]
			for j := range n {
				v := in[base+j*inner]
				if len(h.e) == k && (largest && v < h.e[0].v || !largest && v > h.e[0].v) {
					continue // plainly worse than the worst kept: the common case
				}
				e := topKEntry[T]{v, j}
				switch {
				case len(h.e) < k:
					heap.Push(h, e)
				case h.better(e, h.e[0]):
					h.e[0] = e
					heap.Fix(h, 0)
				}
			}
			sort.Slice(h.e, func(p, q int) bool { return h.better(h.e[p], h.e[q]) })
			for j, e := range h.e {
				dst := o*k*inner + j*inner + i
				vals[dst] = e.v
				idx[dst] = int64(e.i)
			}
		}
	})
}
