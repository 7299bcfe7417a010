package main

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/opmatrix"
)

// opsReport is the --json schema of `ops`: per op, per backend column.
type opsReport struct {
	Columns []string   `json:"columns"`
	Ops     []opReport `json:"ops"`
}

type opReport struct {
	Kind    string                   `json:"kind"`
	Summary string                   `json:"summary"`
	Support map[string]canon.Support `json:"support"`
	Slots   []opmatrix.Slot          `json:"slots"`
}

func newOpsCmd() *cobra.Command {
	var asJSON, markdown, aten bool
	cmd := &cobra.Command{
		Use:   "ops [OP...]",
		Short: "Show which formats read, write and run each operator",
		Long: `ops prints the operator support matrix, built from the op tables of each
importer, exporter, the interpreter (run) and the cost model: "yes", the ONNX
opsets that express the op, or "no". Name ops to see each backend's details,
the reason behind every "no", and the op's slots that passes and writers ask
(float16 safety, accumulation length, axis remapping, expansion, dtypes). docs/ops.md is generated from the same
tables. --aten lists PyTorch's operators instead (the aten ops torch.onnx
exports), each with the TorchScript importer's handler or why it has none.`,
		Example: `  modelbridge ops
  modelbridge ops Gelu ConvTranspose
  modelbridge ops --aten
  modelbridge ops --aten log1p embedding
  modelbridge ops --json | jq '.ops[] | select(.support["mxnet write"].handled | not) | .kind'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if aten {
				return writeAtenOps(w, args, asJSON)
			}
			cols := opmatrix.Columns()
			switch {
			case markdown:
				opmatrix.WriteMarkdown(w, cols)
				return nil
			case asJSON:
				r := opsReport{}
				for _, c := range cols {
					r.Columns = append(r.Columns, c.Name())
				}
				defs, err := opmatrix.Select(args)
				if err != nil {
					return usageErrorf("%v", err)
				}
				for _, d := range defs {
					o := opReport{Kind: d.Kind, Summary: d.Summary, Support: map[string]canon.Support{}, Slots: opmatrix.Slots(d)}
					for _, c := range cols {
						o.Support[c.Name()] = c.Ops[d.Kind]
					}
					r.Ops = append(r.Ops, o)
				}
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			if err := opmatrix.WriteText(w, cols, args...); err != nil {
				return usageErrorf("%v", err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the matrix as JSON")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the matrix as Markdown (docs/ops.md)")
	cmd.Flags().BoolVar(&aten, "aten", false, "list PyTorch's aten operators (torch.onnx's registry) and the TorchScript importer's handlers")
	return cmd
}
