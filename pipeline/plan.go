package pipeline

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/optimize"
)

// Plan is the steps between reading a model and writing it, in the order
// Apply runs them: bind weights (shapes are inferred again), optimize and
// verify, convert to float16, lay out kernels. A zero Plan changes nothing.
type Plan struct {
	// Weights, when set, replace the model's initializers by name (see
	// BindWeights); AllowPartial binds the names that match.
	Weights      *canon.Graph
	AllowPartial bool
	// Optimize, when set, runs the optimizer with these options (the
	// zero options: the default pass pipeline, unverified; Verify checks
	// the result against the original in the interpreter).
	Optimize *optimize.Options
	// Float16, when set, stores weights and computes in float16.
	Float16 *optimize.Float16Options
	// KernelLayout, when set, writes convolution kernels in that layout
	// (an exporter that records layouts only; see CheckKernelLayout).
	KernelLayout string
	// Started and Finished, when set, are told as each step that runs
	// starts and ends (err is its failure; the report holds what the
	// steps so far did), so that a command can draw progress and print
	// each step's result as it comes.
	Started  func(s Step)
	Finished func(s Step, rep *Report, err error)
}

// Report is what Apply did.
type Report struct {
	Bind     *BindReport
	Optimize *optimize.Report
	Float16  *optimize.Float16Report
	// Notes are the notes the steps added to the graph's metadata (a
	// shared weight copied by a pass).
	Notes []string
}

// Apply runs the plan on g and returns the graph to write: g itself, or a
// new graph that shares g's weight data (keep g, and Weights, open until
// the write is done). A failing step returns a *StepError; nothing is
// changed by a failed bind.
func (p Plan) Apply(g *canon.Graph, exp *formats.Exporter) (*canon.Graph, *Report, error) {
	rep := &Report{}
	notes := len(g.Meta.Notes)
	run := func(s Step, f func() error) error {
		if p.Started != nil {
			p.Started(s)
		}
		err := f()
		if p.Finished != nil {
			p.Finished(s, rep, err)
		}
		if err != nil {
			return &StepError{Step: s, Err: err}
		}
		return nil
	}
	if p.Weights != nil {
		if err := run(StepBind, func() error {
			var err error
			rep.Bind, err = BindWeights(g, p.Weights, p.AllowPartial)
			return err
		}); err != nil {
			return nil, rep, err
		}
	}
	if p.Optimize != nil {
		if err := run(StepOptimize, func() error {
			opt, r, err := optimize.Optimize(g, *p.Optimize)
			if err != nil {
				return err
			}
			rep.Optimize = &r
			if len(opt.Meta.Notes) > notes {
				rep.Notes = append(rep.Notes, opt.Meta.Notes[notes:]...)
			}
			g = opt
			return nil
		}); err != nil {
			return nil, rep, err
		}
	}
	if p.Float16 != nil {
		if err := run(StepFloat16, func() error {
			h, r, err := optimize.ToFloat16(g, *p.Float16)
			if err != nil {
				return err
			}
			rep.Float16 = &r
			g = h
			return nil
		}); err != nil {
			return nil, rep, err
		}
	}
	if p.KernelLayout != "" {
		if err := run(StepKernelLayout, func() error {
			return ApplyKernelLayout(g, exp, p.KernelLayout)
		}); err != nil {
			return nil, rep, err
		}
	}
	return g, rep, nil
}
