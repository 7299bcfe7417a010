package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Grids and index tables: meshgrid and cartesian_prod broadcast vectors
// against each other; tril_indices, triu_indices and combinations are
// tables known at import; block_diag pads each block to the full width.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.meshgrid":       entry(opMeshgrid, "Reshape", "Expand", "Shape", "Concat", "Unsqueeze"),
		"torch.cartesian_prod": entry(opCartesianProd, "Reshape", "Expand", "Unsqueeze", "Concat"),
		"torch.tril_indices":   entry(opTriIndices(false)),
		"torch.triu_indices":   entry(opTriIndices(true)),
		"torch.combinations":   entry(opCombinations, "Gather"),
		"torch.block_diag":     entry(opBlockDiag, "Reshape", "Pad", "Concat", "Cast"),
		"torch.vander":         entry(opVander, "Cast", "Unsqueeze", "ConstantOfShape", "Mul", "Concat"),
	})
}

// meshgridOf broadcasts each 0-D or 1-D tensor along its own axis of the
// grid; "xy" indexing swaps the first two axes.
func meshgridOf(c *opCall, ts []*tensorVal, xy bool) ([]*tensorVal, error) {
	for _, t := range ts {
		if _, static := c.b().info(t).StaticShape(); !static {
			return meshgridRunTime(c, ts, xy)
		}
	}
	lens := make([]int64, len(ts))
	for i, t := range ts {
		s, err := c.shapeOf(t, "each tensor")
		if err != nil {
			return nil, err
		}
		if len(s) > 1 {
			return nil, c.errf("tensor %d has rank %d; meshgrid takes 0-D or 1-D tensors", i, len(s))
		}
		lens[i] = canon.NumElements(s)
	}
	axisOf := func(i int) int {
		if xy && len(ts) > 1 && i < 2 {
			return 1 - i
		}
		return i
	}
	grid := make([]int64, len(ts))
	for i, n := range lens {
		grid[axisOf(i)] = n
	}
	out := make([]*tensorVal, len(ts))
	for i, t := range ts {
		shape := make([]int64, len(ts))
		for k := range shape {
			shape[k] = 1
		}
		shape[axisOf(i)] = lens[i]
		r, err := reshape(c, t, shape...)
		if err != nil {
			return nil, err
		}
		if out[i], err = c.b().emit1(c.scope, &canon.Expand{Shape: grid}, r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// opMeshgrid reads meshgrid(tensors) and meshgrid(tensors, indexing=...);
// without indexing torch uses "ij".
func opMeshgrid(c *opCall) (value, error) {
	if err := c.bind("tensors", "indexing=None"); err != nil {
		return nil, err
	}
	ts, err := tensorList(c, 0)
	if err != nil {
		return nil, err
	}
	xy := false
	if !c.isNone(1) {
		switch s, _ := c.bound[1].(string); s {
		case "ij":
		case "xy":
			xy = true
		default:
			return nil, c.errf("indexing must be \"ij\" or \"xy\", got %v", c.bound[1])
		}
	}
	grids, err := meshgridOf(c, ts, xy)
	if err != nil {
		return nil, err
	}
	out := &listVal{}
	for _, g := range grids {
		out.items = append(out.items, g)
	}
	return out, nil
}

// opCartesianProd: every combination of the vectors' entries, the last
// varying fastest, as rows; one vector is returned as it is.
func opCartesianProd(c *opCall) (value, error) {
	if err := c.bind("tensors"); err != nil {
		return nil, err
	}
	ts, err := tensorList(c, 0)
	if err != nil {
		return nil, err
	}
	if len(ts) == 1 {
		return ts[0], nil
	}
	grids, err := meshgridOf(c, ts, false)
	if err != nil {
		return nil, err
	}
	cols := make([]*tensorVal, len(grids))
	for i, g := range grids {
		f, err := reshape(c, g, -1)
		if err != nil {
			return nil, err
		}
		if cols[i], err = unsqueeze(c, f, 1); err != nil {
			return nil, err
		}
	}
	return c.b().emit1(c.scope, &canon.Concat{Axis: 1}, cols...)
}

// maxIndexTable bounds the tables built at import.
const maxIndexTable = 1 << 22

// opTriIndices is the 2×N table of the (row, column) positions of the
// lower (upper) triangle of a row×col matrix with offset, row by row.
func opTriIndices(upper bool) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind(append([]string{"row", "col", "offset=0"}, factoryTail...)...); err != nil {
			return nil, err
		}
		row, err := c.int(0)
		if err != nil {
			return nil, err
		}
		col, err := c.int(1)
		if err != nil {
			return nil, err
		}
		off, err := c.int(2)
		if err != nil {
			return nil, err
		}
		if row < 0 || col < 0 || row*col > maxIndexTable {
			return nil, c.errf("a %d×%d matrix is out of range (at most %d entries)", row, col, maxIndexTable)
		}
		dt, err := factoryDType(c, 3, canon.Int64)
		if err != nil {
			return nil, err
		}
		var rs, cs []float64
		for i := range row {
			for j := range col {
				if upper && j-i >= off || !upper && j-i <= off {
					rs = append(rs, float64(i))
					cs = append(cs, float64(j))
				}
			}
		}
		t, err := filledFrom(dt, []int64{2, int64(len(rs))}, append(rs, cs...))
		if err != nil {
			return nil, c.errf("%v", err)
		}
		return &tensorVal{konst: t}, nil
	}
}

// opCombinations: the r-element combinations of a vector's entries (with
// or without replacement) in lexicographic order of positions, a Gather
// of a table known at import.
func opCombinations(c *opCall) (value, error) {
	x, err := c.bindInput("input", "r=2", "with_replacement=False")
	if err != nil {
		return nil, err
	}
	s, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(s) != 1 {
		return nil, c.errf("the input must be 1-D, got shape %v", s)
	}
	r, err := c.int(1)
	if err != nil {
		return nil, err
	}
	repl, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	if r <= 0 {
		return nil, c.errf("r must be positive, got %d", r)
	}
	n := s[0]
	var table []int64
	cur := make([]int64, r)
	var walk func(k int, from int64) error
	walk = func(k int, from int64) error {
		if k == int(r) {
			if int64(len(table))+r > maxIndexTable {
				return c.errf("more than %d combinations", maxIndexTable/r)
			}
			table = append(table, cur...)
			return nil
		}
		for i := from; i < n; i++ {
			cur[k] = i
			next := i + 1
			if repl {
				next = i
			}
			if err := walk(k+1, next); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(0, 0); err != nil {
		return nil, err
	}
	if len(table) == 0 {
		return nil, c.errf("there are no combinations of %d of %d entries; torch returns an empty tensor of another shape, which is not read", r, n)
	}
	idx := constI64([]int64{int64(len(table)) / r, r}, table...)
	return c.b().emit1(c.scope, &canon.Gather{Axis: 0}, x, idx)
}

// opBlockDiag places the blocks (0-D as 1×1, 1-D as one row) along the
// diagonal of a zero matrix: each is padded to the total width and the
// rows are concatenated.
func opBlockDiag(c *opCall) (value, error) {
	if err := c.bind("tensors"); err != nil {
		return nil, err
	}
	ts, err := tensorList(c, 0)
	if err != nil {
		return nil, err
	}
	dt := c.b().info(ts[0]).DType
	var shapes [][2]int64
	width := int64(0)
	for i, t := range ts {
		s, err := c.shapeOf(t, "each block")
		if err != nil {
			return nil, err
		}
		var rc [2]int64
		switch len(s) {
		case 0:
			rc = [2]int64{1, 1}
		case 1:
			rc = [2]int64{1, s[0]}
		case 2:
			rc = [2]int64{s[0], s[1]}
		default:
			return nil, c.errf("block %d has rank %d; block_diag takes tensors of at most 2 dimensions", i, len(s))
		}
		if other := c.b().info(t).DType; other != dt {
			if dtypeCategory(other) > dtypeCategory(dt) || dtypeCategory(other) == dtypeCategory(dt) && other.Size() > dt.Size() {
				dt = other
			}
		}
		shapes = append(shapes, rc)
		width += rc[1]
	}
	var rows []*tensorVal
	left := int64(0)
	for i, t := range ts {
		rc := shapes[i]
		m, err := reshape(c, t, rc[0], rc[1])
		if err != nil {
			return nil, err
		}
		if m, err = castTo(c, m, dt); err != nil {
			return nil, err
		}
		if rc[0] > 0 {
			p, err := c.b().emit1(c.scope, &canon.Pad{Mode: canon.PadConstant, PadsBegin: []int64{0, left}, PadsEnd: []int64{0, width - left - rc[1]}}, m)
			if err != nil {
				return nil, err
			}
			rows = append(rows, p)
		}
		left += rc[1]
	}
	if len(rows) == 0 {
		return nil, c.errf("every block is empty")
	}
	if len(rows) == 1 {
		return rows[0], nil
	}
	return c.b().emit1(c.scope, &canon.Concat{Axis: 0}, rows...)
}

// maxVanderColumns bounds the products vander chains.
const maxVanderColumns = 256

// opVander: column j is x^j (increasing) or x^(N-1-j), each power the
// previous one times x, in the order torch's running product takes
// (integers and bools become int64).
func opVander(c *opCall) (value, error) {
	x, err := c.bindInput("x", "N=None", "increasing=False")
	if err != nil {
		return nil, err
	}
	s, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(s) != 1 {
		return nil, c.errf("the input must be 1-D, got shape %v", s)
	}
	n := s[0]
	if !c.isNone(1) {
		if n, err = c.int(1); err != nil {
			return nil, err
		}
	}
	if n < 0 || n > maxVanderColumns {
		return nil, c.errf("N=%d is out of range (0 to %d)", n, maxVanderColumns)
	}
	inc, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	if dt := c.b().info(x).DType; !dt.IsFloat() {
		if x, err = castTo(c, x, canon.Int64); err != nil {
			return nil, err
		}
	}
	if n == 0 {
		return nil, c.errf("N=0 gives an empty matrix, which is not read")
	}
	col, err := unsqueeze(c, x, 1)
	if err != nil {
		return nil, err
	}
	one, err := scalarAs(1, c.b().info(x).DType)
	if err != nil {
		return nil, c.errf("%v", err)
	}
	one.Shape = []int64{1}
	p, err := c.b().emit1(c.scope, &canon.ConstantOfShape{Value: one, Shape: []int64{s[0], 1}}, nil)
	if err != nil {
		return nil, err
	}
	cols := []*tensorVal{p}
	for range n - 1 {
		if p, err = arith(c, canon.Mul, p, col); err != nil {
			return nil, err
		}
		cols = append(cols, p)
	}
	if !inc {
		for i, j := 0, len(cols)-1; i < j; i, j = i+1, j-1 {
			cols[i], cols[j] = cols[j], cols[i]
		}
	}
	if len(cols) == 1 {
		return cols[0], nil
	}
	return c.b().emit1(c.scope, &canon.Concat{Axis: 1}, cols...)
}
