package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// TreeEnsemble as ONNX's reference evaluates it: comparisons on the
// feature's value (float32 values compare exactly as float64), leaves
// combined per target in float64 and rounded once to the output type.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{"TreeEnsemble": computesF64(buildTreeEnsemble)})
}

// treeModel is a TreeEnsemble ready to run: each BRANCH_MEMBER node's set.
type treeModel struct {
	op   *canon.TreeEnsemble
	sets map[int]map[float64]bool
}

func newTreeModel(op *canon.TreeEnsemble) (*treeModel, error) {
	if err := op.Validate(); err != nil {
		return nil, err
	}
	m := &treeModel{op: op, sets: map[int]map[float64]bool{}}
	next := 0
	for i, mode := range op.Modes {
		if mode != canon.TreeMember {
			continue
		}
		set := map[float64]bool{}
		for ; !math.IsNaN(op.Members[next]); next++ {
			v := op.Members[next]
			if v == 0 {
				v = 0 // -0 is a member where +0 is
			}
			set[v] = true
		}
		next++
		m.sets[i] = set
	}
	return m, nil
}

func buildTreeEnsemble(op canon.Op) kernel {
	m, err := newTreeModel(op.(*canon.TreeEnsemble))
	return func(x *exec) error {
		if err != nil {
			return err
		}
		return m.run(x)
	}
}

// goesTrue reports whether node i sends value v to its true branch.
func (m *treeModel) goesTrue(i int, v float64) bool {
	op := m.op
	if math.IsNaN(v) && op.MissingTrue != nil && op.MissingTrue[i] {
		return true
	}
	s := op.Splits[i]
	switch op.Modes[i] {
	case canon.TreeLEQ:
		return v <= s
	case canon.TreeLT:
		return v < s
	case canon.TreeGTE:
		return v >= s
	case canon.TreeGT:
		return v > s
	case canon.TreeEQ:
		return v == s
	case canon.TreeNEQ:
		return v != s
	}
	if v == 0 {
		v = 0
	}
	return m.sets[i][v]
}

// leaf walks the tree at root for one row of features.
func (m *treeModel) leaf(root int64, row func(int) float64) int64 {
	op := m.op
	i := root
	for {
		if m.goesTrue(int(i), row(int(op.Features[i]))) {
			if op.TrueLeaf[i] {
				return op.TrueIDs[i]
			}
			i = op.TrueIDs[i]
		} else {
			if op.FalseLeaf[i] {
				return op.FalseIDs[i]
			}
			i = op.FalseIDs[i]
		}
	}
}

func (m *treeModel) run(x *exec) error {
	op := m.op
	in := x.in(0)
	if in.dt != op.DType || len(in.shape) != 2 {
		return fmt.Errorf("input is %s%v; TreeEnsemble takes [N, F] %s", in.dt, in.shape, op.DType)
	}
	rows, feats := in.shape[0], in.shape[1]
	for i, f := range op.Features {
		if f >= int64(feats) {
			return fmt.Errorf("node %d reads feature %d, but X has %d features", i, f, feats)
		}
	}
	targets := int(op.NTargets)
	acc := make([]float64, targets)
	hit := make([]bool, targets)
	outF64 := make([]float64, rows*targets)
	for r := range rows {
		row := func(f int) float64 {
			if in.isF64() {
				return in.d[r*feats+f]
			}
			return float64(in.f[r*feats+f])
		}
		clear(acc)
		clear(hit)
		for _, root := range op.TreeRoots {
			var l int64
			if op.TrueLeaf[root] && op.FalseLeaf[root] && op.TrueIDs[root] == op.FalseIDs[root] {
				l = root // a lone leaf (Validate: its id is the root's)
			} else {
				l = m.leaf(root, row)
			}
			t, w := op.LeafTargets[l], op.LeafWeights[l]
			switch {
			case !hit[t] && (op.Aggregate == canon.TreeMin || op.Aggregate == canon.TreeMax):
				acc[t] = w
			case op.Aggregate == canon.TreeMin:
				acc[t] = math.Min(acc[t], w)
			case op.Aggregate == canon.TreeMax:
				acc[t] = math.Max(acc[t], w)
			default:
				acc[t] += w
			}
			hit[t] = true
		}
		for t := range targets {
			v := acc[t]
			switch {
			case op.Aggregate == canon.TreeAverage:
				v /= float64(len(op.TreeRoots))
			case !hit[t] && op.Aggregate == canon.TreeMin:
				v = maxFinite(op.DType)
			case !hit[t] && op.Aggregate == canon.TreeMax:
				v = -maxFinite(op.DType)
			}
			outF64[r*targets+t] = v
		}
	}
	shape := []int{rows, targets}
	if op.DType == canon.Float64 {
		out := x.newD(shape)
		copy(out.d, outF64)
		x.set(0, out)
		return nil
	}
	out := x.newF(shape)
	for i, v := range outF64 {
		out.f[i] = float32(v)
	}
	x.set(0, out)
	return nil
}

func maxFinite(dt canon.DType) float64 {
	if dt == canon.Float64 {
		return math.MaxFloat64
	}
	return math.MaxFloat32
}
