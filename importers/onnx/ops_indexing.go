package onnximport

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The indexing family: GatherElements, GatherND, ScatterElements (and the
// older Scatter), ScatterND, OneHot, Compress, Trilu.

func init() {
	optable.Add(&ops, map[string]opEntry{
		"GatherElements": {convGatherElements, 11, []string{"GatherElements"}},
		"GatherND":       {convGatherND, 11, []string{"GatherND"}},
		"ScatterElements": {func(c *nodeCtx) error {
			return convScatterElements(c, c.scatterReduction())
		}, 11, []string{"ScatterElements"}},
		// Scatter-9 is ScatterElements without reductions, deprecated in 11.
		"Scatter":   {func(c *nodeCtx) error { return convScatterElements(c, canon.ScatterNone) }, 9, []string{"ScatterElements"}},
		"ScatterND": {convScatterND, 11, []string{"ScatterND"}},
		"OneHot":    {convOneHot, 9, []string{"OneHot"}},
		"Compress":  {convCompress, 9, []string{"Compress"}},
		"Trilu":     {convTrilu, 14, []string{"Trilu"}},
	})
}

// scatterReduction reads a scatter's reduction attribute, checking that the
// model's opset defines the value (add and mul from 16, max and min from 18).
func (c *nodeCtx) scatterReduction() canon.ScatterReduction {
	s := c.str("reduction", "none")
	r, ok := canon.ParseScatterReduction(s)
	if !ok {
		c.fail("unknown reduction %q (want none, add, mul, max or min)", s)
		return canon.ScatterNone
	}
	since := map[canon.ScatterReduction]int64{canon.ScatterAdd: 16, canon.ScatterMul: 16, canon.ScatterMax: 18, canon.ScatterMin: 18}[r]
	if c.im.opset < since {
		c.fail("reduction %q needs opset %d, the model's is %d", s, since, c.im.opset)
	}
	return r
}

// indexingAxis reads the axis attribute, normalized when input i's rank is known.
func (c *nodeCtx) indexingAxis(i int, def int64) int64 {
	axis := c.int("axis", def)
	if r, ok := c.rank(i); ok {
		axis = c.normAxis(axis, r, "axis")
	}
	return axis
}

func convGatherElements(c *nodeCtx) error {
	return c.emit(&canon.GatherElements{Axis: c.indexingAxis(0, 0)}, []string{c.in(0), c.in(1)}, c.out1())
}

func convGatherND(c *nodeCtx) error {
	var b int64
	if c.im.opset >= 12 {
		b = c.int("batch_dims", 0)
	}
	if b < 0 {
		c.fail("batch_dims is %d, must be >= 0", b)
	}
	return c.emit(&canon.GatherND{BatchDims: b}, []string{c.in(0), c.in(1)}, c.out1())
}

func convScatterElements(c *nodeCtx, r canon.ScatterReduction) error {
	return c.emit(&canon.ScatterElements{Axis: c.indexingAxis(0, 0), Reduction: r}, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}

func convScatterND(c *nodeCtx) error {
	return c.emit(&canon.ScatterND{Reduction: c.scatterReduction()}, []string{c.in(0), c.in(1), c.in(2)}, c.out1())
}

// convOneHot reorders ONNX's (indices, depth, values) into canon's
// (indices, values, depth), folding a known depth into the attribute.
// Negative indices count from the end from opset 11; before, they are
// out of range.
func convOneHot(c *nodeCtx) error {
	op := &canon.OneHot{Axis: c.int("axis", -1), NegativeIndices: c.im.opset >= 11}
	if r, ok := c.rank(0); ok {
		op.Axis = c.normAxis(op.Axis, r+1, "axis")
	}
	if c.in(1) == "" || c.in(2) == "" {
		return c.errf("needs the indices, depth and values inputs")
	}
	depthIn := c.dynIn(1)
	if depthIn == "" {
		v, ok := c.constFloats(1, "depth")
		if ok && len(v) != 1 {
			c.fail("depth must hold one value, has %d", len(v))
		} else if ok {
			if !(v[0] >= 1 && v[0] < math.MaxInt32) {
				c.fail("depth is %v, must be between 1 and %d", v[0], math.MaxInt32)
			} else {
				op.Depth = int64(v[0])
			}
		}
	}
	return c.emit(op, []string{c.in(0), c.in(2), depthIn}, c.out1())
}

// convCompress: without an axis, Compress selects from the flattened input.
func convCompress(c *nodeCtx) error {
	op := &canon.Compress{Flatten: !c.has("axis")}
	if !op.Flatten {
		op.Axis = c.indexingAxis(0, 0)
	}
	return c.emit(op, []string{c.in(0), c.in(1)}, c.out1())
}

func convTrilu(c *nodeCtx) error {
	op := &canon.Trilu{Upper: c.int("upper", 1) != 0}
	kIn := c.dynIn(1)
	if c.in(1) != "" && kIn == "" {
		v, ok := c.constInts(1, "k")
		if ok && len(v) != 1 {
			c.fail("k must hold one value, has %d", len(v))
		} else if ok {
			op.K = v[0]
		}
	}
	return c.emit(op, []string{c.in(0), kIn}, c.out1())
}

func init() {
	fusions = append(fusions, fusion{"Where(triangular constant mask, x, 0), as modelbridge writes Trilu below opset 14", 9, "Trilu", findTriluMatches})
}

// triluMatch is a Where that keeps a triangle of x and zeroes the rest.
type triluMatch struct {
	i    int
	node *onnxpb.NodeProto
	op   canon.Trilu
}

func (m *triluMatch) span() []int { return []int{m.i} }

// findTriluMatches finds Where(mask, x, zero) with mask a constant bool
// matrix that is exactly a triangle from some diagonal and zero a scalar
// zero initializer.
func findTriluMatches(im *importer, nodes []*onnxpb.NodeProto) map[int]fusedMatch {
	out := map[int]fusedMatch{}
	for i, n := range nodes {
		if n.GetOpType() != "Where" || (n.GetDomain() != "" && n.GetDomain() != "ai.onnx") || len(n.Input) != 3 || len(n.Output) != 1 {
			continue
		}
		mask, zero := im.inits[n.Input[0]], im.inits[n.Input[2]]
		if mask == nil || zero == nil || mask.DType != canon.Bool || len(mask.Shape) != 2 || len(zero.Shape) != 0 || mask.CheckData() != nil || zero.CheckData() != nil {
			continue
		}
		isZero := true
		for _, b := range zero.Data {
			isZero = isZero && b == 0
		}
		if op, ok := triangleOf(mask); ok && isZero {
			out[i] = &triluMatch{i: i, node: n, op: op}
		}
	}
	return out
}

// triangleOf finds the Trilu whose kept entries are mask's true entries.
func triangleOf(mask *canon.Tensor) (canon.Trilu, bool) {
	rows, cols := mask.Shape[0], mask.Shape[1]
	lo, hi := cols, -rows // smallest and largest j-i kept
	for i := range rows {
		for j := range cols {
			if mask.Data[i*cols+j] != 0 {
				lo, hi = min(lo, j-i), max(hi, j-i)
			}
		}
	}
	for _, op := range []canon.Trilu{{Upper: true, K: lo}, {Upper: false, K: hi}} {
		same := true
		for i := int64(0); same && i < rows; i++ {
			for j := range cols {
				d := j - i
				keep := (op.Upper && d >= op.K) || (!op.Upper && d <= op.K)
				if keep != (mask.Data[i*cols+j] != 0) {
					same = false
					break
				}
			}
		}
		if same {
			return op, true
		}
	}
	return canon.Trilu{}, false
}

// convert emits the Trilu when x is a matrix (stack) the mask fits and
// the zero has x's dtype; any other Where is read as the Where it is.
func (m *triluMatch) convert(im *importer, name string) error {
	x := m.node.Input[1]
	v, ok := im.vals.Lookup(x)
	mask, zero := im.inits[m.node.Input[0]], im.inits[m.node.Input[2]]
	fits := ok && v.RankKnown && len(v.Shape) >= 2 && zero.DType == v.DType &&
		v.Shape[len(v.Shape)-2].Size == mask.Shape[0] && v.Shape[len(v.Shape)-1].Size == mask.Shape[1]
	if !fits {
		return im.convertNode(m.node, name)
	}
	c := &nodeCtx{im: im, n: m.node, name: name, op: "Where", attrs: map[string]*onnxpb.AttributeProto{}}
	op := m.op
	if err := c.emit(&op, []string{x}, []string{m.node.Output[0]}); err != nil {
		return err
	}
	return c.err
}
