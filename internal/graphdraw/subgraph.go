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
