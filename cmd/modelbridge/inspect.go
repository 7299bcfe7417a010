package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/printname"
)

// inspectReport is the --json schema of `inspect`. Field names are stable.
type inspectReport struct {
	File            string         `json:"file"`
	Format          string         `json:"format"`
	Producer        string         `json:"producer"`
	ProducerVersion string         `json:"producer_version"`
	IRVersion       int64          `json:"ir_version,omitempty"`
	Opset           int64          `json:"opset,omitempty"`
	Inputs          []valueReport  `json:"inputs"`
	Outputs         []valueReport  `json:"outputs"`
	Nodes           int            `json:"nodes"`
	Ops             map[string]int `json:"ops"`
	// FileNodes and FileOps are the file's own nodes and op names (ONNX's
	// Gemm and Constant nodes), where the format has them; Nodes and Ops
	// are the canonical view modelbridge works on.
	FileNodes int            `json:"file_nodes,omitempty"`
	FileOps   map[string]int `json:"file_ops,omitempty"`
	// WeightsHidden counts the weights left out of Weights by --weights N
	// or --no-weights.
	WeightsHidden int            `json:"weights_hidden,omitempty"`
	Params        paramsReport   `json:"params"`
	Weights       []weightReport `json:"weights"`
	// Notes say how the file was read where a user should know (densified
	// sparse arrays, skipped checkpoint entries).
	Notes []string `json:"notes,omitempty"`
	// Signature and Symbols are set for formats that record them (.pt2).
	Signature []signatureReport `json:"signature,omitempty"`
	Symbols   []symbolReport    `json:"symbols,omitempty"`
	// Subgraphs shows, for each node owning graphs (If, Loop, Scan), its
	// captures and its subgraphs' nodes.
	Subgraphs []subgraphReport `json:"subgraphs,omitempty"`
}

type valueReport struct {
	Name  string `json:"name"`
	DType string `json:"dtype"`
	// Shape holds sizes as numbers and symbolic dims as strings ("?" when
	// unknown); null when even the rank is unknown.
	Shape []any `json:"shape"`
	// Kind is "sequence", "optional tensor" or "optional sequence" for a
	// value that is not a tensor (DType and Shape are its tensors').
	Kind string `json:"kind,omitempty"`
}

type paramsReport struct {
	Tensors  int              `json:"tensors"`
	Elements int64            `json:"elements"`
	Bytes    int64            `json:"bytes"`
	ByDType  map[string]int64 `json:"bytes_by_dtype"`
	// Shared counts names that are second names of a tensor counted once.
	Shared int `json:"shared_names,omitempty"`
}

type weightReport struct {
	Name   string  `json:"name"`
	DType  string  `json:"dtype"`
	Shape  []int64 `json:"shape"`
	Layout string  `json:"layout"`
	Bytes  int     `json:"bytes"`
}

func newInspectCmd() *cobra.Command {
	var rf readFlags
	var asJSON, noWeights bool
	var maxWeights int
	cmd := &cobra.Command{
		Use:   "inspect MODEL",
		Short: "Describe a model: format, inputs and outputs, ops, parameters and weight layouts",
		Example: `  modelbridge inspect testdata/tiny_convnet.onnx
  modelbridge inspect model.onnx --weights 10
  modelbridge inspect model.onnx --json | jq .params`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, imp, err := rf.load(args[0])
			if err != nil {
				return err
			}
			defer g.Close()
			rep := buildInspectReport(args[0], imp.Name, g)
			if noWeights {
				maxWeights = 0
			}
			rep.limitWeights(maxWeights)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			printInspect(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	rf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().IntVar(&maxWeights, "weights", -1, "list only the first N weights (default: all)")
	cmd.Flags().BoolVar(&noWeights, "no-weights", false, "list no weights (the parameter totals stay)")
	return cmd
}

func buildInspectReport(path, format string, g *canon.Graph) inspectReport {
	rep := inspectReport{
		File: path, Format: format,
		Producer: g.Meta.Producer, ProducerVersion: g.Meta.ProducerVersion,
		IRVersion: g.Meta.SourceIRVersion, Opset: g.Meta.SourceOpset,
		Nodes: len(g.Nodes), Ops: map[string]int{}, Notes: g.Meta.Notes,
	}
	for _, v := range g.Inputs {
		rep.Inputs = append(rep.Inputs, describeValue(v))
	}
	for _, v := range g.Outputs {
		rep.Outputs = append(rep.Outputs, describeValue(v))
	}
	for _, n := range g.Nodes {
		rep.Ops[n.Op.Kind()]++
	}
	ps := g.Params()
	rep.Params = paramsReport{Tensors: ps.Tensors, Elements: ps.Elements, Bytes: ps.Bytes, ByDType: map[string]int64{}, Shared: ps.Shared}
	for dt, b := range ps.ByDType {
		rep.Params.ByDType[dt.String()] = b
	}
	for _, t := range g.Initializers {
		rep.Weights = append(rep.Weights, weightReport{Name: t.Name, DType: t.DType.String(), Shape: t.Shape, Layout: string(t.Layout), Bytes: len(t.Data)})
	}
	addSignature(&rep, g)
	addFileOps(&rep, g)
	addSubgraphs(&rep, g)
	return rep
}

func describeValue(v canon.ValueInfo) valueReport {
	r := valueReport{Name: v.Name, DType: v.DType.String()}
	if !v.IsTensor() {
		r.Kind = v.Kind.String()
	}
	if v.RankKnown {
		r.Shape = []any{}
		for _, d := range v.Shape {
			switch {
			case d.Known():
				r.Shape = append(r.Shape, d.Size)
			case d.Param != "":
				r.Shape = append(r.Shape, d.Param)
			default:
				r.Shape = append(r.Shape, "?")
			}
		}
	}
	return r
}

func shapeString(s []any) string {
	if s == nil {
		return "(unknown rank)"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func printInspect(w io.Writer, r inspectReport) {
	fmt.Fprintf(w, "file:      %s\nformat:    %s\n", r.File, r.Format)
	if r.Producer != "" {
		fmt.Fprintf(w, "producer:  %s\n", printname.Name(strings.TrimSpace(r.Producer+" "+r.ProducerVersion)))
	}
	if r.IRVersion != 0 || r.Opset != 0 {
		fmt.Fprintf(w, "ir/opset:  %d / %d\n", r.IRVersion, r.Opset)
	}
	fmt.Fprintln(w, "inputs:")
	for _, v := range r.Inputs {
		fmt.Fprintf(w, "  %-24s %-5s %s\n", printname.Name(v.Name), v.DType, kindShapeString(v))
	}
	fmt.Fprintln(w, "outputs:")
	for _, v := range r.Outputs {
		fmt.Fprintf(w, "  %-24s %-5s %s\n", printname.Name(v.Name), v.DType, kindShapeString(v))
	}
	printSignature(w, r)
	if r.FileOps != nil {
		printFileOps(w, r)
	} else {
		printOps(w, r)
	}
	printSubgraphs(w, r)
	shared := ""
	if r.Params.Shared > 0 {
		shared = fmt.Sprintf(" (and %d shared names)", r.Params.Shared)
	}
	fmt.Fprintf(w, "params:    %d elements in %d tensors%s, %s\n", r.Params.Elements, r.Params.Tensors, shared, humanBytes(r.Params.Bytes))
	dts := make([]string, 0, len(r.Params.ByDType))
	for k := range r.Params.ByDType {
		dts = append(dts, k)
	}
	sort.Strings(dts)
	for _, k := range dts {
		fmt.Fprintf(w, "  %-24s %s\n", k, humanBytes(r.Params.ByDType[k]))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note:      %s\n", printname.Runs(printname.Escape(n), 2*printname.MaxBytes))
	}
	if len(r.Weights) > 0 {
		fmt.Fprintln(w, "weights:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  name\tdtype\tshape\tlayout")
		for _, t := range r.Weights {
			layout := t.Layout
			if layout == "" {
				layout = "-"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%v\t%s\n", printname.Name(t.Name), t.DType, t.Shape, layout)
		}
		tw.Flush()
	}
	if r.WeightsHidden > 0 {
		fmt.Fprintf(w, "  ... %d more weights (--weights N lists more)\n", r.WeightsHidden)
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
