package canon

import (
	"fmt"
	"math"
)

func init() {
	Register(withReason(&OpDef{
		Kind:    "TreeEnsemble",
		Summary: "an ensemble of decision trees (LEQ, LT, GTE, GT, EQ, NEQ and set-membership splits) on [N, F] features, leaves summed, averaged, or their min or max per target (ai.onnx.ml)",
		New:     func() Op { return &TreeEnsemble{Aggregate: TreeSum} },
		Infer:   func(c *InferCtx) ([]ValueInfo, error) { return one(c.treeEnsemble(c.n.Op.(*TreeEnsemble))) },
		Check: func(c *CheckCtx) error {
			return wrapCheck(c, c.N.Op.(*TreeEnsemble).Validate())
		},
		OutputDTypes: func(n *Node, _ []DType) ([]DType, error) {
			return []DType{n.Op.(*TreeEnsemble).DType}, nil
		},
		Example: func() Example {
			// Members outside the inputs' range [-3, 3]: ONNX Runtime 1.30 tests
			// integral sets on the feature cast to an integer (2.3 is a
			// member of {2}), where ONNX tests the value itself.
			nan := math.NaN()
			return Example{Op: &TreeEnsemble{
				DType: Float32, Aggregate: TreeSum, NTargets: 2, TreeRoots: []int64{0, 2},
				Modes:       []TreeMode{TreeLEQ, TreeMember, TreeGT},
				Features:    []int64{0, 1, 1},
				Splits:      []float64{0.5, 0, -0.25},
				TrueIDs:     []int64{1, 0, 2},
				FalseIDs:    []int64{1, 1, 3},
				TrueLeaf:    []bool{false, true, true},
				FalseLeaf:   []bool{true, true, true},
				MissingTrue: []bool{true, false, false},
				Members:     []float64{5, -7, nan},
				LeafTargets: []int64{0, 1, 0, 1},
				LeafWeights: []float64{1.5, -2, 0.25, 4},
			}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{4, 2}}}}
		},
	}, mlWithout))
}

// TreeMode is how a TreeEnsemble node compares its feature with its split.
type TreeMode uint8

const (
	TreeLEQ TreeMode = iota
	TreeLT
	TreeGTE
	TreeGT
	TreeEQ
	TreeNEQ
	TreeMember
)

var treeModeNames = []string{"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ", "BRANCH_MEMBER"}

func (m TreeMode) String() string {
	if int(m) < len(treeModeNames) {
		return treeModeNames[m]
	}
	return fmt.Sprintf("TreeMode(%d)", uint8(m))
}

// TreeAggregate is how the leaves the trees reach combine per target
// (ONNX's aggregate_function).
type TreeAggregate uint8

const (
	TreeAverage TreeAggregate = iota
	TreeSum
	TreeMin
	TreeMax
)

func (a TreeAggregate) String() string {
	switch a {
	case TreeAverage:
		return "AVERAGE"
	case TreeSum:
		return "SUM"
	case TreeMin:
		return "MIN"
	case TreeMax:
		return "MAX"
	}
	return fmt.Sprintf("TreeAggregate(%d)", uint8(a))
}

// TreeEnsemble is ONNX's TreeEnsemble-5 without a post transform. X is
// [N, F] of DType (float32 or float64); Y is [N, NTargets]. Each tree
// starts at a node of TreeRoots; node i sends X[Features[i]] to TrueIDs[i]
// when the comparison Modes[i] with Splits[i] holds (or the feature is
// NaN and MissingTrue[i]), else to FalseIDs[i]; TrueLeaf/FalseLeaf tell
// whether that id is a leaf (an index of LeafTargets and LeafWeights)
// or a node. A BRANCH_MEMBER node tests membership in its set: Members
// lists the sets, each ended by NaN, in node order. Splits, Members and
// LeafWeights hold values of DType exactly. The leaves reached are
// combined per target by Aggregate: SUM, AVERAGE (the sum over the
// number of trees), MIN or MAX (a target no leaf reaches gives DType's
// largest, resp. lowest, finite value); an untouched SUM or AVERAGE
// target is 0.
type TreeEnsemble struct {
	DType       DType
	Aggregate   TreeAggregate
	NTargets    int64
	TreeRoots   []int64
	Modes       []TreeMode
	Features    []int64
	Splits      []float64
	TrueIDs     []int64
	FalseIDs    []int64
	TrueLeaf    []bool
	FalseLeaf   []bool
	MissingTrue []bool // nil: NaN follows the comparison
	Members     []float64
	LeafTargets []int64
	LeafWeights []float64
}

func (*TreeEnsemble) Kind() string         { return "TreeEnsemble" }
func (*TreeEnsemble) Signature() Signature { return sig(1, inX) }

// Validate checks that the arrays agree, every id is in range, every tree
// is a tree (no node reached twice, no cycle) and the member sets match
// the BRANCH_MEMBER nodes.
func (op *TreeEnsemble) Validate() error {
	if op.DType != Float32 && op.DType != Float64 {
		return fmt.Errorf("TreeEnsemble computes on float32 or float64, not %s", op.DType)
	}
	if op.Aggregate > TreeMax {
		return fmt.Errorf("unknown aggregate function %d", op.Aggregate)
	}
	n := len(op.Modes)
	for name, l := range map[string]int{"nodes_featureids": len(op.Features), "nodes_splits": len(op.Splits),
		"nodes_truenodeids": len(op.TrueIDs), "nodes_falsenodeids": len(op.FalseIDs),
		"nodes_trueleafs": len(op.TrueLeaf), "nodes_falseleafs": len(op.FalseLeaf)} {
		if l != n {
			return fmt.Errorf("TreeEnsemble has %d nodes_modes but %d %s", n, l, name)
		}
	}
	if op.MissingTrue != nil && len(op.MissingTrue) != n {
		return fmt.Errorf("TreeEnsemble has %d nodes but %d nodes_missing_value_tracks_true", n, len(op.MissingTrue))
	}
	if len(op.LeafTargets) != len(op.LeafWeights) || len(op.LeafWeights) == 0 {
		return fmt.Errorf("TreeEnsemble has %d leaf_targetids and %d leaf_weights; want one or more of each, as many", len(op.LeafTargets), len(op.LeafWeights))
	}
	if op.NTargets < 1 {
		return fmt.Errorf("TreeEnsemble has n_targets %d; want 1 or more", op.NTargets)
	}
	for i, t := range op.LeafTargets {
		if t < 0 || t >= op.NTargets {
			return fmt.Errorf("leaf %d targets %d, outside [0, %d)", i, t, op.NTargets)
		}
	}
	if len(op.TreeRoots) == 0 {
		return fmt.Errorf("TreeEnsemble has no tree_roots")
	}
	members := 0
	for i, m := range op.Modes {
		if m > TreeMember {
			return fmt.Errorf("node %d has mode %d; modes are 0..6 (BRANCH_LEQ..BRANCH_MEMBER)", i, m)
		}
		if op.Features[i] < 0 {
			return fmt.Errorf("node %d reads feature %d", i, op.Features[i])
		}
		if m == TreeMember {
			members++
		}
		for _, b := range []struct {
			id   int64
			leaf bool
		}{{op.TrueIDs[i], op.TrueLeaf[i]}, {op.FalseIDs[i], op.FalseLeaf[i]}} {
			lim := int64(n)
			if b.leaf {
				lim = int64(len(op.LeafWeights))
			}
			if b.id < 0 || b.id >= lim {
				return fmt.Errorf("node %d branches to id %d, outside [0, %d)", i, b.id, lim)
			}
		}
	}
	sets := 0
	for _, v := range op.Members {
		if math.IsNaN(v) {
			sets++
		}
	}
	if sets != members || (len(op.Members) > 0 && !math.IsNaN(op.Members[len(op.Members)-1])) {
		return fmt.Errorf("TreeEnsemble has %d BRANCH_MEMBER nodes and %d NaN-ended sets in membership_values; want one set per such node", members, sets)
	}
	// ONNX's reference hands the sets out as it walks each tree, true
	// branch first; that must be node order, each node reached once.
	seen := make([]bool, n)
	lastMember := -1
	var walk func(i int64) error
	walk = func(i int64) error {
		if seen[i] {
			return fmt.Errorf("node %d is reached twice (shared by two branches or trees, or in a cycle); TreeEnsemble takes trees", i)
		}
		seen[i] = true
		if op.Modes[i] == TreeMember {
			if int(i) < lastMember {
				return fmt.Errorf("the BRANCH_MEMBER nodes are not in the order the trees are walked (node %d after %d), so which set is whose is ambiguous", i, lastMember)
			}
			lastMember = int(i)
		}
		if !op.TrueLeaf[i] {
			if err := walk(op.TrueIDs[i]); err != nil {
				return err
			}
		}
		if !op.FalseLeaf[i] {
			return walk(op.FalseIDs[i])
		}
		return nil
	}
	for _, r := range op.TreeRoots {
		if r < 0 || r >= int64(n) {
			return fmt.Errorf("tree root %d is outside [0, %d)", r, n)
		}
		if op.TrueLeaf[r] && op.FalseLeaf[r] && op.TrueIDs[r] == op.FalseIDs[r] && op.TrueIDs[r] != r {
			return fmt.Errorf("tree root %d is a lone leaf (both branches leaf %d): ONNX reads such a tree as leaf %d, which is ambiguous", r, op.TrueIDs[r], r)
		}
		if err := walk(r); err != nil {
			return err
		}
	}
	return nil
}

func (c *InferCtx) treeEnsemble(op *TreeEnsemble) (ValueInfo, error) {
	if err := op.Validate(); err != nil {
		return ValueInfo{}, c.errf("%v", err)
	}
	x := c.in[0]
	if x.DType != Undefined && x.DType != op.DType {
		return ValueInfo{}, c.errf("input X is %s but the splits and weights are %s; TreeEnsemble takes one type", x.DType, op.DType)
	}
	if err := c.needRank(0, 2, "TreeEnsemble"); err != nil {
		return ValueInfo{}, err
	}
	n := unknownDim
	if x.RankKnown {
		n = x.Shape[0]
	}
	return shaped(op.DType, []Dim{n, knownDim(op.NTargets)}), nil
}
