package optimize

import (
	"errors"
	"fmt"
	"time"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
)

// Options tunes Optimize. The zero value runs the default pipeline without
// search and without verification; callers that write results should set
// Verify (the CLI does by default).
type Options struct {
	// Passes names the pipeline passes in order; nil means Passes().
	Passes []string
	// Search runs the cost-based search after the pipeline; its result,
	// like every growth rewrite, is kept only when Target measures it
	// faster (see growthStage).
	Search bool
	// AllowGrowth tries the growth rewrites (regrouping, zero-padded
	// merging) one by one, each kept only when Target measures the whole
	// graph faster.
	AllowGrowth bool
	// Target times growth candidates (default InterpTarget).
	Target Target
	// MaxMeasurements bounds the target timings (default 8).
	MaxMeasurements int
	// GrowthProgress, when set, is called before and after each timing
	// with the timings done and MaxMeasurements.
	GrowthProgress func(done, total int64)
	Alpha          float64 // search: default 1.05
	Budget         int     // search: expansions, default 100
	// Progress, when set, follows the search: called per expansion with
	// the expansions done and the budget (see SearchOptions.Progress).
	Progress func(done, total int64)
	// Verify compares the result with the original through the
	// interpreter; on a mismatch the pipeline is replayed pass by pass to
	// name the pass that broke the model.
	Verify  bool
	Samples int     // random input sets (default 2)
	Seed    uint64  // default 1
	RTol    float64 // default 1e-4
	ATol    float64 // default 1e-5
	// InputShapes sets unknown input dimensions for verification.
	InputShapes map[string][]int64
	// MaxIterations bounds the pipeline's rounds (default 10).
	MaxIterations int
}

func (o *Options) defaults() {
	if o.Samples <= 0 {
		o.Samples = 2
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.RTol <= 0 {
		o.RTol = compare.DefaultRTol
	}
	if o.ATol <= 0 {
		o.ATol = compare.DefaultATol
	}
	if o.Alpha <= 0 {
		o.Alpha = 1.05
	}
	if o.MaxMeasurements <= 0 {
		o.MaxMeasurements = 8
	}
}

// Report describes an optimization.
type Report struct {
	Before      CostReport    `json:"before"`
	After       CostReport    `json:"after"`
	NodesBefore int           `json:"nodes_before"`
	NodesAfter  int           `json:"nodes_after"`
	Pipeline    PipelineStats `json:"pipeline"`
	Search      *SearchStats  `json:"search,omitempty"`
	Growth      *GrowthStats  `json:"growth,omitempty"`
	// ParamsBefore and ParamsAfter count weight elements.
	ParamsBefore int64         `json:"params_before"`
	ParamsAfter  int64         `json:"params_after"`
	Verified     bool          `json:"verified"`
	Elapsed      time.Duration `json:"elapsed_ns"`
}

// Optimize returns an optimized copy of g (g itself is not modified; the
// copy shares g's weight data, so g must stay open while it is used).
func Optimize(g *canon.Graph, opts Options) (*canon.Graph, Report, error) {
	t0 := time.Now()
	opts.defaults()
	if g == nil {
		return nil, Report{}, fmt.Errorf("optimize: nil graph")
	}
	passes, err := Pipeline(opts.Passes)
	if err != nil {
		return nil, Report{}, err
	}
	return optimizeWith(g, passes, opts, t0)
}

// optimizeWith is Optimize with an explicit pass list.
func optimizeWith(g *canon.Graph, passes []Pass, opts Options, t0 time.Time) (*canon.Graph, Report, error) {
	var rep Report
	var err error
	orig := Clone(g)
	if rep.Before, err = GraphCost(orig); err != nil {
		return nil, rep, err
	}
	rep.NodesBefore = len(orig.Nodes)
	opt := Clone(g)
	rep.Pipeline, err = RunPipeline(opt, passes, PipelineOptions{MaxIterations: opts.MaxIterations})
	if err != nil {
		return nil, rep, err
	}
	rep.ParamsBefore = ParamCount(orig)
	if opts.Search || opts.AllowGrowth {
		var proposal *canon.Graph
		if opts.Search {
			res, st, err := Search(opt, SearchOptions{Alpha: opts.Alpha, Budget: opts.Budget, Progress: opts.Progress})
			if err != nil {
				return nil, rep, err
			}
			if err := res.Validate(); err != nil {
				return nil, rep, fmt.Errorf("search produced an invalid graph: %w", err)
			}
			rep.Search = &st
			if len(st.Applied) > 0 {
				proposal = res
			}
		}
		var applied []string
		if rep.Search != nil {
			applied = rep.Search.Applied
		}
		res, gst, err := growthStage(opt, opts, proposal, applied)
		if err != nil {
			return nil, rep, err
		}
		rep.Growth = &gst
		opt = res
	}
	rep.ParamsAfter = ParamCount(opt)
	if rep.After, err = GraphCost(opt); err != nil {
		return nil, rep, err
	}
	rep.NodesAfter = len(opt.Nodes)
	if opts.Verify {
		if err := VerifyShapes(orig, opt, opts.InputShapes, opts.Seed, opts.Samples, opts.RTol, opts.ATol); err != nil {
			var ue *UnverifiableError
			if errors.As(err, &ue) {
				return nil, rep, fmt.Errorf("cannot verify the optimized model: %w", err)
			}
			return nil, rep, blame(g, passes, opts, err)
		}
		rep.Verified = true
	}
	rep.Elapsed = time.Since(t0)
	return opt, rep, nil
}

// blame replays the pipeline one pass run at a time, verifying after each
// change, and names the first pass whose result differs from the original.
func blame(g *canon.Graph, passes []Pass, opts Options, verr error) error {
	orig := Clone(g)
	work := Clone(g)
	var culprit string
	var cerr error
	_, _ = RunPipeline(work, passes, PipelineOptions{MaxIterations: opts.MaxIterations, AfterPass: func(name string, cur *canon.Graph) {
		if culprit != "" {
			return
		}
		if err := VerifyShapes(orig, cur, opts.InputShapes, opts.Seed, opts.Samples, opts.RTol, opts.ATol); err != nil {
			culprit, cerr = name, err
		}
	}})
	if culprit != "" {
		return fmt.Errorf("optimized model does not match the original after pass %s: %w", culprit, cerr)
	}
	if opts.Search || opts.AllowGrowth {
		return fmt.Errorf("optimized model does not match the original after the growth rewrites (every pipeline pass verified): %w", verr)
	}
	return fmt.Errorf("optimized model does not match the original: %w", verr)
}
