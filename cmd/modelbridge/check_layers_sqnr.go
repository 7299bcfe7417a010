package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/internal/compare"
)

func registerLayerSQNR(cmd *cobra.Command, min *float64) {
	cmd.Flags().Float64Var(min, "layer-sqnr", 0, "with --layers: name the first layer whose SQNR (dB, B against A) falls below this while its inputs' do not, e.g. 30 for a float model against its quantized form")
}

func sqnrText(db *float64) string {
	if db == nil {
		return "exact"
	}
	return fmt.Sprintf("%.1f", *db)
}

func printSQNRLoss(w io.Writer, r *compare.LayersReport) {
	if r.SQNRThreshold <= 0 {
		return
	}
	if r.FirstBelow < 0 {
		fmt.Fprintf(w, "every matched layer keeps SQNR >= %.1f dB\n", r.SQNRThreshold)
		return
	}
	l := r.Layers[r.FirstBelow]
	fmt.Fprintf(w, "first layer below %.1f dB SQNR: node %q (%s) in A, %q (%s) in B: %s dB, its inputs above it\n",
		r.SQNRThreshold, l.NodeA, l.OpA, l.NodeB, l.OpB, sqnrText(l.SQNR))
}
