package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/printname"
	"github.com/modelbridge/modelbridge/pipeline"
)

// weightsOnlyHint says what a weights-only output drops and how to keep it.
const weightsOnlyHint = "graph not written; use --to torch with a folder OUT (no .pt) for model.py + weights.pt"

// outputWhat describes what was written: the node count, or what a
// weights-only output holds and drops.
func outputWhat(g *canon.Graph, exp *formats.Exporter, out string) string {
	if pipeline.IsWeightsOnly(g) {
		return fmt.Sprintf("weights only, %d tensors", len(g.Initializers))
	}
	if !pipeline.WritesGraph(exp, out) {
		return fmt.Sprintf("weights only, %d tensors; %d-node %s", len(g.Initializers), len(g.Nodes), weightsOnlyHint)
	}
	for _, t := range g.Initializers {
		if len(t.Data) > 0 { // an empty array holds no weight
			return fmt.Sprintf("%d nodes", len(g.Nodes))
		}
	}
	return fmt.Sprintf("%d nodes, no weights", len(g.Nodes))
}

// writtenFiles names the files an export wrote for out, with their total
// size, when it wrote more than one beside each other (MXNet's symbol and
// params): "a + b". Otherwise it returns out and size 0.
func writtenFiles(g *canon.Graph, exp *formats.Exporter, out string) (string, int64) {
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return out, 0
	}
	var names []string
	var size int64
	for _, p := range exp.Outputs(g, out) {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			names = append(names, p)
			size += st.Size()
		}
	}
	if len(names) < 2 {
		return out, 0
	}
	return strings.Join(names, " + "), size
}

// notesShown is how many notes print without --verbose.
const notesShown = 3

// writeNotes prints an importer's notes about in. Without verbose, notes
// that differ only in the tensor or node they name print once with a count,
// and at most notesShown lines print in all.
func writeNotes(w io.Writer, in string, notes []string, verbose bool) {
	line := func(n string) {
		fmt.Fprintf(w, "modelbridge: note: %s: %s\n", in, printname.Runs(printname.Escape(n), 2*printname.MaxBytes))
	}
	if verbose {
		for _, n := range notes {
			line(n)
		}
		return
	}
	type group struct {
		first string
		count int
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, n := range notes {
		key := noteKind(n)
		if g := byKey[key]; g != nil {
			g.count++
			continue
		}
		g := &group{first: n, count: 1}
		byKey[key] = g
		groups = append(groups, g)
	}
	for i, g := range groups {
		if i == notesShown {
			rest := 0
			for _, g := range groups[i:] {
				rest += g.count
			}
			fmt.Fprintf(w, "modelbridge: note: %s: %d more notes (--verbose lists them)\n", in, rest)
			return
		}
		if g.count > 1 {
			line(fmt.Sprintf("%s (and %d more like it; --verbose lists them)", g.first, g.count-1))
		} else {
			line(g.first)
		}
	}
}

// noteKind is a note without the names it mentions: words holding a digit,
// a dot or an underscore (conv1.weight, getitem_2) become "*".
func noteKind(note string) string {
	words := strings.Fields(note)
	for i, w := range words {
		if strings.ContainsAny(w, "0123456789._") {
			words[i] = "*"
		}
	}
	return strings.Join(words, " ")
}
