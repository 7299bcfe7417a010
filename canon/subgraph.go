package canon

import (
	"fmt"
	"strings"
)

// Control-flow ops (If, Loop, Scan) own graphs. A subgraph is an ordinary
// Graph: its Inputs are the formal parameters the op binds each time it
// runs it (a loop body's iteration number and carried values; none for an
// If branch), its Outputs what one run yields.
//
// A subgraph never reads the enclosing graph's values by name. Every outer
// value it reads is listed in the op's Captures (the name the subgraph
// uses), and the node passes the outer value as one of its last inputs, in
// the same order. So every pass that follows values through node inputs
// (dead-code removal, renaming, constant folding, reordering) sees what
// the subgraphs read, and renaming an outer value never reaches inside.

// NamedGraph is one subgraph of a node, under its attribute's name
// ("then_branch", "body").
type NamedGraph struct {
	Attr  string
	Graph *Graph
}

// SubgraphOwner is an op that owns graphs.
type SubgraphOwner interface {
	Op
	// Subgraphs lists the op's graphs in a fixed order.
	Subgraphs() []NamedGraph
	// CaptureNames are the names, inside the subgraphs, of the outer
	// values the node passes as its last len(CaptureNames()) inputs.
	CaptureNames() []string
}

// HasSubgraphs reports whether op owns graphs. Passes that do not look
// inside subgraphs leave such nodes (and the values they capture) alone.
func HasSubgraphs(op Op) bool {
	_, ok := op.(SubgraphOwner)
	return ok && !isNilOp(op)
}

// GraphHasSubgraphs reports whether any node of g owns graphs.
func GraphHasSubgraphs(g *Graph) bool {
	for _, n := range g.Nodes {
		if n != nil && HasSubgraphs(n.Op) {
			return true
		}
	}
	return false
}

// CaptureInputs returns the node's inputs that bind op's captures (the
// outer values, in CaptureNames order).
func CaptureInputs(n *Node) []string {
	o, ok := n.Op.(SubgraphOwner)
	if !ok {
		return nil
	}
	k := len(o.CaptureNames())
	if k > len(n.Inputs) {
		return nil
	}
	return n.Inputs[len(n.Inputs)-k:]
}

// ScopeGraph is sub as it runs inside its node: a shallow copy whose
// Inputs are the formal inputs (typed by formal where given; sub's own
// declarations otherwise) followed by the captured values, typed as the
// outer values are. Validating or running the copy validates or runs sub.
func ScopeGraph(sub *Graph, formal []ValueInfo, captures []string, captureTypes []ValueInfo) *Graph {
	cp := *sub
	cp.Values = nil
	cp.resources = nil
	cp.Inputs = make([]ValueInfo, 0, len(sub.Inputs)+len(captures))
	for i, v := range sub.Inputs {
		if i < len(formal) && formal[i].DType != Undefined {
			f := formal[i]
			f.Name = v.Name
			f.Shape = cloneDims(f.Shape)
			v = f
		}
		cp.Inputs = append(cp.Inputs, v)
	}
	for i, name := range captures {
		v := ValueInfo{Name: name}
		if i < len(captureTypes) {
			v = captureTypes[i]
			v.Name = name
			v.Shape = cloneDims(v.Shape)
		}
		cp.Inputs = append(cp.Inputs, v)
	}
	cp.Outputs = append([]ValueInfo(nil), sub.Outputs...)
	return &cp
}

// inferSubgraph validates one subgraph of c's node in its scope and
// returns the types of its outputs.
func (c *InferCtx) inferSubgraph(attr string, sub *Graph, formal []ValueInfo) ([]ValueInfo, error) {
	owner := c.n.Op.(SubgraphOwner)
	caps := owner.CaptureNames()
	capTypes := c.in[len(c.in)-len(caps):]
	scope := ScopeGraph(sub, formal, caps, capTypes)
	if err := scope.Validate(); err != nil {
		return nil, c.errf("subgraph %s: %v", attr, err)
	}
	outs := scope.Outputs
	for i, o := range outs {
		v, ok := scope.Values.Lookup(o.Name)
		if !ok {
			continue
		}
		if v.Const != nil {
			outs[i].Const = v.Const // known whatever the run: a branch of constants
		}
		// A symbolic size inference found (the batch N) names an axis the
		// subgraph's declaration leaves open.
		if o.RankKnown && v.RankKnown && len(o.Shape) == len(v.Shape) {
			outs[i].Shape = cloneDims(o.Shape) // the declaration stays as written
			for k, d := range o.Shape {
				if !d.Known() && d.Param == "" && !v.Shape[k].Known() && v.Shape[k].Param != "" {
					outs[i].Shape[k] = v.Shape[k]
				}
			}
		}
	}
	return outs, nil
}

// checkSubgraphShape is the structural check shared by control-flow ops:
// every subgraph is present, its names are distinct from the captures, and
// the node has one input per capture.
func checkSubgraphShape(c *CheckCtx, o SubgraphOwner) error {
	caps := o.CaptureNames()
	seen := map[string]bool{}
	for _, name := range caps {
		if name == "" {
			return c.Errorf("a capture has no name")
		}
		if seen[name] {
			return c.Errorf("capture %q is listed twice", name)
		}
		seen[name] = true
	}
	for _, s := range o.Subgraphs() {
		if s.Graph == nil {
			return c.Errorf("subgraph %s is missing", s.Attr)
		}
		for _, in := range s.Graph.Inputs {
			if seen[in.Name] {
				return c.Errorf("subgraph %s: input %q has the name of a capture", s.Attr, in.Name)
			}
		}
	}
	if len(c.N.Inputs) < len(caps) {
		return c.Errorf("has %d inputs for %d captures", len(c.N.Inputs), len(caps))
	}
	for i, in := range CaptureInputs(c.N) {
		if in == "" {
			return c.Errorf("capture %q (input #%d) is bound to no value", caps[i], len(c.N.Inputs)-len(caps)+i)
		}
	}
	return nil
}

// LooseType is v with only what holds on every run: its dtype, and its
// rank and dims where they agree with w's. Used for values whose shape may
// change from one iteration or branch to the next.
func LooseType(v, w ValueInfo) ValueInfo {
	out := ValueInfo{Name: v.Name, DType: v.DType, Kind: v.Kind}
	if w.DType != v.DType {
		out.DType = Undefined
	}
	if !v.RankKnown || !w.RankKnown || len(v.Shape) != len(w.Shape) {
		return out
	}
	out.RankKnown = true
	out.Shape = make([]Dim, len(v.Shape))
	for i := range v.Shape {
		a, b := v.Shape[i], w.Shape[i]
		switch {
		case a.Known() && b.Known() && a.Size == b.Size:
			out.Shape[i] = a
		case !a.Known() && !b.Known() && a.Param != "" && a.Param == b.Param:
			out.Shape[i] = a
		default:
			out.Shape[i] = Dim{Size: -1}
		}
	}
	return out
}

// runTimeDim is an axis whose length only a run tells (a loop's number of
// iterations), named after the node.
func (c *InferCtx) runTimeDim(what string) Dim {
	base := c.n.Name
	if base == "" {
		base = c.outName(0)
	}
	return Dim{Size: -1, Param: base + "_" + what}
}

// SubgraphSummary prints a subgraph's nodes, one line each, indented; the
// text commands (inspect, graph --text) show it under its node.
func SubgraphSummary(n *Node, indent string) string {
	o, ok := n.Op.(SubgraphOwner)
	if !ok || isNilOp(n.Op) {
		return ""
	}
	var b strings.Builder
	if caps := o.CaptureNames(); len(caps) > 0 {
		fmt.Fprintf(&b, "%scaptures: ", indent)
		for i, name := range caps {
			if i > 0 {
				b.WriteString(", ")
			}
			outer := CaptureInputs(n)
			if i < len(outer) && outer[i] != name {
				fmt.Fprintf(&b, "%s=%s", name, outer[i])
			} else {
				b.WriteString(name)
			}
		}
		b.WriteByte('\n')
	}
	for _, s := range o.Subgraphs() {
		if s.Graph == nil {
			continue
		}
		fmt.Fprintf(&b, "%s%s (%d nodes): (%s) -> (%s)\n", indent, s.Attr, len(s.Graph.Nodes),
			valueNames(s.Graph.Inputs), valueNames(s.Graph.Outputs))
		for _, sn := range s.Graph.Nodes {
			fmt.Fprintf(&b, "%s  %s %s(%s) -> (%s)\n", indent, sn.Name, opKind(sn.Op),
				strings.Join(sn.Inputs, ", "), strings.Join(sn.Outputs, ", "))
			b.WriteString(SubgraphSummary(sn, indent+"    "))
		}
	}
	return b.String()
}

func valueNames(vs []ValueInfo) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}
