package quantize

import (
	"fmt"
	"slices"
	"sort"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/optimize"
)

// Timer compares two graphs' latency in a runtime (ortmeasure.Target).
type Timer interface {
	Compare(before, after *canon.Graph) (optimize.Comparison, error)
}

// Builder makes the quantized graph with some node classes left float.
type Builder func(keepFloat []string) (*canon.Graph, *Report, error)

// SpeedStep is one timed choice: the quantized graph with Class also left
// float, against the best graph so far.
type SpeedStep struct {
	Class      string              `json:"class"`
	Comparison optimize.Comparison `json:"comparison"`
	// Float: the class runs faster float, so it was left float.
	Float bool `json:"left_float"`
}

// Speed is what the runtime measured.
type Speed struct {
	Target string      `json:"target"`
	Steps  []SpeedStep `json:"steps"`
	// Overall is the float model against the chosen quantized one.
	Overall optimize.Comparison `json:"overall"`
	// Slower: the quantized model is not faster than the float one.
	Slower bool `json:"slower"`
}

// Tune times the quantized graph against the float one and, class by
// class (most numerous first), leaves a class float when the runtime
// runs the graph faster that way.
func Tune(float *canon.Graph, build Builder, t Timer, name string) (*canon.Graph, *Report, *Speed, error) {
	best, rep, err := build(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	sp := &Speed{Target: name}
	classes := make([]string, 0, len(rep.Quantized))
	for c := range rep.Quantized {
		if c != "reshape" { // moves values; never timed on its own
			classes = append(classes, c)
		}
	}
	sort.Slice(classes, func(i, j int) bool {
		a, b := rep.Quantized[classes[i]], rep.Quantized[classes[j]]
		return a > b || a == b && classes[i] < classes[j]
	})
	var keep []string
	if len(classes) > 1 {
		for _, c := range classes {
			cand, crep, err := build(append(slices.Clone(keep), c))
			if err != nil {
				return nil, nil, nil, err
			}
			cmp, err := t.Compare(best, cand)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("timing %s left float: %w", c, err)
			}
			step := SpeedStep{Class: c, Comparison: cmp, Float: cmp.Faster}
			sp.Steps = append(sp.Steps, step)
			if cmp.Faster {
				keep = append(keep, c)
				best, rep = cand, crep
			}
		}
	}
	overall, err := t.Compare(float, best)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("timing the quantized model: %w", err)
	}
	sp.Overall = overall
	sp.Slower = !(overall.Ratio < 1)
	return best, rep, sp, nil
}
