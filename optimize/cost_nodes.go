package optimize

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
)

// NodeRow is the modelled cost of one node of a cost report.
type NodeRow struct {
	Node     string  `json:"node"`
	Op       string  `json:"op"`
	FLOPs    float64 `json:"flops"`
	Bytes    float64 `json:"bytes"`
	Launches int     `json:"launches"`
	Seconds  float64 `json:"seconds"`
}

// sortNodeRows orders rows by modelled time, most expensive first; ties
// keep graph order.
func sortNodeRows(rows []NodeRow) {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Seconds > rows[j].Seconds })
}

// WriteNodeTable prints the top most expensive nodes of a report (all of
// them when top <= 0) with their FLOPs, bytes moved, launches and modelled
// time, then a line for the rest and the graph's totals: the per-node view
// of TASO's cost report.
func WriteNodeTable(w io.Writer, title string, r CostReport, top int) error {
	rows := r.PerNode
	if top > 0 && len(rows) > top {
		rows = rows[:top]
	}
	if _, err := fmt.Fprintf(w, "%s: %d nodes, top %d by modelled time\n", title, len(r.PerNode), len(rows)); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "node\top\tMFLOP\tMB\tlaunches\tms\t")
	row := func(name, op string, flops, bytes float64, launches int, sec float64) {
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%d\t%.4f\t\n", name, op, flops/1e6, bytes/1e6, launches, sec*1e3)
	}
	for _, x := range rows {
		row(x.Node, x.Op, x.FLOPs, x.Bytes, x.Launches, x.Seconds)
	}
	if rest := r.PerNode[len(rows):]; len(rest) > 0 {
		var o OpCost
		for _, x := range rest {
			o.FLOPs += x.FLOPs
			o.Bytes += x.Bytes
			o.Launches += x.Launches
			o.Seconds += x.Seconds
		}
		row(fmt.Sprintf("(%d more)", len(rest)), "", o.FLOPs, o.Bytes, o.Launches, o.Seconds)
	}
	t := r.Total
	row("total", "", t.FLOPs, t.Bytes, t.Launches, t.Seconds)
	return tw.Flush()
}
