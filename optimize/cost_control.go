package optimize

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	// Which branch runs, and how often a body runs, is mostly known at run
	// time only: such a node is priced by the bytes it moves. A Loop with
	// a constant trip count and a Scan over a static length are priced as
	// that many runs of their body, so that unroll_loops is compared like
	// with like.
	const why = "priced as one operation per output element and the bytes it moves: its subgraphs' work depends on run-time data"
	optable.Add(&costTable, map[string]costRule{
		"If":   perOutput(1, why),
		"Loop": repeatedBody(loopTrips, "a constant trip count M: M runs of the body as it is typed inside the node; otherwise "+why),
		"Scan": repeatedBody(scanLength, "a static scan length L: L runs of the body as it is typed inside the node; otherwise "+why),
	})
}

// repeatedBody prices a node as runs of its body (trips gives how many),
// each one call of the body besides its nodes' launches, plus the node's
// own launch; per output element when the count is unknown.
func repeatedBody(trips func(x costArgs) (float64, bool), detail string) costRule {
	return costRule{detail: detail, work: func(x costArgs, c *NodeCost) {
		n, known := trips(x)
		body, typed := bodyCost(x)
		if !known || !typed {
			c.FLOPs = numelOf(x.out)
			return
		}
		c.FLOPs = n * body.FLOPs
		c.TileFLOPs = n * body.TileFLOPs
		c.Bytes += n * body.Bytes
		c.Launches += int(n) * (1 + body.Launches)
		c.GroupGEMMs += int(n) * body.GroupGEMMs
	}}
}

// loopTrips is a Loop's constant trip count M.
func loopTrips(x costArgs) (float64, bool) {
	m := x.input(0).Const
	if m == nil || m.DType != canon.Int64 {
		return 0, false
	}
	v, err := m.Int64s()
	if err != nil || len(v) != 1 || v[0] < 0 {
		return 0, false
	}
	return float64(v[0]), true
}

// scanLength is a Scan's static number of steps.
func scanLength(x costArgs) (float64, bool) {
	op := x.n.Op.(*canon.Scan)
	if op.NumScanInputs < 1 {
		return 0, false
	}
	in := x.input(op.States())
	shape, ok := in.StaticShape()
	if !ok {
		return 0, false
	}
	axis, ok := normalized(op.InputAxis(0), len(shape))
	if !ok {
		return 0, false
	}
	return float64(shape[axis]), true
}

// bodyCost is the cost of one run of the node's body, typed as it runs
// inside the node.
func bodyCost(x costArgs) (NodeCost, bool) {
	in := make([]canon.ValueInfo, len(x.n.Inputs))
	for i := range in {
		in[i] = x.input(i)
	}
	scopes, err := canon.SubgraphScopes(x.n, in)
	if err != nil || len(scopes) != 1 {
		return NodeCost{}, false
	}
	body := scopes[0].Graph
	if err := body.Infer(); err != nil {
		return NodeCost{}, false
	}
	var total NodeCost
	info := mapInfo(body.Values)
	for _, n := range body.Nodes {
		c := nodeCost(n, info)
		total.FLOPs += c.FLOPs
		total.TileFLOPs += c.TileFLOPs
		total.Bytes += c.Bytes
		total.Launches += c.Launches
		total.GroupGEMMs += c.GroupGEMMs
	}
	return total, true
}
