package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&ops, map[string]opEntry{
		mlDomain + ":TreeEnsemble": {convTreeEnsemble, 5, []string{"TreeEnsemble"}},
	})
}

// convTreeEnsemble reads TreeEnsemble-5. nodes_hitrates, which ONNX says
// no runtime uses, is dropped; a post transform is refused by name.
func convTreeEnsemble(c *nodeCtx) error {
	for _, need := range []string{"nodes_splits", "nodes_featureids", "nodes_modes", "nodes_truenodeids", "nodes_falsenodeids",
		"nodes_trueleafs", "nodes_falseleafs", "leaf_targetids", "leaf_weights", "tree_roots"} {
		if !c.has(need) {
			c.fail("has no %s attribute (ONNX requires it)", need)
			return c.err
		}
	}
	if p := c.int("post_transform", 0); p != 0 {
		names := map[int64]string{1: "SOFTMAX", 2: "LOGISTIC", 3: "SOFTMAX_ZERO", 4: "PROBIT"}
		c.fail("post_transform %d (%s) is not supported: modelbridge runs TreeEnsemble with post_transform NONE (0) only; apply the transform after the node instead", p, names[p])
		return c.err
	}
	agg := c.int("aggregate_function", 1)
	if agg < 0 || agg > 3 {
		c.fail("aggregate_function %d is not 0..3 (AVERAGE, SUM, MIN, MAX)", agg)
		return c.err
	}
	splits := c.mlTensorAttr("nodes_splits")
	weights := c.mlTensorAttr("leaf_weights")
	modes := c.mlTensorAttr("nodes_modes")
	if c.err != nil {
		return c.err
	}
	op := &canon.TreeEnsemble{
		DType: splits.DType, Aggregate: canon.TreeAggregate(agg), NTargets: c.int("n_targets", 0),
		TreeRoots: c.ints("tree_roots"), Features: c.ints("nodes_featureids"),
		TrueIDs: c.ints("nodes_truenodeids"), FalseIDs: c.ints("nodes_falsenodeids"),
		TrueLeaf: c.flags("nodes_trueleafs"), FalseLeaf: c.flags("nodes_falseleafs"),
		LeafTargets: c.ints("leaf_targetids"),
	}
	if c.has("nodes_missing_value_tracks_true") {
		op.MissingTrue = c.flags("nodes_missing_value_tracks_true")
	}
	if modes.DType != canon.Uint8 {
		c.fail("nodes_modes is %s; ONNX gives it as uint8", modes.DType)
		return c.err
	}
	for _, b := range modes.Data {
		op.Modes = append(op.Modes, canon.TreeMode(b))
	}
	for _, t := range []*canon.Tensor{splits, weights} {
		if t.DType != canon.Float32 && t.DType != canon.Float64 {
			c.fail("%s tensors are not supported: modelbridge runs TreeEnsemble on float32 and float64", t.DType)
			return c.err
		}
		if t.DType != splits.DType {
			c.fail("nodes_splits is %s but leaf_weights is %s; ONNX takes one type", splits.DType, t.DType)
			return c.err
		}
	}
	var err error
	if op.Splits, err = splits.Float64s(); err != nil {
		return c.errf("nodes_splits: %v", err)
	}
	if op.LeafWeights, err = weights.Float64s(); err != nil {
		return c.errf("leaf_weights: %v", err)
	}
	if c.has("membership_values") {
		m := c.mlTensorAttr("membership_values")
		if c.err != nil {
			return c.err
		}
		if m.DType != splits.DType {
			c.fail("membership_values is %s but nodes_splits is %s; ONNX takes one type", m.DType, splits.DType)
			return c.err
		}
		if op.Members, err = m.Float64s(); err != nil {
			return c.errf("membership_values: %v", err)
		}
	}
	if err := op.Validate(); err != nil {
		return c.errf("%v", err)
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

// flags reads an ints attribute of 0/1 values.
func (c *nodeCtx) flags(name string) []bool {
	v := c.ints(name)
	out := make([]bool, len(v))
	for i, x := range v {
		if x != 0 && x != 1 {
			c.fail("%s holds %d; want 0 or 1", name, x)
			return nil
		}
		out[i] = x == 1
	}
	return out
}
