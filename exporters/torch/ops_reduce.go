package torchexport

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The reduce family. torch reduces integers into int64 (sum, prod,
// cumsum), so integer results are cast back to the input's dtype, which
// wraps as ONNX does. Ties in TopK keep index order through a stable sort
// (torch.topk does not promise an order for equal values).

func init() {
	floats := "this reduction"
	w := map[string]opWriter{
		"ReduceSum":       {write: reduceWriter("torch.sum(%s, dim=%s, keepdim=%s)"), detail: "torch.sum, cast back for integers"},
		"ReduceMean":      {write: reduceWriter("torch.mean(%s, dim=%s, keepdim=%s)"), floatOnly: "averages", detail: "torch.mean"},
		"ReduceMax":       {write: reduceWriter("torch.amax(%s, dim=%s, keepdim=%s)"), detail: "torch.amax"},
		"ReduceMin":       {write: reduceWriter("torch.amin(%s, dim=%s, keepdim=%s)"), detail: "torch.amin"},
		"ReduceProd":      {write: writeReduceProd, detail: "torch.prod, one axis at a time, cast back for integers"},
		"ReduceL1":        {write: reduceWriter("torch.sum(torch.abs(%s), dim=%s, keepdim=%s)"), detail: "torch.sum of torch.abs"},
		"ReduceL2":        {write: reduceWriter("torch.sqrt(torch.sum(%[1]s * %[1]s, dim=%[2]s, keepdim=%[3]s))"), floatOnly: floats, detail: "torch.sqrt of a sum of squares"},
		"ReduceLogSum":    {write: reduceWriter("torch.log(torch.sum(%s, dim=%s, keepdim=%s))"), floatOnly: floats, detail: "torch.log of torch.sum"},
		"ReduceLogSumExp": {write: reduceWriter("torch.logsumexp(%s, dim=%s, keepdim=%s)"), floatOnly: floats, detail: "torch.logsumexp"},
		"ReduceSumSquare": {write: reduceWriter("torch.sum(%[1]s * %[1]s, dim=%[2]s, keepdim=%[3]s)"), detail: "torch.sum of squares, cast back for integers"},
		"ArgMax":          {write: writeArgReduce, detail: "torch.argmax; the last index through torch.flip"},
		"ArgMin":          {write: writeArgReduce, detail: "torch.argmin; the last index through torch.flip"},
		"TopK":            {write: writeTopK, detail: "torch.sort(stable=True) then narrow: ties keep index order as ONNX requires"},
		"CumSum":          {write: writeCumSum, detail: "torch.cumsum (torch.flip for reverse, minus the input for exclusive), cast back for integers"},
	}
	optable.Add(&opWriters, w)
}

// reduceDims is the Reduce node's axes as a Python tuple (every axis when
// none are given).
func (gen *generator) reduceDims(op *canon.Reduce) ([]int64, error) {
	if len(op.Axes) > 0 {
		return op.Axes, nil
	}
	r := gen.rankOf(gen.node.Inputs[0])
	if r < 0 {
		return nil, gen.fail("the input's rank is unknown, so the axes to reduce cannot be listed")
	}
	return seq(0, int64(r)), nil
}

// castBack is the suffix casting an integer result back to x's dtype.
func (gen *generator) castBack(x string) string {
	if dt, ok := gen.inDType(0); ok && !dt.IsFloat() {
		return ".to(" + x + ".dtype)"
	}
	return ""
}

func reduceWriter(format string) func(*generator, *canon.Node) error {
	return func(gen *generator, n *canon.Node) error {
		op := n.Op.(*canon.Reduce)
		if dt, ok := gen.inDType(0); ok && dt == canon.Bool && op.Fn != canon.ReduceMax && op.Fn != canon.ReduceMin {
			return gen.fail("bool input")
		}
		dims, err := gen.reduceDims(op)
		if err != nil {
			return err
		}
		x, err := gen.in(0)
		if err != nil {
			return err
		}
		expr := fmt.Sprintf(format, x, pyInts(dims, true), pyBool(op.KeepDims))
		gen.assign(expr + gen.castBack(x))
		return nil
	}
}

// writeReduceProd: torch.prod takes one dim, so axes are reduced one at a
// time, from the last so that the remaining dims keep their numbers.
func writeReduceProd(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Reduce)
	dims, err := gen.reduceDims(op)
	if err != nil {
		return err
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	dims = slices.Clone(dims)
	r := int64(gen.rankOf(n.Inputs[0]))
	for i, d := range dims {
		if d < 0 {
			if r < 0 {
				return gen.fail("negative axes need the input's rank, which is unknown")
			}
			dims[i] = d + r
		}
	}
	slices.Sort(dims)
	expr := x
	for i := len(dims) - 1; i >= 0; i-- {
		expr = "torch.prod(" + expr + ", dim=" + strconv.FormatInt(dims[i], 10) + ", keepdim=" + pyBool(op.KeepDims) + ")"
	}
	gen.assign(expr + gen.castBack(x))
	return nil
}

func writeArgReduce(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.ArgReduce)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	f := "torch.argmax"
	if op.Min {
		f = "torch.argmin"
	}
	a := strconv.FormatInt(op.Axis, 10)
	args := ", dim=" + a + ", keepdim=" + pyBool(op.KeepDims) + ")"
	if !op.SelectLastIndex {
		gen.assign(f + "(" + x + args)
		return nil
	}
	// The last extreme is size-1 minus the first extreme of the flipped input.
	gen.assign("(" + x + ".shape[" + a + "] - 1) - " + f + "(torch.flip(" + x + ", [" + a + "])" + args)
	return nil
}

func writeTopK(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.TopK)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	a := strconv.FormatInt(op.Axis, 10)
	sorted := gen.indexingTemp("sorted", "torch.sort("+x+", dim="+a+", descending="+pyBool(op.Largest)+", stable=True)")
	k := strconv.FormatInt(op.K, 10)
	for i, o := range n.Outputs {
		if o == "" {
			continue
		}
		v := gen.out(i)
		gen.forward = append(gen.forward, v+" = "+sorted+"["+strconv.Itoa(i)+"].narrow("+a+", 0, "+k+")")
	}
	return nil
}

func writeCumSum(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.CumSum)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	a := strconv.FormatInt(op.Axis, 10)
	src := x
	if op.Reverse {
		src = "torch.flip(" + x + ", [" + a + "])"
	}
	expr := "torch.cumsum(" + src + ", dim=" + a + ")"
	if op.Exclusive {
		expr = "(" + expr + " - " + src + ")"
	}
	if op.Reverse {
		expr = "torch.flip(" + expr + ", [" + a + "])"
	}
	gen.assign(expr + gen.castBack(x))
	return nil
}
