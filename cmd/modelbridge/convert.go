package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/progress"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/optimize"
	"github.com/modelbridge/modelbridge/pipeline"
)

func newConvertCmd() *cobra.Command {
	var rf readFlags
	var to string
	var opset int
	var inf inputFlags // input files, read here only for their shapes
	var external, optimizeToo, noVerify, verbose bool
	var bf batchFlags
	var weightsPath string
	var allowPartial bool
	var kernelLayout string
	var hf fp16Flags
	var qf quantFlags
	var ioLayout string
	cmd := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Convert a model to another format (or re-write it at another opset)",
		Long: `convert reads IN, validates it in canonical form, and writes OUT.
Formats come from the file contents and extensions, or from --from/--to.
The output appears only when the whole conversion succeeded; an existing
file at OUT is left untouched on failure, and IN is never overwritten.`,
		Example: `  modelbridge convert testdata/tiny_convnet.onnx /tmp/tiny_convnet.onnx --opset 11
  modelbridge convert big.onnx out.onnx --external-data
  modelbridge convert --batch models/ --to onnx --out converted/ -j 4`,
		Args: func(cmd *cobra.Command, args []string) error {
			if bf.dir != "" {
				return exactArgs(0)(cmd, args)
			}
			return exactArgs(2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			paceGCForConversion()
			if err := hf.check(bf.dir != ""); err != nil {
				return err
			}
			if bf.dir != "" {
				if err := refuseBatchFlags(cmd); err != nil {
					return err
				}
				steps := batchSteps{optimize: optimizeToo, verify: !noVerify, inputShapes: rf.inputShapes, kernelLayout: kernelLayout}
				return runBatch(cmd, &bf, &rf, to, formats.WriteOptions{Opset: opset, ExternalData: external}, steps)
			}
			in, out := args[0], args[1]
			if formats.SameFile(in, out) {
				return usageErrorf("refusing to overwrite the input %s; choose another output path", in)
			}
			exp, err := formats.FindExporter(out, to)
			if err != nil {
				return usageErrorf("%v", err)
			}
			if err := checkWriteFlags(exp, out, opset, external); err != nil {
				return err
			}
			if err := checkLayoutFlags(exp, ioLayout, &hf); err != nil {
				return err
			}
			stage := newStageBar(cmd, "converting "+in)
			defer stage.Finish()
			g, err := inf.loadModel(&rf, in)
			if err != nil {
				return err
			}
			defer g.Close()
			if err := pipeline.RequireModel(in, g, true); err != nil {
				return err
			}
			// Every exporter refuses names that are not UTF-8; saying so
			// here names the model that holds them.
			if err := formats.CheckUTF8Names(g); err != nil {
				return fmt.Errorf("%s: %w", in, err)
			}
			if err := pipeline.RefuseGraphFromWeights(in, g, exp, out); err != nil {
				return err
			}
			stage.Finish() // the notes start on a clean line
			writeNotes(cmd.ErrOrStderr(), in, g.Meta.Notes, verbose)
			var w *canon.Graph
			if weightsPath != "" {
				if w, err = pipeline.LoadWeights(weightsPath, rf.key); err != nil {
					return fmt.Errorf("--weights: %w", err)
				}
				defer w.Close()
			}
			if err := pipeline.RefuseInputOverwrite(in, out, exp, g, weightsPath, w); err != nil {
				return err
			}
			var obar *progress.Bar
			// TFLite stores float16 weights behind DEQUANTIZE and computes
			// in float32, as its own converter does: the exporter does it.
			halfWeights := hf.on && exp.Name == "tflite"
			plan := pipeline.Plan{
				Weights: w, AllowPartial: allowPartial, KernelLayout: kernelLayout, Float16: hf.options(),
				Started: func(s pipeline.Step) {
					if s == pipeline.StepOptimize {
						obar = newStageBar(cmd, "optimizing "+in)
					}
				},
				Finished: func(s pipeline.Step, rep *pipeline.Report, err error) {
					if s == pipeline.StepOptimize {
						obar.Finish()
					}
					if err != nil {
						return
					}
					switch s {
					case pipeline.StepBind:
						rep.Bind.Write(cmd.OutOrStdout())
					case pipeline.StepOptimize:
						r := rep.Optimize
						fmt.Fprintf(cmd.OutOrStdout(), "optimized: %d -> %d nodes, modelled %.3f -> %.3f ms\n",
							r.NodesBefore, r.NodesAfter, r.Before.Cost()*1e3, r.After.Cost()*1e3)
						if len(rep.Notes) > 0 {
							writeNotes(cmd.OutOrStdout(), in, rep.Notes, verbose)
						}
					case pipeline.StepFloat16:
						printFloat16(cmd, rep.Float16)
					}
				},
			}
			if halfWeights {
				plan.Float16 = nil
			}
			if optimizeToo {
				shapes, _ := tensorfile.ParseShapes(rf.inputShapes)
				plan.Optimize = &optimize.Options{Verify: !noVerify, InputShapes: shapes}
			}
			// The result shares g's weight data; g stays open until the
			// write is done.
			if g, _, err = plan.Apply(g, exp); err != nil {
				return convertStepError(err, in, weightsPath)
			}
			var quant *quantSummary
			if g, quant, err = qf.apply(cmd, in, g, exp.Name); err != nil {
				return err
			}
			if quant != nil {
				quant.print(cmd.OutOrStdout())
			}
			// The bar names every file written (an MXNet symbol and its
			// params: the bytes counted are the params').
			bar := newBar(cmd, "writing "+barFiles(exp.Outputs(g, out)), 0, progress.Bytes)
			wopts := formats.WriteOptions{Opset: opset, ExternalData: external, Progress: bar.Func(), IOLayout: ioLayout, Float16Weights: halfWeights,
				Notes: cmd.ErrOrStderr()}
			if verbose || opset == formats.OpsetAuto || exp.Name == "tflite" { // auto says which opset it chose
				wopts.Verbose = cmd.OutOrStdout()
			}
			err = pipeline.Write(g, exp, out, wopts)
			bar.Finish()
			if err != nil {
				return err
			}
			if size, err := outputSize(out); err == nil {
				files, total := writtenFiles(g, exp, out)
				if total > 0 {
					size = total
				}
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s, %s, %s)\n", files, exp.Name, outputWhat(g, exp, out), humanBytes(size))
			}
			if size, err := outputSize(out + ".data"); err == nil && external {
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (external weights, %s)\n", out+".data", humanBytes(size))
			}
			return nil
		},
	}
	rf.register(cmd)
	inf.registerFiles(cmd)
	bf.register(cmd)
	hf.register(cmd)
	qf.register(cmd)
	cmd.Flags().StringVar(&weightsPath, "weights", "", "replace IN's initializers by name with the tensors of this file (a state dict .pt, .safetensors, ...)")
	cmd.Flags().BoolVar(&allowPartial, "allow-partial", false, "with --weights: bind the names that match even if some are missing, extra or mismatched")
	cmd.Flags().StringVar(&kernelLayout, "kernel-layout", "", "write convolution kernels in this layout (e.g. HWIO; .safetensors only, recorded in its metadata)")
	cmd.Flags().StringVar(&to, "to", "", "output format (default: from OUT's extension; one of "+joinNames(formats.ExporterNames())+")")
	cmd.Flags().Var((*opsetFlag)(&opset), "opset", opsetUsage())
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "describe what the exporter decided (e.g. how weights were renamed)")
	cmd.Flags().BoolVar(&optimizeToo, "optimize", false, "run the default optimizer pipeline before writing (verified unless --no-verify)")
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "with --optimize, skip checking the result against the original")
	cmd.Flags().StringVar(&ioLayout, "io-layout", "", "layout of 4-D inputs and outputs in the written model: nchw (the model's own; .tflite adds a TRANSPOSE at each end) or nhwc (.tflite: no TRANSPOSE at all; .onnx: one Transpose at each 4-D input and output)")
	cmd.Flags().BoolVar(&external, "external-data", false, "write ONNX weights to OUT.data beside the model (automatic above 2 GiB)")
	return cmd
}

// outputSize is the size of a written file, or of the files in a written
// folder (the torch exporter writes model.py, weights.pt and README).
func outputSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		if err != nil {
			return 0, err
		}
		return st.Size(), nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			total += info.Size()
		}
	}
	return total, nil
}

// checkWriteFlags refuses --opset and --external-data for an exporter that
// does not declare them, and an opset outside the range it writes.
func checkWriteFlags(exp *formats.Exporter, out string, opset int, external bool) error {
	if (opset != 0 && !exp.Opsets.Has()) || (external && !exp.ExternalData) {
		return usageErrorf("--opset and --external-data apply to ONNX output; %s is written as %s", out, exp.Name)
	}
	if r := exp.Opsets; opset != 0 && opset != formats.OpsetAuto && (opset < r.Min || opset > r.Max) {
		return usageErrorf("--opset %d: modelbridge writes %s opsets %d to %d", opset, exp.Name, r.Min, r.Max)
	}
	return nil
}

// opsetUsage describes --opset from the exporters' declared ranges.
func opsetUsage() string {
	for _, e := range formats.Exporters() {
		if r := e.Opsets; r.Has() {
			return fmt.Sprintf("%s opset to write (%d to %d; default %d, or the lowest newer one that expresses the model, said on stderr; auto: the lowest that expresses the model)", e.Name, r.Min, r.Max, r.Default)
		}
	}
	return "opset to write"
}

// opsetFlag is --opset: a number, or "auto" (formats.OpsetAuto).
type opsetFlag int

func (f *opsetFlag) String() string {
	switch *f {
	case 0:
		return ""
	case formats.OpsetAuto:
		return "auto"
	}
	return strconv.Itoa(int(*f))
}

func (f *opsetFlag) Set(s string) error {
	if s == "auto" {
		*f = formats.OpsetAuto
		return nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("%q is not an opset number or auto", s)
	}
	*f = opsetFlag(v)
	return nil
}

func (f *opsetFlag) Type() string { return "opset" }

// barFiles names the files a write makes: the first as given, the others
// by base name (they sit beside it).
func barFiles(files []string) string {
	names := []string{files[0]}
	for _, f := range files[1:] {
		names = append(names, filepath.Base(f))
	}
	return strings.Join(names, " + ")
}

// convertStepError words a failed step of convert's pipeline: what failed
// (the weights file, the model, the flag) and that nothing was written.
func convertStepError(err error, in, weightsPath string) error {
	var se *pipeline.StepError
	if !errors.As(err, &se) {
		return err
	}
	switch se.Step {
	case pipeline.StepBind:
		return fmt.Errorf("%s: %w (nothing written)", weightsPath, se.Err)
	case pipeline.StepOptimize:
		return fmt.Errorf("%s: %w (nothing written)", in, se.Err)
	case pipeline.StepFloat16:
		return fmt.Errorf("--fp16: %w (nothing written)", se.Err)
	}
	return se.Err
}
