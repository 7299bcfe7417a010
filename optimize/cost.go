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

func mapInfo(vals map[string]canon.ValueInfo) infoFunc {
	return func(name string) (canon.ValueInfo, bool) {
		v, ok := vals[name]
		return v, ok
	}
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

// nodeCost models one node from the types of its inputs and outputs.
func nodeCost(n *canon.Node, info infoFunc) NodeCost {
	get := func(name string) canon.ValueInfo {
		if name == "" {
			return canon.ValueInfo{}
		}
		v, _ := info(name)
		return v
	}
	var c NodeCost
	switch n.Op.(type) {
	case *canon.Identity, *canon.Reshape, *canon.Flatten, *canon.Squeeze, *canon.Unsqueeze, *canon.Constant:
		return c // views (and constants) move no data and launch nothing
	}
	c.Launches = 1
	var inBytes, outBytes float64
	for _, in := range n.Inputs {
		if in != "" {
			v := get(in)
			inBytes += numelOf(v) * float64(v.DType.Size())
		}
	}
	for _, o := range n.Outputs {
		if o != "" {
			v := get(o)
			outBytes += numelOf(v) * float64(v.DType.Size())
		}
	}
	c.Bytes = inBytes + outBytes
	var out canon.ValueInfo
	if len(n.Outputs) > 0 {
		out = get(n.Outputs[0])
	}
	outN := numelOf(out)
	switch op := n.Op.(type) {
	case *canon.Conv:
		w := get(n.Inputs[1])
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
		} else {
			c.TileFLOPs = 2 * batch * spatial * g * roundUp(og, gemmTile) * roundUp(cg*k, gemmTile)
			if g > 1 {
				c.GroupGEMMs = int(g)
			}
		}
		return c
	case *canon.ConvTranspose:
		w := get(n.Inputs[1])
		x := get(n.Inputs[0])
		k := 1.0
		for i := 2; w.RankKnown && i < len(w.Shape); i++ {
			k *= dimOf(w, i)
		}
		c.FLOPs = 2 * numelOf(x) * dimOf(w, 1) * k
	case *canon.Linear:
		w := get(n.Inputs[1])
		c.FLOPs = 2 * outN * dimOf(w, 1)
	case *canon.MatMul:
		a := get(n.Inputs[0])
		kd := 1.0
		if a.RankKnown && len(a.Shape) > 0 {
			kd = dimOf(a, len(a.Shape)-1)
		}
		c.FLOPs = 2 * outN * kd
	case *canon.BatchNorm:
		c.FLOPs = 2 * outN
	case *canon.MaxPool:
		c.FLOPs = outN * prod(op.Kernel)
	case *canon.AveragePool:
		c.FLOPs = outN * prod(op.Kernel)
	case *canon.GlobalAveragePool, *canon.GlobalMaxPool, *canon.ReduceMean:
		c.FLOPs = numelOf(get(n.Inputs[0]))
	case *canon.Binary, *canon.Unary, *canon.LeakyRelu, *canon.PRelu, *canon.Clip, *canon.HardSigmoid, *canon.Softmax, *canon.Dropout:
		c.FLOPs = outN
	}
	c.TileFLOPs = c.FLOPs
	return c
}

func prod(v []int64) float64 {
	p := 1.0
	for _, x := range v {
		p *= float64(x)
	}
	return p
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
