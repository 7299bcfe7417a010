package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/printname"
)

// addFileOps records the file's own ops, where its importer kept them.
func addFileOps(r *inspectReport, g *canon.Graph) {
	if g.Meta.SourceOps == nil {
		return
	}
	r.FileOps = map[string]int{}
	for op, n := range g.Meta.SourceOps {
		r.FileOps[op] = n
		r.FileNodes += n
	}
}

// limitWeights keeps the first max weights (all when max < 0).
func (r *inspectReport) limitWeights(max int) {
	if max < 0 || max >= len(r.Weights) {
		return
	}
	r.WeightsHidden = len(r.Weights) - max
	r.Weights = r.Weights[:max]
}

// byCount lists counts' keys, most frequent first.
func byCount(counts map[string]int) []string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// printOps prints the canonical node count and op histogram.
func printOps(w io.Writer, r inspectReport) {
	fmt.Fprintf(w, "nodes:     %d\n", r.Nodes)
	for _, k := range byCount(r.Ops) {
		fmt.Fprintf(w, "  %-24s %d\n", printname.Name(k), r.Ops[k])
	}
}

// printFileOps prints the file's ops beside the canonical view: the file's
// Gemm and Constant nodes next to the Linear and folded constants
// modelbridge works on.
func printFileOps(w io.Writer, r inspectReport) {
	fmt.Fprintf(w, "nodes:     %d in the file, %d canonical\n", r.FileNodes, r.Nodes)
	file, canonical := byCount(r.FileOps), byCount(r.Ops)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  %s op\tcount\t\tcanonical op\tcount\n", r.Format)
	for i := 0; i < max(len(file), len(canonical)); i++ {
		left, right := "\t", "\t"
		if i < len(file) {
			left = fmt.Sprintf("%s\t%d", printname.Name(file[i]), r.FileOps[file[i]])
		}
		if i < len(canonical) {
			right = fmt.Sprintf("%s\t%d", printname.Name(canonical[i]), r.Ops[canonical[i]])
		}
		fmt.Fprintf(tw, "  %s\t\t%s\n", left, right)
	}
	tw.Flush()
}
