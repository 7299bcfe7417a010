package formats

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// BatchDim names axis 0 of every input under ReadOptions.DynamicBatch.
const BatchDim = "batch"

// maxDiscoveredRank bounds the ranks tried for an input read without one.
const maxDiscoveredRank = 8

// resolveInputDims completes the graph inputs after an importer ran, the
// same way for every format:
//   - the symbolic sizes named in --input-shape (ReadOptions.DimNames)
//     become named dims;
//   - an input read without a rank (a TorchScript trace, an MXNet symbol)
//     gets the one rank its consumers accept, found by shape inference,
//     or keeps an unknown rank with a note when several fit;
//   - every unknown dim of such an input gets a name of its own, so that
//     the model states which sizes are free (ONNX's checker wants a shape
//     on every graph input);
//   - with DynamicBatch, axis 0 of every input becomes the symbolic dim
//     "batch", refused by name where a Reshape bakes the batch size in.
func resolveInputDims(g *canon.Graph, opts ReadOptions) error {
	if len(opts.DimNames) > 0 || opts.DynamicBatch || resized(g, opts) {
		// The outputs' declared shapes were made for the file's input
		// sizes: validation infers them anew from the given ones.
		for i := range g.Outputs {
			g.Outputs[i].Shape, g.Outputs[i].RankKnown = nil, false
		}
	}
	for i := range g.Inputs {
		v := &g.Inputs[i]
		names := opts.DimNames[v.Name]
		if names == nil {
			names = opts.DimNames["#"+strconv.Itoa(i)]
		}
		if !v.RankKnown && names != nil {
			if s, ok := opts.ShapeFor(v.Name, i); ok {
				v.Shape, v.RankKnown = canon.DimsOf(s...), true
			}
		}
		for axis, name := range names {
			if v.RankKnown && axis < len(v.Shape) {
				v.Shape[axis] = canon.Dim{Size: -1, Param: name}
			}
		}
	}
	for i := range g.Inputs {
		if g.Inputs[i].RankKnown || !g.Inputs[i].IsTensor() {
			continue // a sequence's tensors may differ in rank
		}
		name := g.Inputs[i].Name
		ranks := acceptedRanks(g, i)
		if len(ranks) != 1 {
			g.Meta.Notes = append(g.Meta.Notes, fmt.Sprintf("input %q: its rank is not recorded in the file and the model's ops accept %s; give it with --input-shape %s=D1,D2,... (a size or a name per axis)", name, rankList(ranks), name))
			continue
		}
		g.Inputs[i].Shape, g.Inputs[i].RankKnown = freeDims(name, ranks[0]), true
	}
	if opts.DynamicBatch {
		return dynamicBatch(g)
	}
	return nil
}

// completeOutputDims fills the output dims the import left open (neither a
// size nor a name) with what inference derived, such as a named batch dim
// carried from an input whose rank was found after the import.
func completeOutputDims(g *canon.Graph) {
	for i := range g.Outputs {
		o := &g.Outputs[i]
		v, ok := g.Values.Lookup(o.Name)
		if !ok || !o.RankKnown || !v.RankKnown || len(v.Shape) != len(o.Shape) {
			continue
		}
		for a, d := range o.Shape {
			if !d.Known() && d.Param == "" {
				o.Shape[a] = v.Shape[a]
			}
		}
	}
}

// freeDims is rank unknown dims named after the input and the axis.
func freeDims(input string, rank int) []canon.Dim {
	dims := make([]canon.Dim, rank)
	for a := range dims {
		dims[a] = canon.Dim{Size: -1, Param: dimName(input, a)}
	}
	return dims
}

// FreeDimName is the name an input's axis gets when the file records no
// size for it (a TorchScript archive, an MXNet symbol): nothing but the
// model's consumers says what size it may take.
func FreeDimName(input string, axis int) string { return dimName(input, axis) }

// dimName is the name of an input's free axis: the input's name made an
// identifier, then the axis.
func dimName(input string, axis int) string {
	var b strings.Builder
	for _, r := range input {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String() + "_dim" + strconv.Itoa(axis)
}

// acceptedRanks lists the ranks of input i for which the whole graph's
// shape inference succeeds (the other inputs as they are).
func acceptedRanks(g *canon.Graph, i int) []int {
	var out []int
	for r := 0; r <= maxDiscoveredRank; r++ {
		trial := *g
		trial.Inputs = append([]canon.ValueInfo(nil), g.Inputs...)
		trial.Outputs = append([]canon.ValueInfo(nil), g.Outputs...)
		trial.Inputs[i].Shape, trial.Inputs[i].RankKnown = freeDims(g.Inputs[i].Name, r), true
		if trial.Validate() == nil {
			out = append(out, r)
		}
	}
	return out
}

func rankList(ranks []int) string {
	if len(ranks) == 0 {
		return "no rank up to " + strconv.Itoa(maxDiscoveredRank)
	}
	s := make([]string, len(ranks))
	for i, r := range ranks {
		s[i] = strconv.Itoa(r)
	}
	return "ranks " + strings.Join(s, ", ")
}

// batchOptions returns opts with every input of g (as first read) given
// by position, axis 0 the symbolic BatchDim and the other axes as read.
func batchOptions(g *canon.Graph, opts ReadOptions) ReadOptions {
	out := opts
	out.InputShapes = map[string][]int64{}
	out.DimNames = map[string]map[int]string{}
	// The types as first read (given, recorded or inferred) stay.
	out.InputDTypes = map[string]canon.DType{}
	for k, d := range opts.InputDTypes {
		out.InputDTypes[k] = d
	}
	for i, v := range g.Inputs {
		if _, given := opts.DTypeFor(v.Name, i); !given {
			out.InputDTypes["#"+strconv.Itoa(i)] = v.DType
		}
	}
	for i, v := range g.Inputs {
		if !v.RankKnown || len(v.Shape) == 0 {
			continue // dynamicBatch refuses it by name
		}
		key := "#" + strconv.Itoa(i)
		shape := make([]int64, len(v.Shape))
		names := map[int]string{0: BatchDim}
		for a, d := range v.Shape {
			shape[a] = d.Size
			if !d.Known() {
				shape[a] = -1
				if d.Param != "" && a > 0 {
					names[a] = d.Param
				}
			}
		}
		shape[0] = -1
		out.InputShapes[key], out.DimNames[key] = shape, names
	}
	return out
}

// dynamicBatch makes axis 0 of every input symbolic. A Reshape whose
// constant target fixes axis 0 of a batch-sized value would compute for
// one batch size only: it is refused by name.
func dynamicBatch(g *canon.Graph) error {
	for i := range g.Inputs {
		v := &g.Inputs[i]
		if !v.RankKnown || len(v.Shape) == 0 {
			return fmt.Errorf("--dynamic-batch: input %q has %s, so it has no batch axis to make symbolic", v.Name, map[bool]string{true: "rank 0", false: "an unknown rank"}[v.RankKnown])
		}
		v.Shape[0] = canon.Dim{Size: -1, Param: BatchDim}
	}
	trial := *g
	trial.Outputs = append([]canon.ValueInfo(nil), g.Outputs...)
	if err := trial.Validate(); err != nil {
		return fmt.Errorf("--dynamic-batch: the model does not accept a symbolic batch size: %w", err)
	}
	for _, n := range g.Nodes {
		r, ok := n.Op.(*canon.Reshape)
		if !ok || r.Shape == nil || len(r.Shape) == 0 || r.Shape[0] <= 0 {
			continue
		}
		if x := trial.Values.Get(n.Inputs[0]); x.RankKnown && len(x.Shape) > 0 && x.Shape[0].Param == BatchDim {
			return fmt.Errorf("--dynamic-batch: node %q (Reshape) has the fixed target shape %v, which bakes the batch size into the model; re-export it with a batch-free reshape (0 or -1 on axis 0)", n.Name, r.Shape)
		}
	}
	return nil
}

// resized tells whether --input-shape gives an input other sizes than
// the file records for it (a batch of 2 for a model saved with 1).
func resized(g *canon.Graph, opts ReadOptions) bool {
	for i, v := range g.Inputs {
		if s, ok := opts.ShapeFor(v.Name, i); ok && !SizesAgree(v, s) {
			return true
		}
	}
	return false
}

// SizesAgree tells whether shape (from --input-shape; -1 for a symbolic
// size) agrees with every size the input v records.
func SizesAgree(v canon.ValueInfo, shape []int64) bool {
	if !v.RankKnown {
		return true
	}
	if len(shape) != len(v.Shape) {
		return false
	}
	for a, d := range v.Shape {
		if d.Known() && shape[a] > 0 && shape[a] != d.Size {
			return false
		}
	}
	return true
}
