package interp

import (
	"cmp"

	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// topKSmall is the largest k whose candidates are kept sorted as they
// come: an entry that clears the bar is inserted among at most this many,
// and the bar (the k-th best so far) rises at once, so few more clear it.
// On a row of random numbers about k·ln(n/k) entries are ever inserted.
const topKSmall = 16

// topKEarly·k is how many entries of a row scanSmall tests one by one
// before it hands the rest to the vector scan.
const topKEarly = 16

// scanSmall is scan for k ≤ topKSmall: p.cand holds the best entries so
// far, best first, and an entry must rank before the k-th to go in.
func (p *topKPicker[T]) scanSmall(row []T, first int) {
	j := 0
	for ; j < len(row) && len(p.cand) < p.k; j++ {
		p.cand = append(p.cand, topKEntry[T]{row[j], first + j})
		p.sink(len(p.cand) - 1)
	}
	if j == len(row) {
		return
	}
	p.heldNaN = p.anyNaN()
	bar := p.cand[p.k-1].v
	// As in scan, an entry no better than the bar never ranks among the
	// best k, and the negated tests let NaN through where it might rank.
	// Early in a row entries clear the bar often (the j-th with odds k/j
	// on random data): there a loop here beats a call a hit.
	if early := min(len(row), topKEarly*p.k); p.largest {
		for ; j < early; j++ {
			if v := row[j]; !(v <= bar) {
				bar = p.offer(topKEntry[T]{v, first + j})
			}
		}
	} else {
		for ; j < early; j++ {
			if v := row[j]; !(v >= bar) {
				bar = p.offer(topKEntry[T]{v, first + j})
			}
		}
	}
	next := topKNext[T](p.largest)
	for {
		j += next(row[j:], bar)
		if j >= len(row) {
			return
		}
		bar = p.offer(topKEntry[T]{row[j], first + j})
		j++
	}
}

// topKNext returns the scan to the next entry that might beat the bar
// (!(v <= bar) for the largest, !(v >= bar) for the smallest): the vector
// kernels for float32, a loop for other types.
func topKNext[T cmp.Ordered](largest bool) func(row []T, bar T) int {
	var zero T
	if _, ok := any(zero).(float32); ok {
		f := vec.NextAbove
		if !largest {
			f = vec.NextBelow
		}
		return any(f).(func([]T, T) int)
	}
	if largest {
		return func(row []T, bar T) int {
			for i, v := range row {
				if !(v <= bar) {
					return i
				}
			}
			return len(row)
		}
	}
	return func(row []T, bar T) int {
		for i, v := range row {
			if !(v >= bar) {
				return i
			}
		}
		return len(row)
	}
}

// offer puts e, which cleared the bar, in the full, sorted candidates if
// it ranks before the k-th (dropping that one) and returns the k-th best's
// value. e's index is above every candidate's.
func (p *topKPicker[T]) offer(e topKEntry[T]) T {
	last := len(p.cand) - 1
	if e.v == e.v && !p.heldNaN {
		// No NaN on either side: clearing the bar, e is strictly better
		// than the k-th, and it ranks before a candidate exactly when its
		// value is better (an equal value's lower index ranks first).
		i := last
		if p.largest {
			for ; i > 0 && e.v > p.cand[i-1].v; i-- {
				p.cand[i] = p.cand[i-1]
			}
		} else {
			for ; i > 0 && e.v < p.cand[i-1].v; i-- {
				p.cand[i] = p.cand[i-1]
			}
		}
		p.cand[i] = e
		return p.cand[last].v
	}
	if p.before(e, p.cand[last]) {
		p.cand[last] = e
		p.sink(last)
		p.heldNaN = p.anyNaN()
	}
	return p.cand[last].v
}

// anyNaN reports whether a candidate is NaN.
func (p *topKPicker[T]) anyNaN() bool {
	for _, c := range p.cand {
		if c.v != c.v {
			return true
		}
	}
	return false
}

// sink moves the candidate at i up past every candidate it ranks before.
func (p *topKPicker[T]) sink(i int) {
	e := p.cand[i]
	for ; i > 0 && p.before(e, p.cand[i-1]); i-- {
		p.cand[i] = p.cand[i-1]
	}
	p.cand[i] = e
}
