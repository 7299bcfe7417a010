package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/progress"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/optimize"
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
			if err := requireModel(in, g, true); err != nil {
				return err
			}
			// Every exporter refuses names that are not UTF-8; saying so
			// here names the model that holds them.
			if err := formats.CheckUTF8Names(g); err != nil {
				return fmt.Errorf("%s: %w", in, err)
			}
			if err := refuseGraphFromWeights(in, g, exp, out); err != nil {
				return err
			}
			stage.Finish() // the notes start on a clean line
			writeNotes(cmd.ErrOrStderr(), in, g.Meta.Notes, verbose)
			var w *canon.Graph
			if weightsPath != "" {
				if w, err = loadWeights(weightsPath, rf.key); err != nil {
					return err
				}
				defer w.Close()
			}
			if err := refuseInputOverwrite(in, out, exp, g, weightsPath, w); err != nil {
				return err
			}
			if w != nil {
				rep, err := bindWeights(g, w, allowPartial)
				if err != nil {
					return fmt.Errorf("%s: %w (nothing written)", weightsPath, err)
				}
				rep.write(cmd.OutOrStdout())
			}
			if optimizeToo {
				shapes, _ := tensorfile.ParseShapes(rf.inputShapes)
				obar := newStageBar(cmd, "optimizing "+in)
				opt, rep, err := optimize.Optimize(g, optimize.Options{Verify: !noVerify, InputShapes: shapes})
				obar.Finish()
				if err != nil {
					return fmt.Errorf("%s: %w (nothing written)", in, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "optimized: %d -> %d nodes, modelled %.3f -> %.3f ms\n",
					rep.NodesBefore, rep.NodesAfter, rep.Before.Cost()*1e3, rep.After.Cost()*1e3)
				if n := len(g.Meta.Notes); len(opt.Meta.Notes) > n {
					writeNotes(cmd.OutOrStdout(), in, opt.Meta.Notes[n:], verbose)
				}
				// opt shares g's weight data; g stays open until the write is done.
				g = opt
			}
			// TFLite stores float16 weights behind DEQUANTIZE and computes
			// in float32, as its own converter does: the exporter does it.
			halfWeights := hf.on && exp.Name == "tflite"
			if !halfWeights {
				if g, err = hf.apply(cmd, g); err != nil {
					return err
				}
			}
			if kernelLayout != "" {
				if err := applyKernelLayout(g, exp, kernelLayout); err != nil {
					return err
				}
			}
			// The bar names every file written (an MXNet symbol and its
			// params: the bytes counted are the params').
			if exp.Name == "onnx" {
				// The ONNX exporter infers types on its own copy of the
				// graph: the reader's table (an entry per value) would
				// only double what a graph of millions of nodes holds.
				g.Values = nil
				runtime.GC() // and the next collection is paced from what is left
			}
			bar := newBar(cmd, "writing "+barFiles(exp.Outputs(g, out)), 0, progress.Bytes)
			wopts := formats.WriteOptions{Opset: opset, ExternalData: external, Progress: bar.Func(), IOLayout: ioLayout, Float16Weights: halfWeights}
			if verbose || opset == formats.OpsetAuto || exp.Name == "tflite" { // auto says which opset it chose
				wopts.Verbose = cmd.OutOrStdout()
			}
			err = exp.Write(g, out, wopts)
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
	cmd.Flags().StringVar(&weightsPath, "weights", "", "replace IN's initializers by name with the tensors of this file (a state dict .pt, .safetensors, ...)")
	cmd.Flags().BoolVar(&allowPartial, "allow-partial", false, "with --weights: bind the names that match even if some are missing, extra or mismatched")
	cmd.Flags().StringVar(&kernelLayout, "kernel-layout", "", "write convolution kernels in this layout (e.g. HWIO; .safetensors only, recorded in its metadata)")
	cmd.Flags().StringVar(&to, "to", "", "output format (default: from OUT's extension; one of "+joinNames(formats.ExporterNames())+")")
	cmd.Flags().Var((*opsetFlag)(&opset), "opset", opsetUsage())
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "describe what the exporter decided (e.g. how weights were renamed)")
	cmd.Flags().BoolVar(&optimizeToo, "optimize", false, "run the default optimizer pipeline before writing (verified unless --no-verify)")
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "with --optimize, skip checking the result against the original")
	cmd.Flags().StringVar(&ioLayout, "io-layout", "", "layout of 4-D inputs and outputs in the written model: nchw (the model's own; .tflite adds a TRANSPOSE at each end) or nhwc (.tflite only: no TRANSPOSE at all)")
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
			return fmt.Sprintf("%s opset to write (%d to %d; default %d; auto: the lowest that expresses the model)", e.Name, r.Min, r.Max, r.Default)
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
