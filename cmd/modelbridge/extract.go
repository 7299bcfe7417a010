package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/progress"
	"github.com/modelbridge/modelbridge/pipeline"
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
			paceGCForConversion()
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
			err = pipeline.Write(cut, exp, out, formats.WriteOptions{Opset: opset, Progress: bar.Func(), Notes: cmd.ErrOrStderr()})
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
// nodes of the whole model when it is known (0 otherwise); see
// pipeline.Extract.
func extractGraph(rf *readFlags, in string, ins, outs []string) (*canon.Graph, int, error) {
	opts, err := rf.options()
	if err != nil {
		if _, ferr := formats.FindImporter(in, rf.from); ferr != nil {
			return nil, 0, usageErrorf("%v", ferr)
		}
		return nil, 0, err
	}
	return pipeline.Extract(in, rf.from, opts, ins, outs)
}
