package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/progress"
	"github.com/modelbridge/modelbridge/optimize/ortmeasure"
	"github.com/modelbridge/modelbridge/optimize/quantize"
)

// quantFlags are --quantize and its companions, on optimize and convert.
type quantFlags struct {
	mode        string
	calibrate   string
	holdout     string
	method      string
	percentile  float64
	activations string
	minSQNR     float64
	keepFloat   []string
	ownTarget   string // convert's --target
}

func (q *quantFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&q.mode, "quantize", "", "int8: static int8 quantization to QDQ ONNX calibrated on --calibrate; dynamic: int8 weights of Gemm/MatMul with activations quantized at run time")
	f.StringVar(&q.calibrate, "calibrate", "", "--quantize: folder of input sets (test_data_set_*/input_*.pb, or .pb/.npy files of a one-input model); a fourth is held out to measure SQNR unless --holdout is given")
	f.StringVar(&q.holdout, "holdout", "", "--quantize: folder of input sets the SQNR table is measured on (default: every fourth set of --calibrate)")
	f.StringVar(&q.method, "calibration", "minmax", "--quantize int8: how ranges are chosen: minmax, percentile or entropy (KL divergence)")
	f.Float64Var(&q.percentile, "percentile", 99.999, "--calibration percentile: percentile of magnitudes kept")
	f.StringVar(&q.activations, "activations", "uint8", "--quantize int8: activation type, uint8 (asymmetric) or int8 (symmetric)")
	f.Float64Var(&q.minSQNR, "min-sqnr", math.Inf(-1), "--quantize: refuse to write the model when an output's SQNR on the held-out inputs is below this (dB)")
	f.StringSliceVar(&q.keepFloat, "keep-float", nil, "--quantize: node classes left float (Conv, depthwise Conv, grouped Conv, Linear, MatMul, Add, Mul, pooling, Concat, Resize)")
	// optimize has --target already (growth rewrites); convert gets one.
	if f.Lookup("target") == nil {
		f.StringVar(&q.ownTarget, "target", "interp", "--quantize: ort times the quantized model against the float one in ONNX Runtime and leaves float the classes it runs slower quantized")
	}
}

// targetName is --target, wherever it was registered.
func (q *quantFlags) targetName(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("target"); f != nil {
		return f.Value.String()
	}
	return q.ownTarget
}

// apply quantizes g when --quantize is given and returns what it measured
// (nil without --quantize); it refuses (nothing written) below --min-sqnr.
func (q *quantFlags) apply(cmd *cobra.Command, in string, g *canon.Graph, format string) (*canon.Graph, *quantSummary, error) {
	flags := cmd.Flags()
	if q.mode == "" {
		for _, name := range []string{"calibrate", "holdout", "calibration", "min-sqnr", "keep-float", "activations", "percentile"} {
			if flags.Changed(name) {
				return nil, nil, usageErrorf("--%s needs --quantize int8 or --quantize dynamic", name)
			}
		}
		return g, nil, nil
	}
	if format != "onnx" {
		return nil, nil, usageErrorf("--quantize writes QDQ ONNX (QuantizeLinear/DequantizeLinear around the integer kernels ONNX Runtime runs); %s has no such form here: write .onnx", format)
	}
	return q.quantize(cmd, in, g)
}

// quantize runs the quantization --quantize asked for.
func (q *quantFlags) quantize(cmd *cobra.Command, in string, g *canon.Graph) (*canon.Graph, *quantSummary, error) {
	flags := cmd.Flags()
	opts := quantize.Options{
		Calibration: quantize.CalibrateOptions{Method: quantize.Method(q.method), Percentile: q.percentile},
		KeepFloat:   q.keepFloat,
	}
	switch q.activations {
	case "uint8":
		opts.Activations = canon.Uint8
	case "int8":
		opts.Activations = canon.Int8
	default:
		return nil, nil, usageErrorf("--activations %q: use uint8 or int8", q.activations)
	}
	var calib, held quantize.Samples
	if q.calibrate != "" {
		src, err := quantize.OpenDir(q.calibrate, g.Inputs)
		if err != nil {
			return nil, nil, usageErrorf("--calibrate: %v", err)
		}
		calib, held = src, src
		if q.holdout == "" {
			calib, held = quantize.SplitHoldout(src)
		}
	}
	if q.holdout != "" {
		src, err := quantize.OpenDir(q.holdout, g.Inputs)
		if err != nil {
			return nil, nil, usageErrorf("--holdout: %v", err)
		}
		held = src
	}
	var build quantize.Builder
	switch q.mode {
	case "int8", "static":
		if calib == nil {
			return nil, nil, usageErrorf("--quantize int8 needs --calibrate DIR (input sets the ranges are measured on); --quantize dynamic needs none")
		}
		bar := newBar(cmd, "calibrating", int64(calib.Len()), progress.Count)
		opts.Calibration.Progress = bar.Func()
		c, err := quantize.Prepare(g, calib, opts)
		bar.Finish()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: quantize: %w (nothing written)", in, err)
		}
		build = c.Build
	case "dynamic":
		if flags.Changed("calibration") || flags.Changed("activations") {
			return nil, nil, usageErrorf("--calibration and --activations apply to --quantize int8; dynamic quantization measures activations at run time")
		}
		build = func(keep []string) (*canon.Graph, *quantize.Report, error) {
			o := opts
			o.KeepFloat = append(append([]string{}, opts.KeepFloat...), keep...)
			return quantize.Dynamic(g, o)
		}
		if held == nil {
			held = quantize.RandomSamples{Inputs: g.Inputs, N: 8, Seed: 1}
		}
	default:
		return nil, nil, usageErrorf("--quantize %q: use int8 (static, calibrated) or dynamic", q.mode)
	}
	var qg *canon.Graph
	var rep *quantize.Report
	var speed *quantize.Speed
	var err error
	if q.targetName(cmd) == "ort" {
		tgt, terr := ortmeasure.New("")
		if terr != nil {
			return nil, nil, terr
		}
		bar := newStageBar(cmd, "timing in ONNX Runtime")
		qg, rep, speed, err = quantize.Tune(g, build, tgt, "ort")
		bar.Finish()
	} else {
		qg, rep, err = build(nil)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: quantize: %w (nothing written)", in, err)
	}
	sum := &quantSummary{Report: rep, Speed: speed, KeptFloat: keptFloatReasons(rep, q.keepFloat, speed)}
	if flags.Changed("min-sqnr") {
		sum.MinSQNR = &q.minSQNR
	}
	if speed != nil && speed.Slower {
		sum.LeftFloat = true
		sum.Nodes = len(g.Nodes)
		return g, sum, nil
	}
	bar := newBar(cmd, "measuring SQNR", int64(held.Len()), progress.Count)
	errs, err := quantize.Evaluate(g, qg, held, bar.Func())
	bar.Finish()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: quantized model: %w (nothing written)", in, err)
	}
	sum.HeldOut, sum.Outputs, sum.Nodes = held.Len(), quantOutputs(errs), len(qg.Nodes)
	for _, e := range errs {
		if e.SQNR < q.minSQNR {
			sum.print(cmd.ErrOrStderr()) // the numbers behind the refusal
			return nil, nil, fmt.Errorf("%s: output %q has SQNR %.1f dB on the held-out inputs, below --min-sqnr %.1f: nothing written (try --calibration percentile or entropy, --keep-float for the classes that lose most (check --layers names them), or more calibration inputs)",
				in, e.Name, e.SQNR, q.minSQNR)
		}
	}
	return qg, sum, nil
}

func printQuantSpeed(w io.Writer, s *quantize.Speed) {
	for _, st := range s.Steps {
		verdict := "kept quantized"
		if st.Float {
			verdict = "left float (faster that way)"
		}
		fmt.Fprintf(w, "  %s left float, timed in %s: %.3f -> %.3f ms (x%.2f ±%.1f%%): %s\n", st.Class, s.Target,
			st.Comparison.BeforeMs, st.Comparison.AfterMs, st.Comparison.Ratio, st.Comparison.Noise*100, verdict)
	}
	c := s.Overall
	fmt.Fprintf(w, "%s latency, float -> quantized: %.3f -> %.3f ms (paired median ratio x%.2f ±%.1f%%, %.2fx faster)\n",
		s.Target, c.BeforeMs, c.AfterMs, c.Ratio, c.Noise*100, 1/c.Ratio)
}

func printSQNR(w io.Writer, errs []quantOutputJSON, samples int) {
	fmt.Fprintf(w, "quantization error on %d held-out input sets:\n", samples)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  OUTPUT\tSQNR dB\tMAX ABS ERROR\tELEMENTS")
	for _, e := range errs {
		db := "inf (equal)"
		if e.Drawn {
			db = "not measured (random draws)"
		}
		if e.SQNR != nil {
			db = fmt.Sprintf("%.2f", *e.SQNR)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%.4g\t%d\n", e.Name, db, e.MaxAbs, e.Elements)
	}
	tw.Flush()
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
