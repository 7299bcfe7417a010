package torchscript

import (
	"fmt"
	"sort"

	"github.com/modelbridge/modelbridge/canon"
)

// Lists that scripted branches and loops append to. While a branch or loop
// body is built, each list the body appends to (through a variable) is
// replaced by an appendOnlyList: the body may append to it, nothing more
// (reading it would read what one run holds, not what the list holds at
// run time). Lists the body does not append to read as usual. After the
// body:
//   - a branch's appends become items of the list, paired with the other
//     branch's through the If's outputs (both branches must append as many);
//   - a loop's one append per iteration becomes a scan output of the Loop,
//     and the list a runList: its items stacked along a new first axis,
//     which torch.stack, torch.cat, len and indexing read.

// appendOnlyList is a list from outside a branch or loop body, as the
// body sees it: added holds what the body appended.
type appendOnlyList struct {
	outer value // *listVal, *runList or *appendOnlyList
	added []value
}

// runList is a list whose length only a run tells: the tensors head
// (known at import), then the slices of stacked along axis 0 (a Loop's
// scan output). Every item has one shape.
type runList struct {
	head    []*tensorVal
	stacked *tensorVal
	// depth is the body depth the list was made at: appends there add
	// nodes to that body (a deeper body sees the list through an
	// appendOnlyList).
	depth int
}

// listBody is the list state of one branch or loop body being built.
type listBody struct {
	wraps []*appendOnlyList
	names map[*appendOnlyList][]string // the variables that held each list
}

// appendTargets are the variables the blocks append to (aten::append
// statements, nested blocks included). An append elsewhere (inside an
// expression, or in a called function) meets a list that was not wrapped
// and is refused unless the body made that list.
func appendTargets(blocks ...[]stmt) map[string]bool {
	out := map[string]bool{}
	var walk func([]stmt)
	walk = func(ss []stmt) {
		for _, s := range ss {
			var x expr
			switch st := s.(type) {
			case *assignStmt:
				x = st.value
			case *exprStmt:
				x = st.x
			case *ifStmt:
				walk(st.then)
				walk(st.els)
			case *forStmt:
				walk(st.body)
			case *whileStmt:
				walk(st.body)
			}
			call, ok := x.(*callExpr)
			if !ok || len(call.args) == 0 {
				continue
			}
			if p := exprPath(call.fn); p == "torch.append" || p == "ops.aten.append" {
				if n, ok := call.args[0].(*nameExpr); ok {
					out[n.name] = true
				}
			}
		}
	}
	for _, b := range blocks {
		walk(b)
	}
	return out
}

// wrapLists replaces, in f, every list the body appends to (targets: the
// variables it appends to; every variable holding the same list) with an
// appendOnlyList for the body about to be built (in.b.subDepth is the
// body's depth).
func (in *evaluator) wrapLists(f *frame, targets map[string]bool) *listBody {
	lb := &listBody{names: map[*appendOnlyList][]string{}}
	made := map[value]*appendOnlyList{}
	keys := make([]string, 0, len(f.vars))
	for k := range f.vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	appended := map[value]bool{}
	for k := range targets {
		if v, ok := f.vars[k]; ok {
			appended[v] = true
		}
	}
	for _, k := range keys {
		v := f.vars[k]
		switch v.(type) {
		case *listVal, *appendOnlyList, *runList:
		default:
			continue
		}
		if !appended[v] {
			continue
		}
		w := made[v]
		if w == nil {
			w = &appendOnlyList{outer: v}
			made[v] = w
			lb.wraps = append(lb.wraps, w)
		}
		lb.names[w] = append(lb.names[w], k)
		f.vars[k] = w
	}
	return lb
}

// unwrap puts back the outer list wherever vars (a body's variables as it
// left them) hold one of the body's wrappers.
func (lb *listBody) unwrap(vars map[string]value) {
	if lb == nil {
		return
	}
	for k, v := range vars {
		if w, ok := v.(*appendOnlyList); ok && lb.names[w] != nil {
			vars[k] = w.outer
		}
	}
}

// name is a variable that held w, for messages.
func (lb *listBody) name(w *appendOnlyList) string {
	if n := lb.names[w]; len(n) > 0 {
		return n[0]
	}
	return "a list"
}

// canMutate reports whether code at the current depth may change l: any
// list outside branches and loops, or one the current body made.
func (b *builder) canMutate(l *listVal) bool {
	return b.subDepth == 0 || (b.listDepth != nil && b.listDepth[l] == b.subDepth)
}

// madeList records that l was made by the body being built.
func (b *builder) madeList(l *listVal) *listVal {
	if b.subDepth > 0 {
		if b.listDepth == nil {
			b.listDepth = map[*listVal]int{}
		}
		b.listDepth[l] = b.subDepth
	}
	return l
}

// appendItems appends items to list v (a list or a body's view of one).
func (in *evaluator) appendItems(v value, items []value) error {
	switch l := v.(type) {
	case *appendOnlyList:
		l.added = append(l.added, items...)
		return nil
	case *listVal:
		if !in.b.canMutate(l) {
			return fmt.Errorf("aten::append inside a branch or loop to a list made elsewhere: only lists the model's variables hold are followed")
		}
		l.items = append(l.items, items...)
		return nil
	case *runList:
		for _, it := range items {
			if err := in.b.extend(l, it); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("aten::append to a %s", typeName(v))
}

// extend appends item (one tensor) to l in place, through a Concat.
func (b *builder) extend(l *runList, item value) error {
	t, ok := item.(*tensorVal)
	if !ok {
		return fmt.Errorf("aten::append of a %s to a list of tensors built by a loop", typeName(item))
	}
	if l.depth != b.subDepth {
		return fmt.Errorf("aten::append inside a branch or loop to a list built by a loop elsewhere (only appends through the list's own variable are followed)")
	}
	u, err := b.emit1("", &canon.Unsqueeze{Axes: []int64{0}}, t)
	if err != nil {
		return err
	}
	return b.join(l, u)
}

// join makes l its items followed by the slices of more (stacked along
// axis 0).
func (b *builder) join(l *runList, more *tensorVal) error {
	all, err := b.materialize("", l)
	if err != nil {
		return err
	}
	s, err := b.emit1("", &canon.Concat{Axis: 0}, all, more)
	if err != nil {
		return err
	}
	l.head, l.stacked = nil, s
	return nil
}

// listAppend is aten::append on v. A runList (outside branches and
// loops) gains the item through a Concat.
func (c *opCall) listAppend(v, item value) (value, error) {
	switch l := v.(type) {
	case *appendOnlyList, *listVal, *runList:
		if err := c.in.appendItems(l, []value{item}); err != nil {
			return nil, c.errf("%v", err)
		}
		return l, nil
	}
	return nil, c.errf("append to a %s", typeName(v))
}

// loopScans checks what a loop body appended to the lists it reaches and
// returns, per list that got one item, that item: the body's scan
// outputs. scan says whether appends may become scan outputs at all (not
// for a loop the importer unrolls instead).
func (lb *listBody) loopScans(scan bool) ([]*appendOnlyList, []*tensorVal, error) {
	var lists []*appendOnlyList
	var items []*tensorVal
	for _, w := range lb.wraps {
		switch len(w.added) {
		case 0:
			continue
		case 1:
		default:
			return nil, nil, fmt.Errorf("aten::append: the loop appends %d items to %s in one iteration; only one append per list and iteration becomes a Loop scan output", len(w.added), lb.name(w))
		}
		if !scan {
			return nil, nil, fmt.Errorf("aten::append inside a loop builds list %s at run time", lb.name(w))
		}
		t, ok := w.added[0].(*tensorVal)
		if !ok {
			return nil, nil, fmt.Errorf("aten::append: the loop appends a %s to %s; only tensors become Loop scan outputs", typeName(w.added[0]), lb.name(w))
		}
		lists = append(lists, w)
		items = append(items, t)
	}
	return lists, items, nil
}

// scanned makes outer, a list the loop appended one tensor per iteration
// to, the runList of its items and the Loop's scan output stacked, and
// binds it to every variable of f that held outer.
func (in *evaluator) scanned(f *frame, outer value, stacked *tensorVal, name string) error {
	if rl, ok := outer.(*runList); ok {
		return in.b.join(rl, stacked)
	}
	l, ok := outer.(*listVal)
	if !ok {
		return fmt.Errorf("aten::append: a loop inside a branch or loop appends a run-time number of items to %s", name)
	}
	if !in.b.canMutate(l) {
		return fmt.Errorf("aten::append inside a loop to %s, a list made elsewhere", name)
	}
	tl := &runList{stacked: stacked, depth: in.b.subDepth}
	for i, it := range l.items {
		t, ok := it.(*tensorVal)
		if !ok {
			return fmt.Errorf("aten::append: %s holds a %s (item %d) before the loop appends tensors to it", name, typeName(it), i)
		}
		tl.head = append(tl.head, t)
	}
	for k, v := range f.vars {
		if v == outer {
			f.vars[k] = tl
		}
	}
	return nil
}

// materialize is every item of l stacked along a new first axis.
func (b *builder) materialize(scope string, l *runList) (*tensorVal, error) {
	if len(l.head) == 0 {
		return l.stacked, nil
	}
	parts := make([]*tensorVal, 0, len(l.head)+1)
	for _, h := range l.head {
		u, err := b.emit1(scope, &canon.Unsqueeze{Axes: []int64{0}}, h)
		if err != nil {
			return nil, err
		}
		parts = append(parts, u)
	}
	parts = append(parts, l.stacked)
	return b.emit1(scope, &canon.Concat{Axis: 0}, parts...)
}

// stackList is torch.stack(l, dim) of a runList: its items stacked
// along axis 0, moved to dim.
func (c *opCall) stackList(l *runList) (value, error) {
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	all, err := c.b().materialize(c.scope, l)
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(all, "the stacked list")
	if err != nil {
		return nil, err
	}
	if d, err = c.axis(d, r); err != nil {
		return nil, err
	}
	if d == 0 {
		return all, nil
	}
	return c.b().emit1(c.scope, &canon.Transpose{Perm: moveFirst(r, int(d))}, all)
}

// moveFirst is the permutation of r axes moving axis 0 to position d.
func moveFirst(r, d int) []int64 {
	perm := make([]int64, 0, r)
	for i := 1; i <= d; i++ {
		perm = append(perm, int64(i))
	}
	perm = append(perm, 0)
	for i := d + 1; i < r; i++ {
		perm = append(perm, int64(i))
	}
	return perm
}

// catList is torch.cat(l, dim) of a runList: the stacked items with
// axis 0 moved next to dim, then the two merged by a Reshape whose shape
// is read at run time.
func (c *opCall) catList(l *runList) (value, error) {
	d, err := c.int(1)
	if err != nil {
		return nil, err
	}
	b := c.b()
	all, err := b.materialize(c.scope, l)
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(all, "the stacked list")
	if err != nil {
		return nil, err
	}
	if r < 2 {
		return nil, c.errf("zero-dimensional tensors cannot be concatenated")
	}
	if d, err = c.axis(d, r-1); err != nil {
		return nil, err
	}
	moved := all
	if d > 0 {
		if moved, err = b.emit1(c.scope, &canon.Transpose{Perm: moveFirst(r, int(d))}, all); err != nil {
			return nil, err
		}
	}
	var parts []*tensorVal
	if d > 0 {
		before, err := b.emit1(c.scope, &canon.ShapeOf{Start: 0, End: d}, moved)
		if err != nil {
			return nil, err
		}
		parts = append(parts, before)
	}
	parts = append(parts, &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{-1})})
	if int(d)+2 < r {
		after, err := b.emit1(c.scope, &canon.ShapeOf{Start: d + 2, End: int64(r)}, moved)
		if err != nil {
			return nil, err
		}
		parts = append(parts, after)
	}
	shape := parts[0]
	if len(parts) > 1 {
		if shape, err = b.emit1(c.scope, &canon.Concat{Axis: 0}, parts...); err != nil {
			return nil, err
		}
	}
	return b.emit1(c.scope, &canon.Reshape{}, moved, shape)
}

// listLen is len(l) of a runList: a run-time int.
func (c *opCall) listLen(l *runList) (value, error) {
	b := c.b()
	n, err := b.emit1(c.scope, &canon.ShapeOf{Start: 0, End: 1}, l.stacked)
	if err != nil {
		return nil, err
	}
	if len(l.head) > 0 {
		k := &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{int64(len(l.head))})}
		if n, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Add}, n, k); err != nil {
			return nil, err
		}
	}
	return &dynInt{t: n, sym: n.name}, nil
}

// listItem is l[idx] of a runList (idx known at import or at run time;
// negative counts from the end).
func (b *builder) listItem(scope string, l *runList, idx value) (value, error) {
	var at *tensorVal
	from := l.stacked
	switch i := idx.(type) {
	case int64:
		if i >= 0 && i < int64(len(l.head)) {
			return l.head[i], nil
		}
		if i >= 0 {
			i -= int64(len(l.head))
		} else if len(l.head) > 0 {
			all, err := b.materialize(scope, l)
			if err != nil {
				return nil, err
			}
			from = all
		}
		at = &tensorVal{konst: canon.NewInt64Tensor("", []int64{}, []int64{i})}
	case *dynInt:
		all, err := b.materialize(scope, l)
		if err != nil {
			return nil, err
		}
		from = all
		s, err := b.emit1(scope, &canon.Reshape{}, i.t, scalarShape())
		if err != nil {
			return nil, err
		}
		at = s
	default:
		return nil, fmt.Errorf("list index must be an int, not %s", typeName(idx))
	}
	return b.emit1(scope, &canon.Gather{Axis: 0}, from, at)
}

// branchAppends are the items both branches of an If append to each list,
// each rebuilt from the If's outputs.
type branchAppends []struct {
	outer value
	items []func([]*tensorVal) value
}

// mergeAppends pairs the items the two branches appended to each list
// (merge makes a pair an output of the If where they differ). Both
// branches must append as many items to a list.
func mergeAppends(thenLists, elseLists *listBody, merge func(string, value, value) (func([]*tensorVal) value, error)) (branchAppends, error) {
	var out branchAppends
	if thenLists == nil || elseLists == nil || len(thenLists.wraps) != len(elseLists.wraps) {
		return nil, fmt.Errorf("internal error: the branches see different lists")
	}
	for i, wt := range thenLists.wraps {
		we := elseLists.wraps[i]
		if wt.outer != we.outer {
			return nil, fmt.Errorf("internal error: the branches see different lists")
		}
		name := thenLists.name(wt)
		if len(wt.added) != len(we.added) {
			return nil, fmt.Errorf("aten::append: the branches append %d and %d items to %s, so its length is known only at run time: that needs sequence values (append as often in both branches, or trace the model)", len(wt.added), len(we.added), name)
		}
		if len(wt.added) == 0 {
			continue
		}
		entry := struct {
			outer value
			items []func([]*tensorVal) value
		}{outer: wt.outer}
		for k := range wt.added {
			r, err := merge(fmt.Sprintf("item %d appended to %s", k, name), wt.added[k], we.added[k])
			if err != nil {
				return nil, err
			}
			entry.items = append(entry.items, r)
		}
		out = append(out, entry)
	}
	return out, nil
}

// apply appends the merged items to their lists.
func (a branchAppends) apply(in *evaluator, outs []*tensorVal) error {
	for _, e := range a {
		items := make([]value, len(e.items))
		for i, r := range e.items {
			items[i] = r(outs)
		}
		if err := in.appendItems(e.outer, items); err != nil {
			return err
		}
	}
	return nil
}
