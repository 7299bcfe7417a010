package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/optimize"
)

func newConvertCmd() *cobra.Command {
	var rf readFlags
	var to string
	var opset int
	var external, optimizeToo, noVerify bool
	cmd := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Convert a model to another format (or re-write it at another opset)",
		Long: `convert reads IN, validates it in canonical form, and writes OUT.
Formats come from the file contents and extensions, or from --from/--to.
The output appears only when the whole conversion succeeded; an existing
file at OUT is left untouched on failure, and IN is never overwritten.`,
		Example: `  modelbridge convert testdata/tiny_convnet.onnx /tmp/tiny_convnet.onnx --opset 11
  modelbridge convert big.onnx out.onnx --external-data`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, out := args[0], args[1]
			if formats.SameFile(in, out) {
				return usageErrorf("refusing to overwrite the input %s; choose another output path", in)
			}
			exp, err := formats.FindExporter(out, to)
			if err != nil {
				return usageErrorf("%v", err)
			}
			g, _, err := rf.load(in)
			if err != nil {
				return err
			}
			defer g.Close()
			if optimizeToo {
				shapes, _ := tensorfile.ParseShapes(rf.inputShapes)
				opt, rep, err := optimize.Optimize(g, optimize.Options{Verify: !noVerify, InputShapes: shapes})
				if err != nil {
					return fmt.Errorf("%s: %w (nothing written)", in, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "optimized: %d -> %d nodes, modelled %.3f -> %.3f ms\n",
					rep.NodesBefore, rep.NodesAfter, rep.Before.Cost()*1e3, rep.After.Cost()*1e3)
				// opt shares g's weight data; g stays open until the write is done.
				g = opt
			}
			if err := exp.Write(g, out, formats.WriteOptions{Opset: opset, ExternalData: external}); err != nil {
				return err
			}
			st, err := os.Stat(out)
			if err == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s, %d nodes, %s)\n", out, exp.Name, len(g.Nodes), humanBytes(st.Size()))
			}
			return nil
		},
	}
	rf.register(cmd)
	cmd.Flags().StringVar(&to, "to", "", "output format (default: from OUT's extension; one of "+joinNames(formats.ExporterNames())+")")
	cmd.Flags().IntVar(&opset, "opset", 0, "ONNX opset to write (11 to 17; default 13)")
	cmd.Flags().BoolVar(&optimizeToo, "optimize", false, "run the default optimizer pipeline before writing (verified unless --no-verify)")
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "with --optimize, skip checking the result against the original")
	cmd.Flags().BoolVar(&external, "external-data", false, "write ONNX weights to OUT.data beside the model (automatic above 2 GiB)")
	return cmd
}
