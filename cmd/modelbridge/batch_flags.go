package main

import (
	"errors"
	"fmt"
	"sort"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/optimize"
	"github.com/modelbridge/modelbridge/pipeline"
)

// batchSteps are the single-file steps of convert that --batch applies to
// every model.
type batchSteps struct {
	optimize     bool
	verify       bool
	inputShapes  []string
	kernelLayout string
}

// batchHonours lists the convert flags that --batch applies to every model;
// batchRefuses says why the others cannot apply. A flag in neither list is
// refused too, so a new convert flag is never silently ignored in batch mode.
var batchHonours = map[string]bool{
	"batch": true, "out": true, "jobs": true, "recursive": true, "json": true,
	"to": true, "from": true, "key": true, "input-shape": true, "input-type": true, "dynamic-batch": true,
	"ignore-crc": true, "opset": true, "external-data": true, "optimize": true,
	"no-verify": true, "kernel-layout": true,
}

var batchRefuses = map[string]string{
	"params":        "it pairs one weights file with one graph; give each MXNet model its prefix-NNNN.params beside it",
	"weights":       "it binds one weights file to one model; convert that model on its own",
	"allow-partial": "it goes with --weights, which names one model",
	"input":         "an input file fixes one model's input sizes; use --input-shape",
	"inputs":        "an inputs folder fixes one model's input sizes; use --input-shape",
	"verbose":       "parallel conversions would interleave their reports; convert the model on its own",
}

// refuseBatchFlags refuses every flag set on cmd that --batch does not
// apply.
func refuseBatchFlags(cmd *cobra.Command) error {
	var bad []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		// Global flags (--quiet, --debug, --max-memory) apply to the
		// whole command.
		if cmd.InheritedFlags().Lookup(f.Name) != nil {
			return
		}
		if !batchHonours[f.Name] {
			bad = append(bad, f.Name)
		}
	})
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	why, ok := batchRefuses[bad[0]]
	if !ok {
		why = "it applies to one model at a time; convert the model on its own"
	}
	return usageErrorf("--%s does not apply to --batch: %s", bad[0], why)
}

// apply runs the steps on one model of the batch and returns the graph to
// write (g itself, or an optimized graph sharing g's weights) and a short
// description of what was done for the summary.
func (s batchSteps) apply(g *canon.Graph, exp *formats.Exporter) (*canon.Graph, string, error) {
	plan := pipeline.Plan{KernelLayout: s.kernelLayout}
	if s.optimize {
		shapes, _ := tensorfile.ParseShapes(s.inputShapes)
		plan.Optimize = &optimize.Options{Verify: s.verify, InputShapes: shapes}
	}
	g, rep, err := plan.Apply(g, exp)
	var se *pipeline.StepError
	if errors.As(err, &se) && se.Step == pipeline.StepOptimize {
		return nil, "", fmt.Errorf("%v (nothing written)", se)
	} else if err != nil {
		return nil, "", errors.Unwrap(err)
	}
	detail := ""
	if r := rep.Optimize; r != nil {
		detail = fmt.Sprintf("optimized %d -> %d nodes", r.NodesBefore, r.NodesAfter)
	}
	return g, detail, nil
}
