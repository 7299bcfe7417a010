package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/optimize"
)

// fp16Flags are convert's --fp16 options.
type fp16Flags struct {
	on, keepIO bool
	keep       []string
}

func (f *fp16Flags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.on, "fp16", false, "store weights and compute in float16; reductions, softmax and normalizations stay float32 behind Casts")
	cmd.Flags().BoolVar(&f.keepIO, "keep-io-types", false, "with --fp16: keep float32 model inputs and outputs (Casts at the boundary)")
	cmd.Flags().StringSliceVar(&f.keep, "fp32-ops", nil, "with --fp16: more op kinds to keep in float32 (e.g. Exp,Pow)")
}

// check refuses the companion flags without --fp16, and --fp16 in batch mode.
func (f *fp16Flags) check(batch bool) error {
	if !f.on && (f.keepIO || len(f.keep) > 0) {
		return usageErrorf("--keep-io-types and --fp32-ops apply with --fp16")
	}
	if f.on && batch {
		return usageErrorf("--fp16 converts one model at a time; it is not available with --batch")
	}
	return nil
}

// options is the float16 step of the pipeline: nil without --fp16.
func (f *fp16Flags) options() *optimize.Float16Options {
	if !f.on {
		return nil
	}
	return &optimize.Float16Options{KeepIOTypes: f.keepIO, KeepFloat32: f.keep}
}

// printFloat16 reports what the float16 step did.
func printFloat16(cmd *cobra.Command, rep *optimize.Float16Report) {
	var kept []string
	for k, n := range rep.KeptFloat32 {
		kept = append(kept, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kept)
	msg := fmt.Sprintf("float16: %d weights converted, %d Casts inserted", rep.WeightsConverted, rep.CastsInserted)
	if len(kept) > 0 {
		msg += "; kept in float32: " + strings.Join(kept, ", ")
	}
	fmt.Fprintln(cmd.OutOrStdout(), msg)
	if rep.WeightsClamped > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "modelbridge: warning: %d weight values beyond float16's range were clamped to ±65504\n", rep.WeightsClamped)
	}
}
