package graphdraw

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// subgraphLine describes a subgraph (an If branch, a loop body) in one
// attribute line: its size and its ops in order.
func subgraphLine(g *canon.Graph) string {
	kinds := make([]string, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		kinds = append(kinds, n.Op.Kind())
	}
	const most = 8
	more := ""
	if len(kinds) > most {
		more = fmt.Sprintf(", … (%d more)", len(kinds)-most)
		kinds = kinds[:most]
	}
	return fmt.Sprintf("%d nodes: %s%s", len(g.Nodes), strings.Join(kinds, ", "), more)
}

// SubgraphView is one graph a control-flow node owns, as the HTML page's
// node panel lists it (expandable, nested subgraphs inside their nodes).
type SubgraphView struct {
	Attr    string         `json:"attr"`
	Inputs  []string       `json:"inputs,omitempty"`
	Outputs []string       `json:"outputs,omitempty"`
	Nodes   []SubgraphNode `json:"nodes"`
	// More counts the nodes left out past maxSubgraphNodes.
	More int `json:"more,omitempty"`
}

// SubgraphNode is one node of a subgraph: "Add(acc, x) -> (acc_next)".
type SubgraphNode struct {
	Kind      string         `json:"kind"`
	Name      string         `json:"name,omitempty"`
	Inputs    []string       `json:"inputs,omitempty"`
	Outputs   []string       `json:"outputs,omitempty"`
	Subgraphs []SubgraphView `json:"subgraphs,omitempty"`
}

// Bounds on what a page lists of a node's subgraphs: real control flow
// nests two or three deep; a hostile file must not make the page huge.
const (
	maxSubgraphDepth = 8
	maxSubgraphNodes = 2000
)

// subgraphViews lists the graphs n owns (none for an op without any).
func subgraphViews(n *canon.Node) []SubgraphView {
	budget := maxSubgraphNodes
	return subgraphViewsAt(n, 0, &budget)
}

func subgraphViewsAt(n *canon.Node, depth int, budget *int) []SubgraphView {
	o, ok := n.Op.(canon.SubgraphOwner)
	if !ok || !canon.HasSubgraphs(n.Op) || depth >= maxSubgraphDepth {
		return nil
	}
	var out []SubgraphView
	for _, s := range o.Subgraphs() {
		if s.Graph == nil {
			continue
		}
		sv := SubgraphView{Attr: s.Attr, Nodes: []SubgraphNode{}}
		for _, v := range s.Graph.Inputs {
			sv.Inputs = append(sv.Inputs, v.Name)
		}
		for _, v := range s.Graph.Outputs {
			sv.Outputs = append(sv.Outputs, v.Name)
		}
		for _, sn := range s.Graph.Nodes {
			if *budget <= 0 {
				sv.More++
				continue
			}
			*budget--
			sv.Nodes = append(sv.Nodes, SubgraphNode{Kind: sn.Op.Kind(), Name: sn.Name, Inputs: sn.Inputs, Outputs: sn.Outputs,
				Subgraphs: subgraphViewsAt(sn, depth+1, budget)})
		}
		out = append(out, sv)
	}
	return out
}

// captureRows are "name = outer value" for each capture of n.
func captureRows(n *canon.Node) []string {
	o, ok := n.Op.(canon.SubgraphOwner)
	if !ok || !canon.HasSubgraphs(n.Op) {
		return nil
	}
	outer := canon.CaptureInputs(n)
	var rows []string
	for i, c := range o.CaptureNames() {
		if i < len(outer) && outer[i] != c {
			rows = append(rows, c+" = "+outer[i])
		} else {
			rows = append(rows, c)
		}
	}
	return rows
}
