package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/progress"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/optimize"
	"github.com/modelbridge/modelbridge/optimize/ortmeasure"
	"github.com/modelbridge/modelbridge/pipeline"
)

// optimizeReport is the --json schema of `optimize`. Field names are stable.
type optimizeReport struct {
	In      string          `json:"in"`
	Out     string          `json:"out"`
	Format  string          `json:"format"`
	Passes  []string        `json:"passes"`
	Written bool            `json:"written"`
	Bytes   int64           `json:"bytes,omitempty"`
	Report  optimize.Report `json:"report"`
	// Quantize is what --quantize did and measured; Report then describes
	// the float passes that ran before it.
	Quantize *quantSummary `json:"quantize,omitempty"`
}

func newOptimizeCmd() *cobra.Command {
	var rf readFlags
	var passes []string
	var list, search, allowGrowth, noVerify, verbose, asJSON bool
	var target string
	var alpha float64
	var budget, samples, opset int
	var to string
	var qf quantFlags
	cmd := &cobra.Command{
		Use:   "optimize IN OUT",
		Short: "Optimize a model (fold BatchNorm, fuse, eliminate, merge convs, ...) and verify it",
		Long: `optimize reads IN, rewrites it with the graph optimizer and writes OUT.

The default pipeline runs every pass (see --list) to a fixpoint, validating
the graph after each change. Its passes never add FLOPs, parameters or
bytes: they fold, fuse, eliminate and sink transposes.

Rewrites that trade size or arithmetic for fewer launches (regrouping a
grouped conv with zero-filled weights, merging convs of different kernel
sizes) run only with --allow-growth or --search, and each is kept only when
the whole graph, timed in --target, is faster beyond the run-to-run noise
(medians of repeated interleaved runs): ort times it in ONNX Runtime
(MODELBRIDGE_ORT_DIR), interp in the reference interpreter, model trusts the
cost model. --search also proposes the best graph of a cost-based
backtracking search (TASO-style; --alpha, --budget). Every such rewrite is
reported with the zeros and FLOPs it adds.

The result is verified by default: the original and the optimized model run
in the reference interpreter on random inputs and every output must match
by check's rule (|b-a| <= 1e-5 + 1e-4·|a| + 4·u·√K·max|a|, see check --help). When verification fails, the pipeline is
replayed pass by pass to name the pass that broke the model, and nothing is
written.`,
		Example: `  modelbridge optimize model.onnx model.opt.onnx
  modelbridge optimize model.onnx out.onnx --passes fold_bn,eliminate_dead --verbose
  modelbridge optimize resnext.onnx out.onnx --search --target ort --verbose
  modelbridge optimize --list`,
		Args: func(cmd *cobra.Command, args []string) error {
			if list {
				return exactArgs(0)(cmd, args)
			}
			return exactArgs(2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			paceGCForConversion()
			out := cmd.OutOrStdout()
			if list {
				return listPasses(out)
			}
			in, outPath := args[0], args[1]
			if formats.SameFile(in, outPath) {
				return usageErrorf("refusing to overwrite the input %s; choose another output path", in)
			}
			if _, err := optimize.Pipeline(passes); err != nil {
				return usageErrorf("--passes: %v", err)
			}
			if alpha < 1 {
				return usageErrorf("--alpha %g: must be at least 1 (1.05 keeps candidates up to 5%% worse than the best)", alpha)
			}
			if budget < 1 || samples < 1 {
				return usageErrorf("--budget and --samples must be positive")
			}
			exp, err := formats.FindExporter(outPath, to)
			if err != nil {
				return usageErrorf("%v", err)
			}
			shapes, err := tensorfile.ParseShapes(rf.inputShapes)
			if err != nil {
				return usageErrorf("%v", err)
			}
			g, _, err := rf.load(in)
			if err != nil {
				return err
			}
			defer g.Close()
			if err := pipeline.RequireModel(in, g, false); err != nil {
				return err
			}
			tgt, err := optimizeTarget(target, shapes, search || allowGrowth)
			if err != nil {
				return err
			}
			var bar *progress.Bar
			if search || allowGrowth {
				bar = newBar(cmd, "searching", int64(budget), progress.Count)
			} else {
				bar = newStageBar(cmd, "optimizing "+in)
			}
			plan := pipeline.Plan{Optimize: &optimize.Options{
				Passes: passes, Search: search, AllowGrowth: allowGrowth, Target: tgt, Alpha: alpha, Budget: budget, Progress: bar.Func(),
				Verify: !noVerify, Samples: samples, InputShapes: shapes, GrowthProgress: bar.Func(),
			}}
			opt, prep, err := plan.Apply(g, exp)
			bar.Finish()
			if err != nil {
				err = errors.Unwrap(err) // the optimizer's own error
				var ue *optimize.UnverifiableError
				if errors.As(err, &ue) {
					return fmt.Errorf("%s: %w (nothing written; give --input-shape, or skip the check with --no-verify)", in, err)
				}
				return fmt.Errorf("%s: %w (nothing written)", in, err)
			}
			rep := *prep.Optimize
			var quant *quantSummary
			if opt, quant, err = qf.apply(cmd, in, opt, exp.Name); err != nil {
				return err
			}
			if err := pipeline.RefuseInputOverwrite(in, outPath, exp, g, "", nil); err != nil {
				return err
			}
			if err := pipeline.Write(opt, exp, outPath, formats.WriteOptions{Opset: opset, Notes: cmd.ErrOrStderr()}); err != nil {
				return err
			}
			jr := optimizeReport{In: in, Out: outPath, Format: exp.Name, Passes: passes, Written: true, Report: rep, Quantize: quant}
			if len(jr.Passes) == 0 {
				jr.Passes = optimize.PassNames()
			}
			if st, err := os.Stat(outPath); err == nil {
				jr.Bytes = st.Size()
			}
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(jr)
			}
			printOptimizeTable(out, g, opt, in, jr.Bytes, rep, quant != nil)
			printOptimize(out, jr, verbose)
			// What the passes had to tell (a shared weight copied).
			if len(prep.Notes) > 0 {
				writeNotes(out, in, prep.Notes, verbose)
			}
			return nil
		},
	}
	rf.register(cmd)
	f := cmd.Flags()
	f.StringSliceVar(&passes, "passes", nil, "comma-separated passes to run, in order (default: all, see --list)")
	f.BoolVar(&list, "list", false, "describe the passes and exit")
	f.BoolVar(&search, "search", false, "run the cost-based search after the pipeline")
	f.BoolVar(&allowGrowth, "allow-growth", false, "try rewrites that add zeros or FLOPs (regrouping, zero-padded merging), keeping those --target measures faster")
	f.StringVar(&target, "target", "interp", "where growth rewrites are timed: ort (ONNX Runtime), interp (reference interpreter) or model (cost model only)")
	f.Float64Var(&alpha, "alpha", 1.05, "search: explore candidates costing less than alpha × the best so far")
	f.IntVar(&budget, "budget", 100, "search: number of candidate expansions")
	f.BoolVar(&noVerify, "no-verify", false, "skip checking the result against the original with the interpreter")
	f.IntVar(&samples, "samples", 2, "random input sets used for verification")
	f.BoolVarP(&verbose, "verbose", "v", false, "print what each pass did, the per-op cost table and the 20 most expensive nodes, before and after")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.StringVar(&to, "to", "", "output format (default: from OUT's extension; one of "+joinNames(formats.ExporterNames())+")")
	f.Var((*opsetFlag)(&opset), "opset", opsetUsage())
	qf.register(cmd)
	return cmd
}

func listPasses(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PASS\tWHAT IT DOES (default order)")
	for _, p := range optimize.Passes() {
		fmt.Fprintf(tw, "%s\t%s\n", p.Name, p.Doc)
	}
	fmt.Fprintln(tw, "\nGROWTH REWRITE\tWHAT IT DOES (only with --allow-growth or --search; kept when --target measures it faster)")
	for _, p := range optimize.GrowthRewrites() {
		fmt.Fprintf(tw, "%s\t%s\n", p.Name, p.Doc)
	}
	fmt.Fprintln(tw, "\nSEARCH SUBSTITUTION\t")
	for _, s := range optimize.Substitutions() {
		fmt.Fprintf(tw, "%s\t%s\n", s.Name, s.Doc)
	}
	return tw.Flush()
}

// verboseTopNodes is how many of the most expensive nodes --verbose lists.
const verboseTopNodes = 20

func printOptimize(w io.Writer, r optimizeReport, verbose bool) {
	rep := r.Report
	before, after := rep.Before.Cost(), rep.After.Cost()
	change := 0.0
	if before > 0 {
		change = (after - before) / before * 100
	}
	passes := "optimized"
	if r.Quantize != nil {
		passes = "float passes on" // the quantized model is described below
	}
	fmt.Fprintf(w, "%s %s: %d -> %d nodes, %d -> %d launches, modelled %.3f -> %.3f ms (%+.1f%%)\n",
		passes, r.In, rep.NodesBefore, rep.NodesAfter, rep.Before.Total.Launches, rep.After.Total.Launches, before*1e3, after*1e3, change)
	if verbose {
		fmt.Fprintf(w, "pipeline: %d rounds\n", rep.Pipeline.Iterations)
		for _, p := range rep.Pipeline.Passes {
			if p.Changed > 0 {
				fmt.Fprintf(w, "  %-22s changed the graph in %d of %d runs\n", p.Name, p.Changed, p.Runs)
			}
		}
		if s := rep.Search; s != nil {
			applied := "nothing"
			if len(s.Applied) > 0 {
				applied = strings.Join(s.Applied, ", ")
			}
			fmt.Fprintf(w, "search: %d expansions, %d candidates (%d duplicates), %.3f -> %.3f ms in %v; applied: %s\n",
				s.Expansions, s.Generated, s.Duplicates, s.StartCost*1e3, s.BestCost*1e3, s.Elapsed.Round(1e6), applied)
		}
		fmt.Fprintf(w, "params: %d -> %d\n", rep.ParamsBefore, rep.ParamsAfter)
		optimize.WriteCostTable(w, rep.Before, rep.After)
		fmt.Fprintln(w)
		optimize.WriteNodeTable(w, "before", rep.Before, verboseTopNodes)
		fmt.Fprintln(w)
		optimize.WriteNodeTable(w, "after", rep.After, verboseTopNodes)
	}
	if g := rep.Growth; g != nil {
		printGrowth(w, g, verbose)
	}
	nodes := rep.NodesAfter
	switch {
	case r.Quantize != nil:
		if rep.Verified {
			fmt.Fprintln(w, "verified: the float passes' outputs match the original on random inputs")
		}
		r.Quantize.print(w)
		fmt.Fprintln(w, r.Quantize.verdict())
		nodes = r.Quantize.Nodes
	case rep.Verified:
		fmt.Fprintln(w, "verified: outputs match the original on random inputs")
	default:
		fmt.Fprintln(w, "not verified (--no-verify)")
	}
	fmt.Fprintf(w, "wrote %s (%s, %d nodes, %s)\n", r.Out, r.Format, nodes, humanBytes(r.Bytes))
}

// optimizeTarget resolves --target; ONNX Runtime is looked for only when
// something will be timed.
func optimizeTarget(name string, shapes map[string][]int64, used bool) (optimize.Target, error) {
	switch name {
	case "interp", "":
		return optimize.InterpTarget{InputShapes: shapes}, nil
	case "model":
		return optimize.ModelTarget{}, nil
	case "ort":
		if !used {
			return nil, nil
		}
		return ortmeasure.New("")
	}
	return nil, usageErrorf("--target %q: use ort, interp or model", name)
}

// printGrowth lists every growth rewrite that was timed: kept ones always,
// reverted ones with --verbose.
func printGrowth(w io.Writer, g *optimize.GrowthStats, verbose bool) {
	kept := 0
	for _, r := range g.Rewrites {
		if r.Kept {
			kept++
		}
	}
	// The cost model target times nothing: its "measurement" is the
	// modelled latency.
	judged := "timed"
	if g.Target == "model" {
		judged = "judged by the cost model (nothing timed)"
	}
	fmt.Fprintf(w, "growth rewrites (target %s): %d promising, %d %s, %d kept\n", g.Target, g.Candidates, g.Measured, judged, kept)
	if kept == 0 && !verbose {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  REWRITE\tPARAMS\tZEROS ADDED\tMFLOP\tMODELLED ms\tMEASURED ms (median)\tRATIO\tRESULT\tWHERE")
	for _, r := range g.Rewrites {
		if !r.Kept && !verbose {
			continue
		}
		res := "reverted"
		if r.Kept {
			res = "kept"
		}
		fmt.Fprintf(tw, "  %s\t%d -> %d\t%d\t%.3f -> %.3f\t%.3f -> %.3f\t%.3f -> %.3f\tx%.2f ±%.1f%%\t%s\t%s\n", r.Rewrite, r.ParamsBefore, r.ParamsAfter, r.ZerosAdded,
			r.FLOPsBefore/1e6, r.FLOPsAfter/1e6, r.ModelledBeforeMs, r.ModelledAfterMs, r.Measured.BeforeMs, r.Measured.AfterMs, r.Measured.Ratio, r.Measured.Noise*100, res, r.Detail)
	}
	tw.Flush()
}
