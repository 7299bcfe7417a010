package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/progress"
)

func newExtractCmd() *cobra.Command {
	var rf readFlags
	var to, inputs, outputs string
	var opset int
	cmd := &cobra.Command{
		Use:   "extract IN OUT --outputs NAMES [--inputs NAMES]",
		Short: "Cut the subgraph between some values out of a model",
		Long: `extract writes the part of IN that computes --outputs from --inputs (by
default the model's own inputs), as onnx.utils.extract_model does: the nodes
between them and the weights they read. OUT may be in any output format.

From an ONNX file only the nodes inside the cut are read, so a model whose
tail holds an op modelbridge does not support can still be cut before it.`,
		Example: `  modelbridge extract model.onnx head.onnx --outputs features
  modelbridge extract model.onnx block.onnx --inputs conv1_out --outputs relu3_out
  modelbridge extract model.onnx head_torch --to torch --outputs pool5`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, out := args[0], args[1]
			if formats.SameFile(in, out) {
				return usageErrorf("refusing to overwrite the input %s; choose another output path", in)
			}
			outs := splitNames(outputs)
			if len(outs) == 0 {
				return usageErrorf("extract needs --outputs NAME[,NAME...]: the values the cut computes")
			}
			ins := splitNames(inputs)
			exp, err := formats.FindExporter(out, to)
			if err != nil {
				return usageErrorf("%v", err)
			}
			if err := checkWriteFlags(exp, out, opset, false); err != nil {
				return err
			}
			cut, total, err := extractGraph(&rf, in, ins, outs)
			if err != nil {
				return err
			}
			defer cut.Close()
			bar := newBar(cmd, "writing "+out, 0, progress.Bytes)
			err = exp.Write(cut, out, formats.WriteOptions{Opset: opset, Progress: bar.Func()})
			bar.Finish()
			if err != nil {
				return err
			}
			size, _ := outputSize(out)
			var sig []string
			for _, v := range cut.Inputs {
				sig = append(sig, v.Name)
			}
			of := ""
			if total > 0 { // unknown when the whole model cannot be imported
				of = fmt.Sprintf(" of %d", total)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "extracted %d%s nodes (%s -> %s)\n", len(cut.Nodes), of,
				strings.Join(sig, ","), strings.Join(outs, ","))
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s, %d nodes, %s)\n", out, exp.Name, len(cut.Nodes), humanBytes(size))
			return nil
		},
	}
	rf.register(cmd)
	cmd.Flags().StringVar(&inputs, "inputs", "", "comma-separated values that become the cut's inputs (default: the model's inputs)")
	cmd.Flags().StringVar(&outputs, "outputs", "", "comma-separated values that become the cut's outputs (required)")
	cmd.Flags().StringVar(&to, "to", "", "output format (default: from OUT's extension; one of "+joinNames(formats.ExporterNames())+")")
	cmd.Flags().Var((*opsetFlag)(&opset), "opset", opsetUsage())
	return cmd
}

func splitNames(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// extractGraph reads the cut of in between ins and outs, and the number of
// nodes of the whole model when it is known (0 otherwise). ONNX files are cut
// before import, so ops outside the cut need not be supported; other
// formats are imported whole and cut in canonical form.
func extractGraph(rf *readFlags, in string, ins, outs []string) (*canon.Graph, int, error) {
	imp, err := formats.FindImporter(in, rf.from)
	if err != nil {
		return nil, 0, usageErrorf("%v", err)
	}
	opts, err := rf.options()
	if err != nil {
		return nil, 0, err
	}
	if imp.Name == "onnx" {
		total := 0
		if whole, err := imp.Read(in, opts); err == nil {
			total = len(whole.Nodes)
			whole.Close()
		}
		cut := onnximport.Cut{Outputs: outs}
		if ins != nil {
			cut.Inputs = onnxCutInputs(in, opts, ins)
		}
		g, err := onnximport.ReadCut(in, opts, cut)
		return g, total, err
	}
	g, _, err := formats.Read(in, rf.from, opts)
	if err != nil {
		return nil, 0, err
	}
	if err := requireModel(in, g, false); err != nil {
		g.Close()
		return nil, 0, err
	}
	if ins == nil {
		for _, v := range g.Inputs {
			ins = append(ins, v.Name)
		}
	}
	cut, err := canon.Extract(g, ins, outs)
	if err != nil {
		g.Close()
		return nil, 0, fmt.Errorf("%s: %w", in, err)
	}
	// The cut shares g's weight data: g's resources close with it.
	cut.AddResource(g)
	return cut, len(g.Nodes), nil
}

// onnxCutInputs types the cut's inputs by importing the part of the model
// that computes them; where that part cannot be imported, the types the file
// declares are used.
func onnxCutInputs(in string, opts formats.ReadOptions, ins []string) []canon.ValueInfo {
	out := make([]canon.ValueInfo, len(ins))
	for i, name := range ins {
		out[i].Name = name
	}
	head, err := onnximport.ReadCut(in, opts, onnximport.Cut{Outputs: ins})
	if err != nil {
		return out
	}
	defer head.Close()
	for i, name := range ins {
		if v, ok := head.Values.Lookup(name); ok && v.DType != canon.Undefined {
			v.Const = nil
			out[i] = v
		}
	}
	return out
}
