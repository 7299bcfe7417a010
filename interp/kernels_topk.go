package interp

import (
	"cmp"
	"runtime"
	"slices"
)

// TopK keeps, for each row along the axis, the k best entries in a heap
// whose root is the worst one kept: O(n log k) per row instead of a sort
// of the whole row. Ties go to the lower index; NaN ranks below every
// number (cmp.Compare's order). A long row with no other rows to share
// the cores is cut into parts whose best k are found side by side, then
// merged: the best k of the union of every part's best k are the row's.

// topKEntry is one candidate: its value and its index along the axis.
type topKEntry[T cmp.Ordered] struct {
	v T
	i int
}

// topKHeap holds the best entries seen so far with the worst at the root.
type topKHeap[T cmp.Ordered] struct {
	e       []topKEntry[T]
	k       int
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

// offer considers e: kept while the heap has room, or in place of the
// worst kept entry when it ranks before it.
func (h *topKHeap[T]) offer(e topKEntry[T]) {
	if len(h.e) < h.k {
		h.e = append(h.e, e)
		for j := len(h.e) - 1; j > 0; {
			p := (j - 1) / 2
			if !h.better(h.e[p], h.e[j]) {
				break
			}
			h.e[p], h.e[j] = h.e[j], h.e[p]
			j = p
		}
		return
	}
	if !h.better(e, h.e[0]) {
		return
	}
	h.e[0] = e
	n := len(h.e)
	for j := 0; ; {
		w, l := j, 2*j+1
		if l < n && h.better(h.e[w], h.e[l]) {
			w = l
		}
		if r := l + 1; r < n && h.better(h.e[w], h.e[r]) {
			w = r
		}
		if w == j {
			break
		}
		h.e[j], h.e[w] = h.e[w], h.e[j]
		j = w
	}
}

// scan offers the strided row's entries j in [lo, hi).
func (h *topKHeap[T]) scan(in []T, base, inner, lo, hi int) {
	for j := lo; j < hi; j++ {
		v := in[base+j*inner]
		if len(h.e) == h.k && (h.largest && v < h.e[0].v || !h.largest && v > h.e[0].v) {
			continue // plainly worse than the worst kept: the common case
		}
		h.offer(topKEntry[T]{v, j})
	}
}

// sorted orders the kept entries best first.
func (h *topKHeap[T]) sorted() []topKEntry[T] {
	slices.SortFunc(h.e, func(a, b topKEntry[T]) int {
		if h.better(a, b) {
			return -1
		}
		return 1 // entries differ in index: never equal
	})
	return h.e
}

// topKSplitMin is the shortest row split between cores when rows are
// too few to go one per core.
const topKSplitMin = 1 << 14

// topKRows writes the k best entries of every (outer, inner) row of in
// (outer × n × inner) to vals and their indices to idx (outer × k × inner),
// best first. Rows run in parallel.
func topKRows[T cmp.Ordered](in, vals []T, idx []int64, outer, n, inner, k int, largest bool) {
	if k == 0 {
		return
	}
	write := func(o, i int, best []topKEntry[T]) {
		for j, e := range best {
			dst := o*k*inner + j*inner + i
			vals[dst] = e.v
			idx[dst] = int64(e.i)
		}
	}
	rows := outer * inner
	if parts := runtime.GOMAXPROCS(0); rows < parts && n >= topKSplitMin {
		for r := range rows {
			o, i := r/inner, r%inner
			base := o*n*inner + i
			step := (n + parts - 1) / parts
			found := make([]*topKHeap[T], parts)
			parallelFor(parts, step*4, func(lo, hi int) {
				for p := lo; p < hi; p++ {
					h := &topKHeap[T]{e: make([]topKEntry[T], 0, k), k: k, largest: largest}
					h.scan(in, base, inner, p*step, min(n, (p+1)*step))
					found[p] = h
				}
			})
			all := &topKHeap[T]{e: make([]topKEntry[T], 0, k), k: k, largest: largest}
			for _, h := range found {
				for _, e := range h.e {
					all.offer(e)
				}
			}
			write(o, i, all.sorted())
		}
		return
	}
	parallelFor(rows, n*4, func(lo, hi int) {
		h := &topKHeap[T]{e: make([]topKEntry[T], 0, k), k: k, largest: largest}
		for r := lo; r < hi; r++ {
			o, i := r/inner, r%inner
			h.e = h.e[:0]
			h.scan(in, o*n*inner+i, inner, 0, n)
			write(o, i, h.sorted())
		}
	})
}
