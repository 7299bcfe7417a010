// Package opmatrix assembles the op support matrix from the backends' own
// op tables: each registered importer and exporter (through formats), the
// interpreter and the cost model. `modelbridge ops`, docs/ops.md and the
// exhaustiveness test all read it, so none of them keeps a list of its own.
package opmatrix

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/interp"
	"github.com/modelbridge/modelbridge/optimize"
)

// Action is what a backend does with an op.
type Action string

const (
	Read  Action = "read"
	Write Action = "write"
	Run   Action = "run"
	Cost  Action = "cost"
)

// Column is one backend of the matrix.
type Column struct {
	// Format is the format name ("onnx"), empty for run and cost.
	Format string
	Action Action
	Ops    canon.Coverage
}

// Name is the column's heading, e.g. "onnx read".
func (c Column) Name() string {
	if c.Format == "" {
		return string(c.Action)
	}
	return c.Format + " " + string(c.Action)
}

// Columns lists every backend that has an op table: the registered
// importers, then exporters, then the interpreter and the cost model.
// Weights-only formats (no op table) have no column.
func Columns() []Column {
	var cols []Column
	for _, imp := range formats.Importers() {
		if imp.Ops != nil {
			cols = append(cols, Column{Format: imp.Name, Action: Read, Ops: imp.Ops()})
		}
	}
	for _, exp := range formats.Exporters() {
		if exp.Ops != nil {
			cols = append(cols, Column{Format: exp.Name, Action: Write, Ops: exp.Ops()})
		}
	}
	cols = append(cols, Column{Action: Run, Ops: interp.Coverage()}, Column{Action: Cost, Ops: optimize.CostCoverage()})
	return cols
}

// Gaps lists every (backend, op) pair where the backend neither handles a
// registered op nor says why it cannot.
func Gaps(cols []Column) []canon.Gap {
	m := make(map[string]canon.Coverage, len(cols))
	for _, c := range cols {
		m[c.Name()] = c.Ops
	}
	return canon.Gaps(m)
}

// Cell is the short text for one op in one column: "yes", an opset range
// such as "7+" or "11–17", or "no".
func Cell(s canon.Support, ok bool) string {
	switch {
	case !ok:
		return "?"
	case !s.Handled:
		return "no"
	case s.MinOpset > 0 && s.MaxOpset > 0:
		return fmt.Sprintf("%d–%d", s.MinOpset, s.MaxOpset)
	case s.MinOpset > 0:
		return fmt.Sprintf("%d+", s.MinOpset)
	}
	return "yes"
}

// WriteText prints the matrix as an aligned table, one op per row. With
// kinds given, it prints only those ops, each followed by every backend's
// detail or reason.
func WriteText(w io.Writer, cols []Column, kinds ...string) error {
	defs, err := selectOps(kinds)
	if err != nil {
		return err
	}
	head := []string{"op"}
	for _, c := range cols {
		head = append(head, c.Name())
	}
	rows := [][]string{head}
	for _, d := range defs {
		row := []string{d.Kind}
		for _, c := range cols {
			s, ok := c.Ops[d.Kind]
			row = append(row, Cell(s, ok))
		}
		rows = append(rows, row)
	}
	widths := make([]int, len(head))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, cell := range r {
			b.WriteString(cell)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(cell))+2))
			}
		}
		fmt.Fprintln(w, b.String())
	}
	if len(kinds) == 0 {
		fmt.Fprintf(w, "\n%d ops. \"no\" means the backend cannot express the op; `modelbridge ops OP` says why.\n", len(defs))
		return nil
	}
	for _, d := range defs {
		fmt.Fprintf(w, "\n%s: %s\n", d.Kind, d.Summary)
		for _, c := range cols {
			fmt.Fprintf(w, "  %-18s %s\n", c.Name()+":", explain(c.Ops[d.Kind]))
		}
		fmt.Fprintln(w, "  slots:")
		for _, s := range Slots(d) {
			fmt.Fprintf(w, "    %-21s %s\n", s.Name+":", slotText(s))
		}
	}
	return nil
}

// explain is a cell's long form: the detail of a handled op or the reason
// for an unsupported one.
func explain(s canon.Support) string {
	if !s.Handled {
		return "no — " + s.Reason
	}
	text := Cell(s, true)
	if text != "yes" {
		text = "opsets " + text
	}
	if s.Detail != "" {
		text += " — " + s.Detail
	}
	return text
}

// Select returns the ops named (canonical kinds or framework operator
// names, any case), or every op when none is named.
func Select(kinds []string) ([]*canon.OpDef, error) { return selectOps(kinds) }

func selectOps(kinds []string) ([]*canon.OpDef, error) {
	if len(kinds) == 0 {
		return canon.Ops(), nil
	}
	var out []*canon.OpDef
	for _, k := range kinds {
		if d := lookupFold(k); d != nil {
			out = append(out, d)
			continue
		}
		found := fromSourceName(k)
		if len(found) == 0 {
			return nil, fmt.Errorf("unknown op %q; `modelbridge ops` lists every op", k)
		}
		out = append(out, found...)
	}
	return out, nil
}

// fromSourceName finds the canonical ops a framework's operator name is
// read as ("Convolution" in MXNet and Caffe, "conv2d" or "aten::conv2d"
// in PyTorch, "Gemm" in ONNX), ignoring case.
func fromSourceName(name string) []*canon.OpDef {
	want := strings.ToLower(strings.TrimPrefix(name, "aten::"))
	seen := map[string]bool{}
	var out []*canon.OpDef
	for _, imp := range formats.Importers() {
		if imp.SourceOps == nil {
			continue
		}
		for src, kinds := range imp.SourceOps() {
			s := strings.ToLower(src)
			if s != want && strings.TrimPrefix(s, "torch.") != want && strings.TrimPrefix(s, "torch.nn.functional.") != want {
				continue
			}
			for _, k := range kinds {
				if d := canon.Lookup(k); d != nil && !seen[k] {
					seen[k] = true
					out = append(out, d)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out
}

// lookupFold finds an op kind ignoring case, so "gelu" finds Gelu.
func lookupFold(kind string) *canon.OpDef {
	if d := canon.Lookup(kind); d != nil {
		return d
	}
	for _, d := range canon.Ops() {
		if strings.EqualFold(d.Kind, kind) {
			return d
		}
	}
	return nil
}

// WriteMarkdown writes docs/ops.md: the matrix, then per op the details and
// the reasons behind every "no".
func WriteMarkdown(w io.Writer, cols []Column) {
	defs := canon.Ops()
	fmt.Fprintln(w, "# Supported operators")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Generated from the op tables of each backend by `go test ./opmatrix -update`;")
	fmt.Fprintln(w, "`modelbridge ops` prints the same matrix and `modelbridge ops OP` one op's details. A test")
	fmt.Fprintln(w, "fails when this file and the tables disagree.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Cells: `yes`, an ONNX opset range (`7+`, `11–17`), or `no` (the reason is listed below).")
	fmt.Fprintln(w, "Columns: `read`/`write` per format, `run` is the reference interpreter, `cost` the optimizer's cost model.")
	fmt.Fprintln(w)
	head := []string{"op"}
	for _, c := range cols {
		head = append(head, c.Name())
	}
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Repeat("---|", len(head)))
	for _, d := range defs {
		row := []string{"[" + d.Kind + "](#" + strings.ToLower(d.Kind) + ")"}
		for _, c := range cols {
			s, ok := c.Ops[d.Kind]
			row = append(row, Cell(s, ok))
		}
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
	for _, d := range defs {
		fmt.Fprintf(w, "\n## %s\n\n%s.\n\n", d.Kind, d.Summary)
		var lines []string
		for _, c := range cols {
			lines = append(lines, fmt.Sprintf("- %s: %s", c.Name(), explain(c.Ops[d.Kind])))
		}
		for _, s := range Slots(d) {
			lines = append(lines, fmt.Sprintf("- slot %s: %s", s.Name, slotText(s)))
		}
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
}

// Kinds lists the op kinds a column handles, sorted.
func (c Column) Kinds() []string {
	var out []string
	for k, s := range c.Ops {
		if s.Handled {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
