package graphdraw

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestHTMLListsSubgraphs: the page's data carries a control-flow node's
// subgraphs (nodes with their inputs and outputs, nested graphs inside
// their nodes) and captures, which the node panel shows as expandable
// sections.
func TestHTMLListsSubgraphs(t *testing.T) {
	g, err := canon.Lookup("Loop").ExampleGraph()
	if err != nil {
		t.Fatal(err)
	}
	// Nest the If example's branches inside the loop body: the body's
	// "emit" becomes an If on a constant condition.
	ifg, err := canon.Lookup("If").ExampleGraph()
	if err != nil {
		t.Fatal(err)
	}
	var loop *canon.Node
	for _, n := range g.Nodes {
		if _, ok := n.Op.(*canon.Loop); ok {
			loop = n
		}
	}
	var ifNode *canon.Node
	for _, n := range ifg.Nodes {
		if _, ok := n.Op.(*canon.If); ok {
			ifNode = n
		}
	}
	if loop == nil || ifNode == nil {
		t.Fatal("the examples have no Loop or If node")
	}
	body := loop.Op.(*canon.Loop).Body
	nested := *ifNode
	nested.Name = "inner_if"
	nested.Inputs = []string{"c", "acc"}
	nested.Outputs = []string{"inner_out"}
	body.Nodes = append(body.Nodes, &nested)

	d := FromGraph(g)
	var page bytes.Buffer
	if err := WriteHTML(&page, d, []byte("<svg/>")); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="mb-data">(.*?)</script>`).FindStringSubmatch(page.String())
	if m == nil {
		t.Fatal("no page data")
	}
	var boxes []*pageBox
	if err := json.Unmarshal([]byte(m[1]), &boxes); err != nil {
		t.Fatal(err)
	}
	var lb *pageBox
	for _, b := range boxes {
		if b.Title == "Loop" {
			lb = b
		}
	}
	if lb == nil || len(lb.Subgraphs) != 1 {
		t.Fatalf("the Loop's box has no subgraph: %+v", lb)
	}
	sg := lb.Subgraphs[0]
	if sg.Attr != "body" || strings.Join(sg.Inputs, ",") != "i,c,acc" || len(sg.Nodes) != 4 {
		t.Fatalf("body listed as %+v", sg)
	}
	add := sg.Nodes[0]
	if add.Kind != "Add" || strings.Join(add.Inputs, ",") != "acc,x" || strings.Join(add.Outputs, ",") != "acc_next" {
		t.Errorf("first body node listed as %+v", add)
	}
	inner := sg.Nodes[3]
	if inner.Kind != "If" || len(inner.Subgraphs) != 2 || inner.Subgraphs[0].Attr != "then_branch" || inner.Subgraphs[1].Nodes[0].Kind != "Tanh" {
		t.Errorf("nested If listed as %+v", inner)
	}
	if len(lb.Captures) != 1 || !strings.HasPrefix(lb.Captures[0], "x") {
		t.Errorf("captures %q, want x bound to its outer value", lb.Captures)
	}
	if !strings.Contains(page.String(), `el("details", "mb-subgraph")`) {
		t.Error("the page script does not draw subgraphs as expandable sections")
	}
}
