package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// Tail duplication. A scripted if whose branches leave a value with
// different ranks (torchvision's BoxCoder.decode reshapes to three axes only
// when there are boxes) cannot become one If whose output later operators
// compute with: most operators need the rank. Such an if is instead
// imported with the rest of the program after it (the tail) run once in
// each branch, so that each branch keeps its own ranks to the end and the
// If's outputs are the graph's outputs.
//
// The importer runs the program once, with Go calls for Python calls, so
// the code after an if is not a block it can run twice. It runs the whole
// import again instead, once per branch: each run imports the code before
// the if as before, then runs the chosen branch and everything after it
// into a subgraph that stays open to the end (the graph's outputs). The two
// runs are then joined into one If (read_fork.go). Everything is exact:
// each branch is the code PyTorch runs when the condition takes it.

// maxRankForks bounds the ifs split this way along one path: each doubles
// the code after it.
const maxRankForks = 3

// forkState is what an import knows about the ifs it splits.
type forkState struct {
	// take is the branch each split if takes in this run, by the if's
	// ordinal (its place among the run-time ifs in the order they run).
	take map[int]bool
	// reserve holds, by ordinal, the names the other branch's run used:
	// they are reserved when this run's tail starts, so that the names
	// the two tails define are distinct.
	reserve map[int]map[string]bool
	// ifs counts the run-time ifs reached so far.
	ifs int
	// splits are the If outputs whose rank differs between branches, with
	// the if that made them, for the refusal or the split.
	splits map[string]rankSplit
	// request is the if this run found must be split, when it found one.
	request *rankSplit
	// tails are the open tails, outermost first.
	tails []*tail
	// nodes are the Ifs that close the tails, by ordinal.
	nodes map[int]*forkNode
}

// rankSplit is an if whose branches give a value different ranks.
type rankSplit struct {
	ordinal            int
	where              string
	value              string
	thenRank, elseRank int
	// splittable is false when the if lies inside a loop body or another
	// if's branch: its tail ends with that body, not with the program.
	splittable bool
}

// tail is a split if's branch and the code after it, being imported into
// sub.
type tail struct {
	ordinal  int
	where    string
	takeThen bool
	cond     *tensorVal
	outer    *canon.Graph
	sub      *canon.Graph
	scope    string
}

// forkNode is the If that closes a tail: one branch is the tail, the other
// is filled from the other run.
type forkNode struct {
	node     *canon.Node
	graph    *canon.Graph // the graph holding node
	index    int          // node's position in graph
	takeThen bool
	where    string
}

func newForkState() *forkState {
	return &forkState{take: map[int]bool{}, reserve: map[int]map[string]bool{}, splits: map[string]rankSplit{}, nodes: map[int]*forkNode{}}
}

// fresh is the plan s with nothing run yet.
func (s *forkState) fresh() *forkState {
	n := newForkState()
	for k, v := range s.take {
		n.take[k] = v
	}
	for k, v := range s.reserve {
		n.reserve[k] = v
	}
	return n
}

// with is a plan that also splits the if at ordinal, taking the then
// branch when takeThen; reserved are the names the other run used.
func (s *forkState) with(ordinal int, takeThen bool, reserved map[string]bool) *forkState {
	n := s.fresh()
	n.take[ordinal] = takeThen
	if reserved != nil {
		n.reserve[ordinal] = reserved
	}
	return n
}

// nextIf numbers a run-time if.
func (in *evaluator) nextIf() int {
	if in.forks == nil {
		return -1
	}
	n := in.forks.ifs
	in.forks.ifs++
	return n
}

// splitTaken reports whether the if at ordinal is split in this run, and
// which branch the run takes.
func (in *evaluator) splitTaken(ordinal int) (takeThen, split bool) {
	if in.forks == nil || ordinal < 0 {
		return false, false
	}
	takeThen, split = in.forks.take[ordinal]
	return takeThen, split
}

// openTail runs the taken branch of a split if into a new subgraph that
// stays the builder's graph to the end of the import.
func (in *evaluator) openTail(f *frame, st *ifStmt, cond *tensorVal, ordinal int, takeThen bool) error {
	b := in.b
	if b.root == nil {
		b.root = b.g
	}
	for name := range in.forks.reserve[ordinal] {
		b.used[name] = true
	}
	name, body := "else_branch", st.els
	if takeThen {
		name, body = "then_branch", st.then
	}
	t := &tail{ordinal: ordinal, where: fmt.Sprintf("%s:%d", f.fn.file, st.line), takeThen: takeThen, cond: cond, outer: b.g, sub: &canon.Graph{Name: name}, scope: f.scope}
	in.forks.tails = append(in.forks.tails, t)
	b.g = t.sub
	return in.runBlock(f, body)
}

// closeTails ends the open tails, innermost first: each becomes one branch
// of an If (the other branch, for now, the same graph) whose outputs are
// outs, the program's results. nil entries of outs stay nil.
func (in *evaluator) closeTails(outs []*tensorVal) ([]*tensorVal, error) {
	if in.forks == nil {
		return outs, nil
	}
	b := in.b
	for len(in.forks.tails) > 0 {
		t := in.forks.tails[len(in.forks.tails)-1]
		in.forks.tails = in.forks.tails[:len(in.forks.tails)-1]
		var live []*tensorVal
		var at []int
		for i, o := range outs {
			if o != nil {
				live = append(live, o)
				at = append(at, i)
			}
		}
		caps, err := in.finishSubgraph(t.sub, live)
		if err != nil {
			return nil, fmt.Errorf("the code after the if at %s: %w", t.where, err)
		}
		b.g = t.outer
		op := &canon.If{Then: t.sub, Else: t.sub, Captures: caps}
		ins := append([]*tensorVal{t.cond}, captureVals(b, caps)...)
		res, err := b.emit(t.scope, op, ins, len(live))
		if err != nil {
			return nil, fmt.Errorf("the if at %s with the code after it: %w", t.where, err)
		}
		in.forks.nodes[t.ordinal] = &forkNode{node: b.g.Nodes[len(b.g.Nodes)-1], graph: b.g, index: len(b.g.Nodes) - 1, takeThen: t.takeThen, where: t.where}
		next := make([]*tensorVal, len(outs))
		for k, i := range at {
			next[i] = res[k]
		}
		outs = next
	}
	return outs, nil
}
