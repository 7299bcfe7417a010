package torchexport

import (
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The indexing family. ONNX's negative indices are resolved with
// torch.where before torch.gather and torch.scatter, which refuse them.

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"GatherElements": {write: writeGatherElements, detail: "torch.gather (negative indices resolved with torch.where)"},
		"GatherND":       {write: writeGatherND, detail: "advanced indexing, with torch.arange for batch axes; index tuples of static length"},
		"ScatterElements": {write: writeScatterElements,
			detail: "Tensor.scatter, or Tensor.scatter_reduce (sum, prod, amax, amin) with include_self=True"},
		"ScatterND": {write: writeScatterND,
			detail: "Tensor.scatter / scatter_reduce on the data viewed as (slots, slice); data of static shape"},
		"OneHot":   {write: writeOneHot, detail: "comparison with torch.arange and torch.where (F.one_hot has other semantics)"},
		"Compress": {write: writeCompress, detail: "torch.index_select at torch.nonzero(condition)"},
		"Trilu":    {write: writeTrilu, detail: "torch.triu / torch.tril"},
	})
}

// indexingIns returns the expressions of the node's inputs.
func (gen *generator) indexingIns(idx ...int) ([]string, error) {
	out := make([]string, len(idx))
	for k, i := range idx {
		e, err := gen.in(i)
		if err != nil {
			return nil, err
		}
		out[k] = e
	}
	return out, nil
}

// indexingTemp assigns expr to a fresh local variable and returns its name.
func (gen *generator) indexingTemp(base, expr string) string {
	v := gen.vars.claim(localName(gen.node.Name, "t") + "_" + base)
	gen.forward = append(gen.forward, v+" = "+expr)
	return v
}

// axisIndices is idx with negative entries resolved against axis a of x,
// as int64.
func (gen *generator) axisIndices(x, idx string, a int64) string {
	s := strconv.FormatInt(a, 10)
	return gen.indexingTemp("idx", "torch.where("+idx+" < 0, "+idx+" + "+x+".shape["+s+"], "+idx+").long()")
}

func writeGatherElements(gen *generator, n *canon.Node) error {
	e, err := gen.indexingIns(0, 1)
	if err != nil {
		return err
	}
	a := n.Op.(*canon.GatherElements).Axis
	i := gen.axisIndices(e[0], e[1], a)
	gen.assign("torch.gather(" + e[0] + ", " + strconv.FormatInt(a, 10) + ", " + i + ")")
	return nil
}

func writeGatherND(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.GatherND)
	is, ok := gen.shapeOf(n.Inputs[1])
	if !ok || len(is) == 0 || is[len(is)-1] < 1 {
		return gen.fail("the index tuples' length (the last axis of the indices) must be known and at least 1")
	}
	e, err := gen.indexingIns(0, 1)
	if err != nil {
		return err
	}
	q, k := len(is), is[len(is)-1]
	i := gen.indexingTemp("idx", e[1]+".long()")
	var parts []string
	// Batch axis j walks with axis j of the index tuples' grid (rank q-1);
	// torch indexing accepts negative indices itself.
	for j := range int(op.BatchDims) {
		shape := make([]int64, q-1)
		for a := range shape {
			shape[a] = 1
		}
		shape[j] = -1
		parts = append(parts, "torch.arange("+e[0]+".shape["+strconv.Itoa(j)+"]).reshape"+pyInts(shape, true))
	}
	for t := range k {
		parts = append(parts, i+"[..., "+strconv.FormatInt(t, 10)+"]")
	}
	gen.assign(e[0] + "[(" + strings.Join(parts, ", ") + ",)]")
	return nil
}

var torchReduce = map[canon.ScatterReduction]string{canon.ScatterAdd: "sum", canon.ScatterMul: "prod", canon.ScatterMax: "amax", canon.ScatterMin: "amin"}

// scatterCall is x.scatter(dim, idx, src) or its reducing form.
func scatterCall(x string, dim int64, idx, src string, r canon.ScatterReduction) string {
	args := strconv.FormatInt(dim, 10) + ", " + idx + ", " + src
	if r == canon.ScatterNone {
		return x + ".scatter(" + args + ")"
	}
	return x + ".scatter_reduce(" + args + ", reduce=\"" + torchReduce[r] + "\", include_self=True)"
}

func writeScatterElements(gen *generator, n *canon.Node) error {
	e, err := gen.indexingIns(0, 1, 2)
	if err != nil {
		return err
	}
	op := n.Op.(*canon.ScatterElements)
	i := gen.axisIndices(e[0], e[1], op.Axis)
	gen.assign(scatterCall(e[0], op.Axis, i, e[2], op.Reduction))
	return nil
}

// writeScatterND views the data as (slots, slice) rows, turns each index
// tuple into its row number and scatters whole rows.
func writeScatterND(gen *generator, n *canon.Node) error {
	ds, ok1 := gen.shapeOf(n.Inputs[0])
	is, ok2 := gen.shapeOf(n.Inputs[1])
	if !ok1 || !ok2 || len(is) == 0 {
		return gen.fail("the data and index shapes must be known")
	}
	k := int(is[len(is)-1])
	e, err := gen.indexingIns(0, 1, 2)
	if err != nil {
		return err
	}
	dims, strides := ds[:k], make([]int64, k)
	s := int64(1)
	for a := k - 1; a >= 0; a-- {
		strides[a] = s
		s *= dims[a]
	}
	slice := canon.NumElements(ds[k:])
	i := gen.indexingTemp("idx", e[1]+".long()")
	if k > 0 {
		i = gen.indexingTemp("idx", "torch.where("+i+" < 0, "+i+" + torch.tensor("+pyInts(dims, false)+"), "+i+")")
		// Each component is checked: a row number alone can be in range
		// while one component is not ([0, 5] in a 4×4 grid is row 5).
		gen.forward = append(gen.forward,
			"if bool((("+i+" < 0) | ("+i+" >= torch.tensor("+pyInts(dims, false)+"))).any()):",
			"    raise IndexError(\"ScatterND: an index is out of range for the data's shape "+pyInts(dims, false)+"\")")
	}
	sl := strconv.FormatInt(slice, 10)
	rows := gen.indexingTemp("rows", "("+i+" * torch.tensor("+pyInts(strides, false)+")).sum(-1).reshape(-1, 1).expand(-1, "+sl+")")
	call := scatterCall(e[0]+".reshape(-1, "+sl+")", 0, rows, e[2]+".reshape(-1, "+sl+")", n.Op.(*canon.ScatterND).Reduction)
	gen.assign(call + ".reshape(" + e[0] + ".shape)")
	return nil
}

func writeOneHot(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.OneHot)
	r := gen.rankOf(n.Inputs[0])
	if r < 0 {
		return gen.fail("the rank of the indices must be known")
	}
	a := op.Axis
	if a < 0 {
		a += int64(r) + 1
	}
	e, err := gen.indexingIns(0, 1)
	if err != nil {
		return err
	}
	d := strconv.FormatInt(op.Depth, 10)
	i := gen.indexingTemp("idx", e[0]+".long()")
	if op.NegativeIndices {
		i = gen.indexingTemp("idx", "torch.where("+i+" < 0, "+i+" + "+d+", "+i+")")
	}
	shape := make([]int64, int64(r)-a+1)
	for k := range shape {
		shape[k] = 1
	}
	shape[0] = -1
	hot := gen.indexingTemp("hot", i+".unsqueeze("+strconv.FormatInt(a, 10)+") == torch.arange("+d+").reshape"+pyInts(shape, true))
	gen.assign("torch.where(" + hot + ", " + e[1] + "[1], " + e[1] + "[0])")
	return nil
}

func writeCompress(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Compress)
	e, err := gen.indexingIns(0, 1)
	if err != nil {
		return err
	}
	keep := "torch.nonzero(" + e[1] + ").reshape(-1)"
	if op.Flatten {
		gen.assign(e[0] + ".reshape(-1)[" + keep + "]")
		return nil
	}
	gen.assign("torch.index_select(" + e[0] + ", " + strconv.FormatInt(op.Axis, 10) + ", " + keep + ")")
	return nil
}

func writeTrilu(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Trilu)
	f := "torch.tril"
	if op.Upper {
		f = "torch.triu"
	}
	return gen.call(f+"(%s, diagonal="+strconv.FormatInt(op.K, 10)+")", 0)
}
