package optimize

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/modelbridge/modelbridge/canon"
)

// Machine holds the weights of the cost model. The defaults describe the
// two CPU cores this project is tested on, running the interpreter (im2col
// + SIMD GEMM):
//
//	time ≈ TileFLOPs/20e9 + Bytes/10e9 + Launches·5e-6 + GroupGEMMs·1e-6 seconds
//
// TileFLOPs pads each per-group GEMM of a convolution to the 8×8 register
// tile of a SIMD micro-kernel (M = output channels per group, K = input
// channels per group × kernel size), which is what makes convs with many
// tiny groups slow per FLOP and lets regroup_conv pay; GroupGEMMs counts one
// GEMM dispatch per group of a grouped, non-depthwise conv.
type Machine struct {
	FLOPsPerSecond float64 `json:"flops_per_second"`
	BytesPerSecond float64 `json:"bytes_per_second"`
	LaunchSeconds  float64 `json:"launch_seconds"`
	GroupSeconds   float64 `json:"group_gemm_seconds"`
}

// DefaultMachine is the cost model used unless a caller picks another.
var DefaultMachine = Machine{FLOPsPerSecond: 20e9, BytesPerSecond: 10e9, LaunchSeconds: 5e-6, GroupSeconds: 1e-6}

// gemmTile is the register tile the TileFLOPs padding rounds up to.
const gemmTile = 8

// NodeCost is the modelled cost of one node.
type NodeCost struct {
	FLOPs      float64 `json:"flops"`
	TileFLOPs  float64 `json:"tile_flops"`
	Bytes      float64 `json:"bytes"`
	Launches   int     `json:"launches"`
	GroupGEMMs int     `json:"group_gemms"`
}

// Seconds is the modelled run time.
func (c NodeCost) Seconds(m Machine) float64 {
	return c.TileFLOPs/m.FLOPsPerSecond + c.Bytes/m.BytesPerSecond +
		float64(c.Launches)*m.LaunchSeconds + float64(c.GroupGEMMs)*m.GroupSeconds
}

// infoFunc looks up the type of a value.
type infoFunc func(name string) (canon.ValueInfo, bool)

func mapInfo(vals *canon.ValueTable) infoFunc {
	return vals.Lookup
}

// numelOf counts elements, taking unknown dimensions as 1.
func numelOf(v canon.ValueInfo) float64 {
	if !v.RankKnown {
		return 1
	}
	n := 1.0
	for _, d := range v.Shape {
		if d.Known() {
			n *= float64(d.Size)
		}
	}
	return n
}

func dimOf(v canon.ValueInfo, i int) float64 {
	if !v.RankKnown || i < 0 || i >= len(v.Shape) || !v.Shape[i].Known() {
		return 1
	}
	return float64(v.Shape[i].Size)
}

func roundUp(x, m float64) float64 {
	if x <= 0 {
		return 0
	}
	k := float64(int64((x + m - 1) / m))
	return k * m
}

// costArgs is what a cost rule sees of one node: the node and the types
// of its values.
type costArgs struct {
	n    *canon.Node
	info infoFunc
	out  canon.ValueInfo // the first output
}

// value is the type of a value; the zero ValueInfo for an absent one.
func (x costArgs) value(name string) canon.ValueInfo {
	if name == "" {
		return canon.ValueInfo{}
	}
	v, _ := x.info(name)
	return v
}

// input is the type of input slot i.
func (x costArgs) input(i int) canon.ValueInfo {
	if i >= len(x.n.Inputs) {
		return canon.ValueInfo{}
	}
	return x.value(x.n.Inputs[i])
}

// outputElems counts the elements of every output (Split's pieces).
func (x costArgs) outputElems() float64 {
	total := 0.0
	for _, o := range x.n.Outputs {
		if o != "" {
			total += numelOf(x.value(o))
		}
	}
	return total
}

// costRule prices one op kind. A free rule moves no data and launches
// nothing; otherwise the node is one launch that reads its inputs and
// writes its outputs, and work sets the arithmetic (FLOPs, and TileFLOPs
// and GroupGEMMs when a GEMM's shape matters; TileFLOPs left 0 means equal
// to FLOPs). Detail says how, for CostCoverage.
type costRule struct {
	detail string
	free   bool
	work   func(x costArgs, c *NodeCost)
}

// perOutput prices k operations per element of the first output.
func perOutput(k float64, detail string) costRule {
	return costRule{detail: detail, work: func(x costArgs, c *NodeCost) { c.FLOPs = k * numelOf(x.out) }}
}

// perInput prices one operation per element of the data input (reductions).
func perInput(detail string) costRule {
	return costRule{detail: detail, work: func(x costArgs, c *NodeCost) { c.FLOPs = numelOf(x.input(0)) }}
}

// movement prices one operation (an index computation and a copy) per
// element written, over all outputs.
var movement = costRule{
	detail: "data movement: one operation per element written",
	work:   func(x costArgs, c *NodeCost) { c.FLOPs = x.outputElems() },
}

// windowed prices a pooling window per output element.
func windowed(kernel func(canon.Op) []int64) costRule {
	return costRule{
		detail: "one operation per window tap per output element",
		work:   func(x costArgs, c *NodeCost) { c.FLOPs = numelOf(x.out) * prod(kernel(x.n.Op)) },
	}
}

// softmaxCost is a softmax's work per element: the running max, an exp
// (priced like Sigmoid's and Tanh's MathCost), the sum and the divide.
const softmaxCost = 1 + 4 + 1 + 1

// costTable prices every op kind whose cost its traits do not give.
// Elementwise kinds are priced from their MathCost trait and views move
// nothing, so neither is listed here (TestCostCoverage keeps it so).
var costTable = map[string]costRule{
	"Conv":          {detail: "2·N·C_out·spatial·C_in/group·kernel FLOPs; per-group GEMMs padded to the register tile", work: convCost},
	"ConvTranspose": {detail: "2·input elements·C_out/group·kernel FLOPs", work: convTransposeCost},
	"Linear": {detail: "2·output elements·K FLOPs", work: func(x costArgs, c *NodeCost) {
		c.FLOPs = 2 * numelOf(x.out) * dimOf(x.input(1), 1)
	}},
	"MatMul": {detail: "2·output elements·K FLOPs", work: func(x costArgs, c *NodeCost) {
		a := x.input(0)
		k := 1.0
		if a.RankKnown && len(a.Shape) > 0 {
			k = dimOf(a, len(a.Shape)-1)
		}
		c.FLOPs = 2 * numelOf(x.out) * k
	}},
	"BatchNormalization": perOutput(2, "a multiply and an add per output element"),
	"Softmax":            perOutput(softmaxCost, "max, exp, sum and divide per element"),
	"Dropout":            perOutput(1, "a copy per output element (the identity at inference)"),
	"MaxPool":            windowed(func(op canon.Op) []int64 { return op.(*canon.MaxPool).Kernel }),
	"AveragePool":        windowed(func(op canon.Op) []int64 { return op.(*canon.AveragePool).Kernel }),
	"GlobalAveragePool":  perInput("one operation per input element"),
	"GlobalMaxPool":      perInput("one operation per input element"),
	"Concat":             movement,
	"Split":              movement,
	"Transpose":          movement,
	"Pad":                movement,
	"Slice":              movement,
	"Gather":             movement,
	"Resize":             resizeCost,
	"Shape": {detail: "one launch writing the shape; the input's data is not read", work: func(x costArgs, c *NodeCost) {
		c.Bytes = numelOf(x.out) * float64(x.out.DType.Size())
	}},
	"Constant": {detail: "a constant: moves no data, launches nothing", free: true},
}

// viewRule prices the kinds whose View trait is set.
var viewRule = costRule{detail: "view: moves no data, launches nothing", free: true}

// elementwiseRule prices an elementwise kind from its MathCost trait, per
// element of the (broadcast) output.
func elementwiseRule(mathCost float64) costRule {
	return perOutput(mathCost, "elementwise, priced from its MathCost trait")
}

// costRuleFor finds how a kind is priced: its table entry, else its
// traits. It is the one lookup behind both nodeCost and CostCoverage.
func costRuleFor(kind string, t canon.Traits) (costRule, bool) {
	if r, ok := costTable[kind]; ok {
		return r, true
	}
	switch {
	case t.View:
		return viewRule, true
	case t.Elementwise && t.MathCost > 0:
		return elementwiseRule(t.MathCost), true
	}
	return costRule{}, false
}

// CostCoverage is the cost model's entry for every registered op kind,
// derived from costTable and the kinds' traits. A kind missing from it is
// priced by the bytes it moves and one launch only, with no arithmetic.
func CostCoverage() canon.Coverage {
	cov := canon.Coverage{}
	for _, d := range canon.Ops() {
		if r, ok := costRuleFor(d.Kind, d.Traits); ok {
			cov[d.Kind] = canon.Handles(r.detail)
		}
	}
	return cov
}

// nodeCost models one node from the types of its inputs and outputs.
func nodeCost(n *canon.Node, info infoFunc) NodeCost {
	var c NodeCost
	rule, known := costRuleFor(n.Op.Kind(), canon.TraitsOf(n.Op))
	if rule.free {
		return c
	}
	x := costArgs{n: n, info: info}
	if len(n.Outputs) > 0 {
		x.out = x.value(n.Outputs[0])
	}
	c.Launches = 1
	for _, names := range [][]string{n.Inputs, n.Outputs} {
		for _, name := range names {
			if name != "" {
				v := x.value(name)
				c.Bytes += numelOf(v) * float64(elemBytes(v.DType))
			}
		}
	}
	if known && rule.work != nil {
		rule.work(x, &c)
	}
	if c.TileFLOPs == 0 {
		c.TileFLOPs = c.FLOPs
	}
	return c
}

// convCost is a direct convolution as im2col + one GEMM per group.
func convCost(x costArgs, c *NodeCost) {
	op := x.n.Op.(*canon.Conv)
	w, out := x.input(1), x.out
	g := float64(op.Group)
	if g < 1 {
		g = 1
	}
	o, cg := dimOf(w, 0), dimOf(w, 1)
	k := 1.0
	for i := 2; w.RankKnown && i < len(w.Shape); i++ {
		k *= dimOf(w, i)
	}
	spatial := 1.0
	for i := 2; out.RankKnown && i < len(out.Shape); i++ {
		spatial *= dimOf(out, i)
	}
	batch := dimOf(out, 0)
	c.FLOPs = 2 * batch * o * spatial * cg * k
	og := o / g
	if og == 1 && cg == 1 {
		c.TileFLOPs = c.FLOPs // depthwise: a direct kernel, no GEMM
		return
	}
	c.TileFLOPs = 2 * batch * spatial * g * roundUp(og, gemmTile) * roundUp(cg*k, gemmTile)
	if g > 1 {
		c.GroupGEMMs = int(g)
	}
}

// convTransposeCost scatters every input element through C_out/group
// output channels and the kernel.
func convTransposeCost(x costArgs, c *NodeCost) {
	w := x.input(1)
	k := 1.0
	for i := 2; w.RankKnown && i < len(w.Shape); i++ {
		k *= dimOf(w, i)
	}
	c.FLOPs = 2 * numelOf(x.input(0)) * dimOf(w, 1) * k
}

// OpCost is one row of a cost report: the totals of one op kind.
type OpCost struct {
	Op       string  `json:"op"`
	Count    int     `json:"count"`
	FLOPs    float64 `json:"flops"`
	Bytes    float64 `json:"bytes"`
	Launches int     `json:"launches"`
	Seconds  float64 `json:"seconds"`
}

func (r *OpCost) add(c NodeCost, m Machine) {
	r.Count++
	r.FLOPs += c.FLOPs
	r.Bytes += c.Bytes
	r.Launches += c.Launches
	r.Seconds += c.Seconds(m)
}

// CostReport is a graph's modelled cost, per op kind and in total.
type CostReport struct {
	Machine Machine  `json:"machine"`
	Nodes   int      `json:"nodes"`
	Rows    []OpCost `json:"ops"`
	Total   OpCost   `json:"total"`
	// PerNode lists every node, most expensive first.
	PerNode []NodeRow `json:"per_node"`
}

// Cost is the scalar the search minimizes: modelled seconds.
func (r CostReport) Cost() float64 { return r.Total.Seconds }

// GraphCost models g with DefaultMachine. It infers value types first
// (filling g.Values).
func GraphCost(g *canon.Graph) (CostReport, error) {
	return GraphCostWith(g, DefaultMachine)
}

// GraphCostWith models g with the given machine weights.
func GraphCostWith(g *canon.Graph, m Machine) (CostReport, error) {
	if err := g.Infer(); err != nil {
		return CostReport{}, fmt.Errorf("cost model: %w", err)
	}
	rows := map[string]*OpCost{}
	rep := CostReport{Machine: m, Nodes: len(g.Nodes), Total: OpCost{Op: "total"}}
	info := mapInfo(g.Values)
	for _, n := range g.Nodes {
		c := nodeCost(n, info)
		k := n.Op.Kind()
		r := rows[k]
		if r == nil {
			r = &OpCost{Op: k}
			rows[k] = r
		}
		r.add(c, m)
		rep.Total.add(c, m)
		rep.PerNode = append(rep.PerNode, NodeRow{Node: n.Name, Op: k, FLOPs: c.FLOPs, Bytes: c.Bytes, Launches: c.Launches, Seconds: c.Seconds(m)})
	}
	sortNodeRows(rep.PerNode)
	for _, r := range rows {
		rep.Rows = append(rep.Rows, *r)
	}
	sort.Slice(rep.Rows, func(i, j int) bool {
		if rep.Rows[i].Seconds != rep.Rows[j].Seconds {
			return rep.Rows[i].Seconds > rep.Rows[j].Seconds
		}
		return rep.Rows[i].Op < rep.Rows[j].Op
	})
	return rep, nil
}

// graphSeconds sums node costs, caching them per node: a node's cost
// depends only on the types of its values, which the search keeps fixed
// for a given node struct.
func graphSeconds(g *canon.Graph, info infoFunc, cache map[*canon.Node]float64, m Machine) float64 {
	total := 0.0
	for _, n := range g.Nodes {
		s, ok := cache[n]
		if !ok {
			s = nodeCost(n, info).Seconds(m)
			if cache != nil {
				cache[n] = s
			}
		}
		total += s
	}
	return total
}

// WriteCostTable prints a per-op table of two reports side by side (like
// TASO's cost report): node count, GFLOPs, MB moved, launches and modelled
// milliseconds, before -> after, with totals.
func WriteCostTable(w io.Writer, before, after CostReport) error {
	b := map[string]OpCost{}
	a := map[string]OpCost{}
	var ops []string
	for _, r := range before.Rows {
		b[r.Op] = r
		ops = append(ops, r.Op)
	}
	for _, r := range after.Rows {
		a[r.Op] = r
		if _, ok := b[r.Op]; !ok {
			ops = append(ops, r.Op)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tnodes\tafter\tGFLOP\tafter\tMB\tafter\tlaunches\tafter\tms\tafter\t")
	row := func(name string, x, y OpCost) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.4f\t%.4f\t%.3f\t%.3f\t%d\t%d\t%.3f\t%.3f\t\n", name,
			x.Count, y.Count, x.FLOPs/1e9, y.FLOPs/1e9, x.Bytes/1e6, y.Bytes/1e6,
			x.Launches, y.Launches, x.Seconds*1e3, y.Seconds*1e3)
	}
	for _, op := range ops {
		row(op, b[op], a[op])
	}
	row("total", before.Total, after.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "(model: time = tileFLOPs/%.3g + bytes/%.3g + launches*%.3g + groupGEMMs*%.3g s)\n",
		before.Machine.FLOPsPerSecond, before.Machine.BytesPerSecond, before.Machine.LaunchSeconds, before.Machine.GroupSeconds)
	return err
}

// String prints one report as a table.
func (r CostReport) String() string {
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tnodes\tGFLOP\tMB\tlaunches\tms\t")
	for _, x := range append(append([]OpCost(nil), r.Rows...), r.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%.4f\t%.3f\t%d\t%.3f\t\n", x.Op, x.Count, x.FLOPs/1e9, x.Bytes/1e6, x.Launches, x.Seconds*1e3)
	}
	tw.Flush()
	return sb.String()
}

func prod(v []int64) float64 {
	p := 1.0
	for _, x := range v {
		p *= float64(x)
	}
	return p
}
