// Package graphdraw turns a canonical graph (or the difference between two)
// into a picture: a Graphviz DOT description, an SVG drawn by its own
// layered layout when Graphviz is not installed, and a self-contained,
// zoomable HTML page.
package graphdraw

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// Status is how a box or edge differs between an original and a changed
// graph. Plain drawings use Same everywhere.
type Status uint8

const (
	Same    Status = iota
	Removed        // only in the original
	Added          // only in the changed graph
	Changed        // in both, with other attributes, inputs or weights
)

func (s Status) String() string {
	return [...]string{Same: "same", Removed: "removed", Added: "added", Changed: "changed"}[s]
}

// BoxKind separates graph inputs and outputs from operations.
type BoxKind uint8

const (
	OpBox BoxKind = iota
	InputBox
	OutputBox
)

// Box is one node of the picture.
type Box struct {
	ID      string
	Kind    BoxKind
	Title   string   // op kind, or the input/output name
	Name    string   // node name (ops only)
	Attrs   []string // "strides 2,2", ...
	Weights []WeightRow
	Outputs []string // "x [1 8 16 16]"
	Status  Status
	Note    string // what changed
	// Inputs describe the non-weight values an op reads, for the HTML
	// page's node panel.
	Inputs []string
	// Was is the original's box of a Changed box in a diff.
	Was *Box
	// Subgraphs are the graphs a control-flow op owns, and Captures the
	// outer values they read, for the node panel.
	Subgraphs []SubgraphView
	Captures  []string
}

// WeightRow is one weight read by an op: "W conv1.weight [8 4 3 3] OIHW".
type WeightRow struct {
	Slot   string
	Name   string
	DType  string
	Shape  []int64
	Layout string
	// Stats summarizes the values (min, max, mean, std, zeros), for the
	// HTML page's node panel.
	Stats string
}

func (w WeightRow) String() string {
	s := fmt.Sprintf("%s %s %s%v", w.Slot, w.Name, w.DType, w.Shape)
	if w.Layout != "" {
		s += " " + w.Layout
	}
	return s
}

// Edge is a value flowing from one box to another.
type Edge struct {
	From, To string
	Value    string
	Status   Status
}

// Drawing is everything a renderer needs.
type Drawing struct {
	Title string
	Boxes []*Box
	Edges []*Edge
	// Diff marks a comparison drawing, which gets a legend.
	Diff bool
}

// FromGraph draws g. g should be validated so that value shapes are known.
func FromGraph(g *canon.Graph) *Drawing {
	d := &Drawing{Title: g.Name}
	v := newView(g, "n")
	for _, b := range v.boxes {
		d.Boxes = append(d.Boxes, b)
	}
	for _, e := range v.edges() {
		d.Edges = append(d.Edges, &Edge{From: e.from, To: e.to, Value: e.value})
	}
	return d
}

// view is one graph's boxes with the ids edges refer to.
type view struct {
	g      *canon.Graph
	inits  map[string]*canon.Tensor
	boxes  []*Box
	nodeID map[*canon.Node]string
}

func newView(g *canon.Graph, prefix string) *view {
	v := &view{g: g, inits: g.InitializerIndex(), nodeID: map[*canon.Node]string{}}
	for _, in := range g.Inputs {
		if v.inits[in.Name] != nil {
			continue // an initializer also listed as an input is a weight
		}
		v.boxes = append(v.boxes, &Box{ID: "in:" + in.Name, Kind: InputBox, Title: in.Name, Outputs: []string{describeValueInfo(in)}})
	}
	for i, n := range g.Nodes {
		id := fmt.Sprintf("%s%d", prefix, i)
		v.nodeID[n] = id
		v.boxes = append(v.boxes, v.opBox(id, n))
	}
	for _, out := range g.Outputs {
		info := out
		if vi, ok := g.Values.Lookup(out.Name); ok {
			info = vi
		}
		v.boxes = append(v.boxes, &Box{ID: "out:" + out.Name, Kind: OutputBox, Title: out.Name, Outputs: []string{describeValueInfo(info)}})
	}
	return v
}

func (v *view) opBox(id string, n *canon.Node) *Box {
	b := &Box{ID: id, Kind: OpBox, Title: n.Op.Kind(), Name: n.Name, Attrs: Attributes(n, v.g),
		Subgraphs: subgraphViews(n), Captures: captureRows(n)}
	specs := n.Op.Signature().Inputs
	for i, in := range n.Inputs {
		t := v.inits[in]
		if in == "" {
			continue
		}
		if t == nil {
			if vi, ok := v.g.Values.Lookup(in); ok {
				b.Inputs = append(b.Inputs, describeValueInfo(vi))
			} else {
				b.Inputs = append(b.Inputs, in)
			}
			continue
		}
		slot := fmt.Sprint(i)
		if len(specs) > 0 {
			slot = specs[min(i, len(specs)-1)].Name
		}
		b.Weights = append(b.Weights, WeightRow{Slot: slot, Name: t.Name, DType: t.DType.String(), Shape: t.Shape, Layout: string(t.Layout), Stats: weightStats(t)})
	}
	for _, o := range n.Outputs {
		if o == "" {
			continue
		}
		if vi, ok := v.g.Values.Lookup(o); ok {
			b.Outputs = append(b.Outputs, describeValueInfo(vi))
		} else {
			b.Outputs = append(b.Outputs, o)
		}
	}
	return b
}

type rawEdge struct{ from, to, value string }

// edges lists the data edges: producer (or graph input) to consumer, and
// producer to graph output. Weights are drawn inside their consumer.
func (v *view) edges() []rawEdge {
	producer := map[string]string{}
	for _, in := range v.g.Inputs {
		if v.inits[in.Name] == nil {
			producer[in.Name] = "in:" + in.Name
		}
	}
	for _, n := range v.g.Nodes {
		for _, o := range n.Outputs {
			if o != "" {
				producer[o] = v.nodeID[n]
			}
		}
	}
	var out []rawEdge
	seen := map[rawEdge]bool{}
	add := func(e rawEdge) {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	for _, n := range v.g.Nodes {
		for _, in := range n.Inputs {
			if p, ok := producer[in]; ok && in != "" {
				add(rawEdge{p, v.nodeID[n], in})
			}
		}
	}
	for _, o := range v.g.Outputs {
		if p, ok := producer[o.Name]; ok {
			add(rawEdge{p, "out:" + o.Name, o.Name})
		}
	}
	return out
}

// describeValueInfo is "name f32[1 8 16 16]" with "?" for unknown dims.
func describeValueInfo(v canon.ValueInfo) string {
	if !v.IsTensor() {
		return v.Name + " " + v.TypeString() // seq(f32[N]), opt(...)
	}
	if !v.RankKnown {
		return v.Name + " " + v.DType.String() + "[?]"
	}
	parts := make([]string, len(v.Shape))
	for i, d := range v.Shape {
		switch {
		case d.Known():
			parts[i] = fmt.Sprint(d.Size)
		case d.Param != "":
			parts[i] = d.Param
		default:
			parts[i] = "?"
		}
	}
	return v.Name + " " + v.DType.String() + "[" + strings.Join(parts, " ") + "]"
}
