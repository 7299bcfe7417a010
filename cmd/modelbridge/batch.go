package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/internal/panicerr"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
	"github.com/modelbridge/modelbridge/internal/progress"
	"github.com/modelbridge/modelbridge/pipeline"
)

// batchFlags are the options of `convert --batch`.
type batchFlags struct {
	dir       string
	out       string
	jobs      int
	recursive bool
	asJSON    bool
}

func (b *batchFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&b.dir, "batch", "", "convert every model in this folder (then give no IN OUT; needs --to and --out)")
	f.StringVar(&b.out, "out", "", "with --batch: folder for the converted models (created if missing)")
	f.IntVarP(&b.jobs, "jobs", "j", runtime.GOMAXPROCS(0), "with --batch: conversions run in parallel")
	f.BoolVarP(&b.recursive, "recursive", "r", false, "with --batch: also convert models in subfolders")
	f.BoolVar(&b.asJSON, "json", false, "with --batch: print the summary as JSON")
}

// batchReport is the --json schema of `convert --batch`. Field names are
// stable (docs/json.md).
type batchReport struct {
	Dir       string      `json:"dir"`
	To        string      `json:"to"`
	Out       string      `json:"out"`
	Jobs      int         `json:"jobs"`
	Files     []batchFile `json:"files"`
	Converted int         `json:"converted"`
	Failed    int         `json:"failed"`
	OK        bool        `json:"ok"`
	Seconds   float64     `json:"seconds"`
}

// batchFile is the outcome of one model.
type batchFile struct {
	File   string `json:"file"`
	Format string `json:"format,omitempty"`
	Status string `json:"status"` // "ok" or "failed"
	Output string `json:"output,omitempty"`
	Nodes  int    `json:"nodes,omitempty"`
	Bytes  int64  `json:"bytes,omitempty"`
	// WeightsOnly is set when the output holds only the weights (a torch
	// state dict of a model without nodes).
	WeightsOnly bool `json:"weights_only,omitempty"`
	// Steps says what was done besides converting ("optimized 12 -> 9
	// nodes").
	Steps   string  `json:"steps,omitempty"`
	Seconds float64 `json:"seconds"`
	Error   string  `json:"error,omitempty"`
}

const (
	statusOK     = "ok"
	statusFailed = "failed"
)

func runBatch(cmd *cobra.Command, b *batchFlags, rf *readFlags, to string, wo formats.WriteOptions, steps batchSteps) error {
	if to == "" {
		return usageErrorf("--batch needs --to FORMAT (one of %s)", joinNames(formats.ExporterNames()))
	}
	if b.out == "" {
		return usageErrorf("--batch needs --out FOLDER for the converted models")
	}
	if b.jobs < 1 {
		return usageErrorf("-j %d: need at least one job", b.jobs)
	}
	// Folders are compared by identity: a symlink to the input folder is
	// the input folder.
	if pipeline.SameOrInside(b.out, b.dir) && (b.recursive || pipeline.SameOrInside(b.dir, b.out)) {
		return usageErrorf("--out %s is inside the input folder %s: its outputs would be read as inputs next time; choose another folder", b.out, b.dir)
	}
	exp, err := formats.FindExporter("", to)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if err := checkWriteFlags(exp, b.out, wo.Opset, wo.ExternalData); err != nil {
		return err
	}
	if steps.kernelLayout != "" {
		if err := pipeline.CheckKernelLayout(exp, steps.kernelLayout); err != nil {
			return err
		}
	}
	if _, err := rf.options(); err != nil {
		return err
	}
	if st, err := os.Stat(b.dir); err != nil {
		return usageErrorf("--batch %s: %v", b.dir, err)
	} else if !st.IsDir() {
		return usageErrorf("--batch %s is a file; give a folder (or convert IN OUT for one model)", b.dir)
	}
	models, err := pipeline.FindModels(b.dir, b.recursive)
	if err != nil {
		return fmt.Errorf("--batch: %w", err)
	}
	if len(models) == 0 {
		hint := ""
		if !b.recursive {
			hint = "; add -r to look in subfolders"
		}
		return &exitError{code: exitFailure, err: fmt.Errorf("%s: no model files found (formats: %s)%s", b.dir, joinNames(formats.ImporterNames()), hint)}
	}
	if err := atomicfile.ParentExists(b.out); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := os.MkdirAll(b.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	jobs := pipeline.PlanOutputs(b.dir, b.out, models, exp.Extensions[0])
	inputs := pipeline.StatFiles(models)

	rep := batchReport{Dir: b.dir, To: exp.Name, Out: b.out, Jobs: b.jobs, Files: make([]batchFile, len(jobs))}
	bar := newBar(cmd, "converting", int64(len(jobs)), progress.Count)
	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(b.jobs, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Faults on a mapped input become that file's error.
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			for i := range work {
				rep.Files[i] = convertOne(rf, exp, jobs[i], inputs, wo, steps)
				bar.Add(1)
			}
		}()
	}
	for i := range jobs {
		work <- i
	}
	close(work)
	wg.Wait()
	bar.Finish()
	rep.Seconds = time.Since(start).Seconds()
	for _, f := range rep.Files {
		if f.Status == statusOK {
			rep.Converted++
		} else {
			rep.Failed++
		}
	}
	rep.OK = rep.Failed == 0

	out := cmd.OutOrStdout()
	if b.asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printBatch(out, rep)
	}
	if !rep.OK {
		// The table already names each failure; the exit status is enough.
		return &exitError{code: exitFailure, err: fmt.Errorf("%d of %d conversions failed", rep.Failed, len(rep.Files))}
	}
	return nil
}

// convertOne converts a single model. A panic in an importer or exporter
// is reported as that file's failure instead of ending the whole batch.
func convertOne(rf *readFlags, exp *formats.Exporter, job pipeline.Job, allModels pipeline.FileSet, wo formats.WriteOptions, steps batchSteps) (res batchFile) {
	start := time.Now()
	res = batchFile{File: job.In, Output: job.Out, Status: statusFailed}
	defer func() {
		if r := recover(); r != nil {
			res.Status = statusFailed
			res.Error = panicerr.New(job.In, r).Error()
		}
		res.Seconds = time.Since(start).Seconds()
		if res.Status != statusOK {
			res.Output = ""
		}
	}()
	if formats.SameFile(job.In, job.Out) {
		res.Error = "the output would overwrite the input; choose another --out"
		return res
	}
	g, imp, err := rf.load(job.In)
	if imp != nil {
		res.Format = imp.Name
	}
	if err != nil {
		res.Error = err.Error()
		return res
	}
	defer g.Close()
	if err := pipeline.RequireModel(job.In, g, true); err != nil {
		res.Error = err.Error()
		return res
	}
	if exp.Folder {
		// A folder exporter (PyTorch) writes a weights file for a path
		// with its extension and a module folder (model.py, weights.pt,
		// README) otherwise: a graph gets its folder, so that its
		// computation is not dropped.
		if len(g.Nodes) > 0 {
			job.Out = strings.TrimSuffix(job.Out, filepath.Ext(job.Out))
			res.Output = job.Out
		}
	}
	if err := pipeline.RefuseGraphFromWeights(job.In, g, exp, job.Out); err != nil {
		res.Error = err.Error()
		return res
	}
	res.WeightsOnly = !pipeline.WritesGraph(exp, job.Out) || pipeline.IsWeightsOnly(g)
	// Every file the batch reads (each model and the parts its importer
	// read besides, such as ONNX external data) is compared by identity
	// with every file this job writes.
	outputs := exp.Outputs(g, job.Out)
	if err := pipeline.RefuseOverwriting(outputs, pipeline.InputParts(job.In, g), "the input "+job.In); err != nil {
		res.Error = err.Error()
		return res
	}
	if other := allModels.Find(outputs); other != "" {
		res.Error = fmt.Sprintf("the output would overwrite %s, another input of the batch; choose another --out", other)
		return res
	}
	if err := os.MkdirAll(filepath.Dir(job.Out), 0o755); err != nil {
		res.Error = err.Error()
		return res
	}
	g, res.Steps, err = steps.apply(g, exp)
	if err != nil {
		res.Error = fmt.Sprintf("%s: %v", job.In, err)
		return res
	}
	if err := pipeline.Write(g, exp, job.Out, wo); err != nil {
		res.Error = err.Error()
		return res
	}
	res.Status = statusOK
	res.Nodes = len(g.Nodes)
	res.Bytes = outputBytes(job.Out)
	return res
}

// outputBytes is the size of an output file, or of the files in an output
// folder.
func outputBytes(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	if !st.IsDir() {
		return st.Size()
	}
	var n int64
	entries, _ := os.ReadDir(path)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && !e.IsDir() {
			n += info.Size()
		}
	}
	return n
}

// oneLine is the first line of an error message, for the summary table.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func printBatch(w io.Writer, r batchReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tSTATUS\tOUTPUT\tDETAIL")
	for _, f := range r.Files {
		if f.Status == statusOK && f.WeightsOnly {
			what := "weights only"
			if f.Nodes > 0 {
				what = fmt.Sprintf("weights only; %d-node %s", f.Nodes, weightsOnlyHint)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s, %s, %s\n", f.File, f.Status, f.Output, f.Format, what, humanBytes(f.Bytes))
		} else if f.Status == statusOK && f.Steps != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s, %s, %s\n", f.File, f.Status, f.Output, f.Format, f.Steps, humanBytes(f.Bytes))
		} else if f.Status == statusOK {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s, %d nodes, %s\n", f.File, f.Status, f.Output, f.Format, f.Nodes, humanBytes(f.Bytes))
		} else {
			fmt.Fprintf(tw, "%s\t%s\t-\t%s\n", f.File, f.Status, strings.TrimPrefix(oneLine(f.Error), f.File+": "))
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "%d converted, %d failed, %d jobs, %.1fs\n", r.Converted, r.Failed, r.Jobs, r.Seconds)
}
