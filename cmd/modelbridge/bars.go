package main

import (
	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/internal/progress"
)

// newBar returns a progress bar on the command's stderr, or nil (silent)
// when stderr is not a terminal or --quiet is set. Callers Finish it before
// printing their result.
func newBar(cmd *cobra.Command, label string, total int64, unit progress.Unit) *progress.Bar {
	return progress.ForTerminal(cmd.ErrOrStderr(), quiet(cmd), progress.Options{Label: label, Total: total, Unit: unit})
}

// quiet reports the persistent --quiet flag.
func quiet(cmd *cobra.Command) bool {
	q, _ := cmd.Flags().GetBool("quiet")
	return q
}

// newStageBar is a bar for a step that reports no counts (reading a model,
// optimizing, running): it shows the label, a spinner and the elapsed time
// once the step has taken half a second.
func newStageBar(cmd *cobra.Command, label string) *progress.Bar {
	return newBar(cmd, label, 0, progress.Count)
}
