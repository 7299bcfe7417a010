package interp

import (
	"cmp"
	"runtime"
	"slices"
)

// TopK picks, for each row along the axis, the k best entries by a
// threshold pass: once k candidates are held, the k-th best of them is a
// bar that an entry must clear to be kept at all, so the scan over the row
// is one comparison an entry, and only the few entries that clear the bar
// are ever ranked. When the candidates fill their buffer, a selection keeps
// the best k and raises the bar. Ties go to the lower index; NaN ranks
// below every number (cmp.Compare's order), so for the smallest k it ranks
// first. A long row with no other rows to share the cores is cut into
// parts whose best k are found side by side, then merged: the best k of
// the union of every part's best k are the row's.

// topKEntry is one candidate: its value and its index along the axis.
type topKEntry[T cmp.Ordered] struct {
	v T
	i int
}

// topKPicker holds the candidates of one row (or part of one).
type topKPicker[T cmp.Ordered] struct {
	cand    []topKEntry[T]
	k       int
	largest bool
	heldNaN bool // a candidate is NaN (scanSmall's candidates)
}

func newTopKPicker[T cmp.Ordered](k int, largest bool) *topKPicker[T] {
	return &topKPicker[T]{cand: make([]topKEntry[T], 0, topKBuffer(k)), k: k, largest: largest}
}

// topKBuffer is how many candidates are held before a selection: a few
// times k, so each selection's linear cost is spread over many entries.
func topKBuffer(k int) int { return 2*k + 8 }

// order ranks a before b (negative) or after it (positive); entries differ
// in index, so never equal.
func (p *topKPicker[T]) order(a, b topKEntry[T]) int {
	c := cmp.Compare(b.v, a.v)
	if !p.largest {
		c = -c
	}
	if c != 0 {
		return c
	}
	return cmp.Compare(a.i, b.i)
}

// before reports whether a ranks before b: order < 0 without the
// three-way compare, for the many comparisons of short selections.
func (p *topKPicker[T]) before(a, b topKEntry[T]) bool {
	aNaN, bNaN := a.v != a.v, b.v != b.v
	if aNaN || bNaN {
		if aNaN && bNaN {
			return a.i < b.i
		}
		return bNaN == p.largest // NaN ranks last for the largest, first for the smallest
	}
	if a.v == b.v {
		return a.i < b.i
	}
	return (a.v > b.v) == p.largest
}

// insertionSort orders e best first; for the short runs of a selection.
func (p *topKPicker[T]) insertionSort(e []topKEntry[T]) {
	for i := 1; i < len(e); i++ {
		x := e[i]
		j := i
		for ; j > 0 && p.before(x, e[j-1]); j-- {
			e[j] = e[j-1]
		}
		e[j] = x
	}
}

// scan offers row's entries, row[j] being index first+j.
func (p *topKPicker[T]) scan(row []T, first int) {
	if p.k <= topKSmall {
		p.scanSmall(row, first)
		return
	}
	limit := cap(p.cand)
	// A whole buffer's entries go in before the first bar: the k-th best
	// of several times k is a bar few later entries clear.
	j := 0
	for ; j < len(row) && len(p.cand) < limit; j++ {
		p.cand = append(p.cand, topKEntry[T]{row[j], first + j})
	}
	if j == len(row) || len(p.cand) < p.k {
		return
	}
	bar := p.bar()
	// The bar is the k-th best candidate's value: an entry no better than
	// it (an equal one comes later, so ranks after it) is never among the
	// best k. The negated tests let NaN through where it might rank: a
	// NaN bar (too few numbers yet) lets everything through.
	if p.largest {
		for ; j < len(row); j++ {
			if v := row[j]; !(v <= bar) {
				p.cand = append(p.cand, topKEntry[T]{v, first + j})
				if len(p.cand) == limit {
					bar = p.bar()
				}
			}
		}
		return
	}
	for ; j < len(row); j++ {
		if v := row[j]; !(v >= bar) {
			p.cand = append(p.cand, topKEntry[T]{v, first + j})
			if len(p.cand) == limit {
				bar = p.bar()
			}
		}
	}
}

// bar keeps the best k candidates (k-th best last) and returns the k-th
// best's value.
func (p *topKPicker[T]) bar() T {
	p.selectK()
	return p.cand[p.k-1].v
}

// selectK reorders the candidates so that the first k are the best k with
// the k-th best at k-1, and drops the rest (a quickselect: each step
// partitions around a median of three and keeps the side holding k-1).
func (p *topKPicker[T]) selectK() {
	e, target := p.cand, p.k-1
	lo, hi := 0, len(e)-1
	for hi > lo {
		if hi-lo < 16 {
			p.insertionSort(e[lo : hi+1])
			break
		}
		mid := lo + (hi-lo)/2
		if p.before(e[mid], e[lo]) {
			e[mid], e[lo] = e[lo], e[mid]
		}
		if p.before(e[hi], e[lo]) {
			e[hi], e[lo] = e[lo], e[hi]
		}
		if p.before(e[hi], e[mid]) {
			e[hi], e[mid] = e[mid], e[hi]
		}
		pivot := e[mid]
		e[mid], e[hi-1] = e[hi-1], e[mid]
		i, j := lo, hi-1
		for {
			for i++; p.before(e[i], pivot); i++ {
			}
			for j--; p.before(pivot, e[j]); j-- {
			}
			if i >= j {
				break
			}
			e[i], e[j] = e[j], e[i]
		}
		e[i], e[hi-1] = e[hi-1], e[i]
		switch {
		case target < i:
			hi = i - 1
		case target > i:
			lo = i + 1
		default:
			lo = hi
		}
	}
	p.cand = e[:p.k]
}

// best returns the best k candidates, best first.
func (p *topKPicker[T]) best() []topKEntry[T] {
	if len(p.cand) > p.k {
		p.selectK()
	}
	if len(p.cand) <= 32 {
		p.insertionSort(p.cand)
	} else {
		slices.SortFunc(p.cand, p.order)
	}
	return p.cand
}

// topKSplitMin is the shortest row split between cores when rows are
// too few to go one per core: below it the scan of one core (about a
// nanosecond an entry) is shorter than waiting for another core to start.
// (A variable so tests can split short rows.)
var topKSplitMin = 1 << 18

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
	// row returns row (o, i) as a contiguous slice, gathered into buf when
	// the axis is not the last.
	row := func(o, i int, buf []T) []T {
		if inner == 1 {
			return in[o*n : (o+1)*n]
		}
		for j := range buf {
			buf[j] = in[o*n*inner+j*inner+i]
		}
		return buf
	}
	rows := outer * inner
	if parts := runtime.GOMAXPROCS(0); rows < parts && n >= topKSplitMin {
		buf := make([]T, n)
		for r := range rows {
			o, i := r/inner, r%inner
			line := row(o, i, buf)
			step := (n + parts - 1) / parts
			found := make([]*topKPicker[T], parts)
			parallelFor(parts, step, func(lo, hi int) {
				for q := lo; q < hi; q++ {
					a, b := min(n, q*step), min(n, (q+1)*step)
					h := newTopKPicker[T](min(k, b-a), largest)
					if b > a {
						h.scan(line[a:b], a)
						h.best()
					}
					found[q] = h
				}
			})
			all := newTopKPicker[T](k, largest)
			for _, h := range found {
				all.cand = append(all.cand, h.cand...)
			}
			write(o, i, all.best())
		}
		return
	}
	// The scan takes under a nanosecond an entry: rows share the cores
	// only from about a quarter million entries, where the handoff pays.
	parallelFor(rows, max(1, n/4), func(lo, hi int) {
		h := newTopKPicker[T](k, largest)
		var buf []T
		if inner > 1 {
			buf = make([]T, n)
		}
		for r := lo; r < hi; r++ {
			o, i := r/inner, r%inner
			h.cand = h.cand[:0]
			h.scan(row(o, i, buf), 0)
			write(o, i, h.best())
		}
	})
}
