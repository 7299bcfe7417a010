package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/optimize"
)

// printOptimizeTable prints what optimize changed, as onnx-simplifier does:
// each op's count before and after, then nodes, parameters, file size and
// modelled latency. Ops whose count did not change are listed too, so the
// table describes the whole model.
//
// After quantization the cost model's latency describes only the float
// passes, so the row says so rather than describing the written model.
func printOptimizeTable(w io.Writer, before, after *canon.Graph, in string, bytesAfter int64, rep optimize.Report, quantized bool) {
	countsBefore, countsAfter := opCounts(before), opCounts(after)
	kinds := make([]string, 0, len(countsBefore)+len(countsAfter))
	for k := range countsBefore {
		kinds = append(kinds, k)
	}
	for k := range countsAfter {
		if _, ok := countsBefore[k]; !ok {
			kinds = append(kinds, k)
		}
	}
	sort.Slice(kinds, func(i, j int) bool {
		if countsBefore[kinds[i]] != countsBefore[kinds[j]] {
			return countsBefore[kinds[i]] > countsBefore[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "op\tbefore\tafter\t")
	for _, k := range kinds {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", k, countsBefore[k], countsAfter[k])
	}
	fmt.Fprintf(tw, "nodes\t%d\t%d\t\n", len(before.Nodes), len(after.Nodes))
	pb, pa := before.Params(), after.Params()
	fmt.Fprintf(tw, "params\t%d\t%d\t\n", pb.Elements, pa.Elements)
	sizeBefore := "-"
	if n, err := outputSize(in); err == nil {
		sizeBefore = humanBytes(n)
	}
	fmt.Fprintf(tw, "file size\t%s\t%s\t\n", sizeBefore, humanBytes(bytesAfter))
	if quantized {
		fmt.Fprintf(tw, "modelled latency\t%.3f ms\t- (not modelled for int8)\t\n", rep.Before.Cost()*1e3)
	} else {
		fmt.Fprintf(tw, "modelled latency\t%.3f ms\t%.3f ms\t\n", rep.Before.Cost()*1e3, rep.After.Cost()*1e3)
	}
	tw.Flush()
}

// opCounts counts g's nodes by op kind.
func opCounts(g *canon.Graph) map[string]int {
	counts := map[string]int{}
	for _, n := range g.Nodes {
		counts[n.Op.Kind()]++
	}
	return counts
}
