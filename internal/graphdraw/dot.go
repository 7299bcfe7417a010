package graphdraw

import (
	"github.com/modelbridge/modelbridge/internal/printname"

	"bufio"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
)

// Colours of the diff states (and of plain drawings).
var (
	statusColor = [...]string{Same: "#4a4a4a", Removed: "#d62728", Added: "#2ca02c", Changed: "#ff7f0e"}
	statusFill  = [...]string{Same: "#ffffff", Removed: "#fde0e0", Added: "#e2f5e2", Changed: "#fff0dc"}
	kindFill    = [...]string{OpBox: "", InputBox: "#e8f0fe", OutputBox: "#e8f0fe"}
)

func fillOf(b *Box) string {
	if b.Status == Same && kindFill[b.Kind] != "" {
		return kindFill[b.Kind]
	}
	return statusFill[b.Status]
}

// WriteDOT writes d in Graphviz's DOT language: one HTML-like table per box
// (op, name, attributes, weights with their layouts, output shapes), edges
// top to bottom, diff states as colours and dashed lines.
func WriteDOT(w io.Writer, d *Drawing) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", strconv.Quote(nonEmpty(d.Title, "model")))
	fmt.Fprintln(bw, `  graph [rankdir=TB, nodesep=0.3, ranksep=0.4, fontname="Helvetica"];`)
	fmt.Fprintln(bw, `  node [shape=plain, fontname="Helvetica", fontsize=10];`)
	fmt.Fprintln(bw, `  edge [color="#4a4a4a", arrowsize=0.7];`)
	for _, b := range d.Boxes {
		fmt.Fprintf(bw, "  %s [label=<%s>];\n", strconv.Quote(b.ID), boxTable(b))
	}
	for _, e := range d.Edges {
		style := ""
		switch e.Status {
		case Removed:
			style = fmt.Sprintf(`, color=%q, style=dashed`, statusColor[Removed])
		case Added:
			style = fmt.Sprintf(`, color=%q, penwidth=1.5`, statusColor[Added])
		}
		fmt.Fprintf(bw, "  %s -> %s [tooltip=%s%s];\n", strconv.Quote(e.From), strconv.Quote(e.To), strconv.Quote(e.Value), style)
	}
	if d.Diff {
		writeLegend(bw)
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// boxTable is a Graphviz HTML-like label for one box.
func boxTable(b *Box) string {
	var styles []string
	if b.Kind == OpBox {
		styles = append(styles, "rounded")
	}
	if b.Status == Removed {
		styles = append(styles, "dashed")
	}
	style := ""
	if len(styles) > 0 {
		style = ` style="` + strings.Join(styles, ",") + `"`
	}
	s := fmt.Sprintf(`<table border="1" cellborder="0" cellspacing="0" cellpadding="2"%s color="%s" bgcolor="%s">`,
		style, statusColor[b.Status], fillOf(b))
	row := func(content, align string) {
		s += fmt.Sprintf(`<tr><td align="%s">%s</td></tr>`, align, content)
	}
	row("<b>"+esc(b.Title)+"</b>", "center")
	if b.Name != "" && b.Name != b.Title {
		row(`<font point-size="8" color="#666666">`+esc(b.Name)+`</font>`, "center")
	}
	for _, a := range b.Attrs {
		row(esc(a), "left")
	}
	for _, wr := range b.Weights {
		row(`<font face="Courier" point-size="9">`+esc(wr.String())+`</font>`, "left")
	}
	if b.Kind == OpBox {
		for _, o := range b.Outputs {
			row(`<font point-size="9" color="#1f4e99">→ `+esc(o)+`</font>`, "left")
		}
	} else {
		for _, o := range b.Outputs {
			row(`<font point-size="9">`+esc(o)+`</font>`, "left")
		}
	}
	if b.Note != "" {
		row(`<font point-size="9" color="`+statusColor[b.Status]+`"><i>`+esc(b.Note)+`</i></font>`, "left")
	}
	return s + "</table>"
}

func writeLegend(w io.Writer) {
	fmt.Fprintln(w, `  subgraph cluster_legend {`)
	fmt.Fprintln(w, `    label="legend"; fontsize=10; color="#bbbbbb";`)
	for _, st := range []Status{Removed, Added, Changed} {
		b := &Box{ID: "legend:" + st.String(), Kind: OpBox, Title: st.String(), Status: st}
		fmt.Fprintf(w, "    %s [label=<%s>];\n", strconv.Quote(b.ID), boxTable(b))
	}
	fmt.Fprintln(w, `  }`)
}

// esc makes a model's text safe in a DOT label: control characters
// (which Graphviz refuses) are written as escapes, then HTML-escaped.
func esc(s string) string { return html.EscapeString(printname.Escape(s)) }

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
