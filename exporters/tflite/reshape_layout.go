package tfliteexport

// A reshape splits or merges runs of adjacent axes. Where every run it
// merges sits together, in order, in the file layout of its input, the
// reshape is a RESHAPE of the file tensor and its output keeps a layout
// of its own: a channel axis split in two (ShuffleNet's groups) stays
// last in NHWC with no TRANSPOSE.

// axisGroup is one run of input axes that becomes one run of output axes
// (the products of their sizes agree).
type axisGroup struct{ in, out []int }

// matchGroups pairs runs of xs's axes with runs of ys's axes of equal
// size; false when the sizes do not factor (not a reshape of static
// shapes).
func matchGroups(xs, ys []int64) ([]axisGroup, bool) {
	var groups []axisGroup
	i, j := 0, 0
	for i < len(xs) || j < len(ys) {
		// Unit axes are groups of their own: they go anywhere.
		if i < len(xs) && xs[i] == 1 {
			groups = append(groups, axisGroup{in: []int{i}})
			i++
			continue
		}
		if j < len(ys) && ys[j] == 1 {
			groups = append(groups, axisGroup{out: []int{j}})
			j++
			continue
		}
		var g axisGroup
		pi, pj := int64(1), int64(1)
		for {
			switch {
			case len(g.in) > 0 && len(g.out) > 0 && pi == pj:
			case (pi <= pj || j == len(ys)) && i < len(xs):
				pi *= xs[i]
				g.in = append(g.in, i)
				i++
				continue
			case j < len(ys):
				pj *= ys[j]
				g.out = append(g.out, j)
				j++
				continue
			}
			break
		}
		if pi != pj {
			return nil, false
		}
		groups = append(groups, g)
	}
	return groups, true
}

// forwardLayout returns the layout of a reshape's output that makes it a
// RESHAPE of the input held in layout p: each group's input axes must sit
// together and in order in p (unit axes anywhere).
func forwardLayout(xs []int64, p []int, ys []int64) ([]int, bool) {
	groups, ok := matchGroups(xs, ys)
	if !ok {
		return nil, false
	}
	groupOf := make([]int, len(xs))
	for gi, g := range groups {
		for _, a := range g.in {
			groupOf[a] = gi
		}
	}
	var order []int // non-unit input axes in file order
	for _, a := range permOrIdentity(p, len(xs)) {
		if xs[a] != 1 {
			order = append(order, a)
		}
	}
	emitted := make([]bool, len(groups))
	var q []int
	for k, a := range order {
		gi := groupOf[a]
		if emitted[gi] {
			// Must directly follow the previous axis of its group.
			if k == 0 || groupOf[order[k-1]] != gi || order[k-1] > a {
				return nil, false
			}
			continue
		}
		emitted[gi] = true
		q = append(q, groups[gi].out...)
	}
	for gi, g := range groups {
		if !emitted[gi] {
			q = append(q, g.out...)
		}
	}
	return q, len(q) == len(ys)
}

// backwardLayout returns the input layout from which the reshape into
// output layout q is a RESHAPE: each output run replaced by its input run.
func backwardLayout(xs, ys []int64, q []int) ([]int, bool) {
	groups, ok := matchGroups(xs, ys)
	if !ok {
		return nil, false
	}
	groupOf := make([]int, len(ys))
	for gi, g := range groups {
		for _, a := range g.out {
			groupOf[a] = gi
		}
	}
	emitted := make([]bool, len(groups))
	var p []int
	for _, a := range permOrIdentity(q, len(ys)) {
		gi := groupOf[a]
		if !emitted[gi] {
			emitted[gi] = true
			p = append(p, groups[gi].in...)
		}
	}
	for gi, g := range groups {
		if !emitted[gi] {
			p = append(p, g.in...)
		}
	}
	if len(p) != len(xs) {
		return nil, false
	}
	// The reshape from p must land in q's element order.
	if q2, ok := forwardLayout(xs, p, ys); !ok || !sameOrder(ys, q2, q) {
		return nil, false
	}
	return p, true
}
