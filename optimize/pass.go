// Package optimize rewrites canonical graphs into cheaper equivalent ones:
// an ordered table of named passes run to a fixpoint with validation after
// each, a cost model (FLOPs, bytes moved, kernel launches), a cost-based
// backtracking search over graph substitutions in the spirit of TASO, and
// verification of every result against the original with the interpreter.
//
// Every pass is exact: it changes how a result is computed, never what is
// computed (beyond float32 rounding of folded weights, which are computed in
// float64 and rounded once). Graph outputs keep their names, order and count.
package optimize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// Pass is one named graph rewrite. Run reports whether it changed g.
type Pass struct {
	Name string
	Doc  string
	Run  func(g *canon.Graph) (changed bool, err error)
}

// Passes lists every pass in the default pipeline order: cleanups first so
// that folds see through Identity/Dropout, constant folding before the
// pattern passes that need constant weights, dead code last. None of them
// adds FLOPs, parameters or bytes: rewrites that trade size or arithmetic
// for fewer launches are GrowthRewrites, run only when asked and kept only
// when the target measures them faster.
func Passes() []Pass {
	return []Pass{
		{Name: "inline_constant_branches", Doc: "replace an If whose condition is a constant by the nodes of the branch it takes", Run: inlineConstantBranches},
		{Name: "unroll_loops", Doc: "replace a Loop that always runs a constant 1 to 8 times (no run-time condition can stop it early) by that many copies of its body, carried values threaded and scan outputs stacked with Unsqueeze and Concat, and a Scan over inputs of a static length of 1 to 8 by one copy per slice (Gather); at most 128 copied nodes", Run: unrollLoops},
		{Name: "eliminate_identity", Doc: "remove Identity and inference-mode Dropout nodes", Run: eliminateIdentity},
		{Name: "eliminate_noop", Doc: "remove views (Reshape, Flatten, Squeeze, Unsqueeze, Identity) to the same static shape, identity Transpose, zero Pad, full Slice, one-input Concat, a Concat of a whole Split along its axis, Cast to the same type and Resize to the same size; cancel a view of a view back to the original shape (Unsqueeze+Squeeze) and a widening Cast with the Cast back, a Split of a Concat into its parts; compose consecutive Transposes and make a Reshape of a view read the view's input", Run: eliminateNoop},
		{Name: "fuse_pad_conv", Doc: "fold a zero constant Pad of the spatial axes into the pads of the Convs that read it", Run: fusePadConv},
		{Name: "fold_constants", Doc: "evaluate nodes whose inputs are all constant (including Shape of a static shape and the shape arithmetic after it) and store the results as initializers, unless the result is bigger than the constants it reads (an Expand or Tile of a constant; small integer shape tensors excepted), so the model never grows", Run: foldConstants},
		{Name: "fold_bn", Doc: "fold BatchNormalization into the preceding Conv, ConvTranspose (group by group), Linear, or MatMul with a constant weight", Run: foldBN},
		{Name: "fuse_bias_add", Doc: "fold an Add (or Sub) of a per-output-channel constant into the bias of the preceding Conv, ConvTranspose, Linear or constant-weight MatMul", Run: fuseBiasAdd},
		{Name: "fuse_scale_mul", Doc: "fold a Mul by a per-output-channel constant into the weights and bias of the preceding Conv, ConvTranspose or Linear", Run: fuseScaleMul},
		{Name: "fold_through_pool", Doc: "fold a per-channel BatchNorm, Mul or Add that follows a MaxPool or AveragePool (global too) into the Conv, ConvTranspose or Linear before the pooling, where it commutes exactly (positive scales through max pooling; no shift through an average that counts padded zeros)", Run: foldThroughPool},
		{Name: "fold_into_conv_input", Doc: "fold a per-channel BatchNorm, Mul or Add into the Convs that read its output, as a scale of their weights per input channel and a shift of their biases, where exact: every reader is a Conv, without padding when there is a shift (padding would see it); only when the model does not grow", Run: foldIntoConvInput},
		{Name: "fold_into_norm", Doc: "remove an Add or Mul by a constant in front of a normalization where exact: an added constant that is one value per normalized group (a per-channel bias before InstanceNormalization) cancels in the mean subtraction; a uniform scale s becomes epsilon/s² (and a negated scale for s < 0)", Run: foldIntoNorm},
		{Name: "sink_transposes", Doc: "push Transposes down through elementwise ops (constants are stored permuted, inputs carrying the same Transpose drop it), Concat, Split, Softmax, ReduceMean and Pad, cancelling or merging them with the Transposes they meet (tf2onnx's NHWC wrappers around convs); a move is made only when it leaves fewer Transposes, or as many moving fewer elements", Run: sinkTransposes},
		{Name: "merge_parallel_convs", Doc: "merge group-1 convs that read the same input with the same kernel size, pads, strides and dilations into one conv and a Split, where the cost model says it pays; only merges that add no zero weight (kernels of other sizes are merged only by the growth rewrites, see --allow-growth)", Run: mergeConvsPass(false, true).Run},
		{Name: "fold_sequences", Doc: "turn a ConcatFromSequence of a sequence made just before into tensor ops: a Concat of a SequenceConstruct's tensors (Unsqueezed for a new axis), the input itself for a SplitToSequence rejoined along its axis", Run: foldSequences},
		{Name: "eliminate_dead", Doc: "remove nodes whose outputs are unused and initializers nobody reads", Run: eliminateDead},
	}
}

// PassNames lists the pass names in default order.
func PassNames() []string {
	var out []string
	for _, p := range Passes() {
		out = append(out, p.Name)
	}
	return out
}

// Pipeline selects passes by name, in the order given. An empty or nil list
// means every pass in default order.
func Pipeline(names []string) ([]Pass, error) {
	all := Passes()
	if len(names) == 0 {
		return all, nil
	}
	var out []Pass
	for _, name := range names {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(all, func(p Pass) bool { return p.Name == name })
		if i < 0 && isGrowthRewrite(name) {
			return nil, fmt.Errorf("%s adds zeros or FLOPs, so it is not a pipeline pass: it runs with --allow-growth or --search and is kept only where the target (--target) measures it faster", name)
		}
		if i < 0 {
			return nil, fmt.Errorf("unknown pass %q (valid passes: %s)", name, strings.Join(PassNames(), ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

// PipelineOptions tunes RunPipeline.
type PipelineOptions struct {
	// MaxIterations bounds the rounds over the pass list (default 10).
	MaxIterations int
	// AfterPass, when set, is called after every pass run that changed the
	// graph, once the graph has been validated.
	AfterPass func(pass string, g *canon.Graph)
}

// PassStat counts what one pass did during a pipeline run.
type PassStat struct {
	Name    string `json:"name"`
	Runs    int    `json:"runs"`
	Changed int    `json:"changed"`
}

// PipelineStats describes a pipeline run.
type PipelineStats struct {
	Iterations int        `json:"iterations"`
	Passes     []PassStat `json:"passes"`
	// Converged is false when MaxIterations ran out before a fixpoint.
	Converged bool `json:"converged"`
}

// RunPipeline validates g, then runs passes in order, repeatedly, until
// none changes the graph (or MaxIterations rounds). After every pass that
// changed something the graph is validated and its outputs are checked to
// be exactly the ones it had; an error names the pass.
func RunPipeline(g *canon.Graph, passes []Pass, opts PipelineOptions) (PipelineStats, error) {
	maxIt := opts.MaxIterations
	if maxIt <= 0 {
		maxIt = 10
	}
	st := PipelineStats{Passes: make([]PassStat, len(passes))}
	for i, p := range passes {
		st.Passes[i].Name = p.Name
	}
	if g == nil {
		return st, fmt.Errorf("optimize: nil graph")
	}
	// Passes trust what validation checks (arities, layouts, attribute
	// ranges) instead of checking it again.
	if err := g.Validate(); err != nil {
		return st, fmt.Errorf("optimize: the input graph is invalid: %w", err)
	}
	outs := outputNames(g)
	for it := 0; it < maxIt; it++ {
		st.Iterations = it + 1
		any := false
		for i, p := range passes {
			changed, err := runPass(p, g)
			st.Passes[i].Runs++
			if err != nil {
				return st, err
			}
			if !changed {
				continue
			}
			any = true
			st.Passes[i].Changed++
			if err := checkAfter(p.Name, g, outs); err != nil {
				return st, err
			}
			if opts.AfterPass != nil {
				opts.AfterPass(p.Name, g)
			}
		}
		if !any {
			st.Converged = true
			return st, nil
		}
	}
	return st, nil
}

// runPass runs one pass, turning a panic into an error that names it: a bug
// in one rewrite must not take the caller down.
func runPass(p Pass, g *canon.Graph) (changed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			changed, err = false, fmt.Errorf("pass %s: internal error: %v", p.Name, r)
		}
	}()
	if p.Run == nil {
		return false, fmt.Errorf("pass %s: no Run function", p.Name)
	}
	changed, err = p.Run(g)
	if err != nil {
		err = fmt.Errorf("pass %s: %w", p.Name, err)
	}
	return changed, err
}

// checkAfter validates g after a pass and checks that the graph outputs are
// exactly the ones it had.
func checkAfter(pass string, g *canon.Graph, outs []string) error {
	if got := outputNames(g); !slices.Equal(got, outs) {
		return fmt.Errorf("pass %s changed the graph outputs from %v to %v", pass, outs, got)
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("pass %s left an invalid graph: %w", pass, err)
	}
	return nil
}
