package main

import (
	"fmt"
	"io"

	"github.com/modelbridge/modelbridge/canon"
)

type subgraphReport struct {
	Node string `json:"node"`
	Op   string `json:"op"`
	// Text lists the captures and each subgraph's nodes, indented.
	Text string `json:"text"`
}

func addSubgraphs(rep *inspectReport, g *canon.Graph) {
	for _, n := range g.Nodes {
		if canon.HasSubgraphs(n.Op) {
			rep.Subgraphs = append(rep.Subgraphs, subgraphReport{Node: n.Name, Op: n.Op.Kind(), Text: canon.SubgraphSummary(n, "    ")})
		}
	}
}

func printSubgraphs(w io.Writer, r inspectReport) {
	if len(r.Subgraphs) == 0 {
		return
	}
	fmt.Fprintln(w, "subgraphs:")
	for _, s := range r.Subgraphs {
		fmt.Fprintf(w, "  %s (%s)\n%s", s.Node, s.Op, s.Text)
	}
}
