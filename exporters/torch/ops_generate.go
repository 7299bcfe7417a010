package torchexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The generate family. Lengths known only at run time (NonZero, Unique,
// Range with computed bounds) need nothing special: the Python code
// computes them.

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"NonZero": {write: func(gen *generator, n *canon.Node) error { return gen.call("torch.nonzero(%s).T", 0) },
			detail: "torch.nonzero(x).T"},
		"Unique": {write: writeUnique,
			detail: "torch.unique (sorted, return_inverse, return_counts); first indices by scatter_reduce amin; first-occurrence order by argsort"},
		"Range": {write: writeRange, detail: "torch.arange on the bounds' values"},
		"ConstantOfShape": {write: writeConstantOfShape, constParams: true,
			detail: "torch.full (a run-time shape through tolist)"},
		"EyeLike": {write: writeEyeLike, detail: "comparison of torch.arange column and row indices with k"},
		"DepthToSpace": {write: writeDepthToSpace,
			detail: "F.pixel_shuffle (CRD); reshape-permute-reshape (DCR)"},
		"SpaceToDepth":    {write: writeSpaceToDepth, detail: "reshape-permute-reshape"},
		"ReverseSequence": {write: writeReverseSequence, detail: "torch.gather at per-sequence reversed time indices"},
	})
}

// genName reserves a fresh local variable name for the current node.
func (gen *generator) genName(base string) string {
	return gen.vars.claim(localName(gen.node.Name, "t") + "_" + base)
}

// genTemp assigns expr to a fresh local variable and returns its name.
func (gen *generator) genTemp(base, expr string) string {
	v := gen.genName(base)
	gen.forward = append(gen.forward, v+" = "+expr)
	return v
}

// genDType is the torch dtype of d, or an error naming it.
func (gen *generator) genDType(d canon.DType) (string, error) {
	s, ok := torchDTypes[d]
	if !ok {
		return "", gen.fail("dtype %s has no PyTorch equivalent", d)
	}
	return s, nil
}

func writeUnique(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Unique)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	dim, total := "", x+".numel()"
	if !op.Flatten {
		a := strconv.FormatInt(op.Axis, 10)
		dim, total = ", dim="+a, x+".shape["+a+"]"
	}
	y, inv, cnt := gen.genName("y"), gen.genName("inv"), gen.genName("cnt")
	gen.forward = append(gen.forward, fmt.Sprintf("%s, %s, %s = torch.unique(%s, sorted=True, return_inverse=True, return_counts=True%s)", y, inv, cnt, x, dim))
	inv = gen.genTemp("inv", inv+".reshape(-1)")
	// The first occurrence of each value: the smallest position mapping to it.
	first := gen.genTemp("first", fmt.Sprintf("torch.full((%s.shape[0],), %s, dtype=torch.int64).scatter_reduce(0, %s, torch.arange(%s), reduce=\"amin\", include_self=True)", cnt, total, inv, total))
	if !op.Sorted {
		// ONNX's unsorted order is the order of first occurrence.
		perm := gen.genTemp("perm", "torch.argsort("+first+")")
		if op.Flatten {
			y = gen.genTemp("y", y+"["+perm+"]")
		} else {
			y = gen.genTemp("y", fmt.Sprintf("torch.index_select(%s, %d, %s)", y, op.Axis, perm))
		}
		cnt = gen.genTemp("cnt", cnt+"["+perm+"]")
		first = gen.genTemp("first", first+"["+perm+"]")
		inv = gen.genTemp("inv", "torch.argsort("+perm+")["+inv+"]")
	}
	for i, e := range []string{y, first, inv, cnt} {
		if i < len(n.Outputs) && n.Outputs[i] != "" {
			gen.expr[n.Outputs[i]] = e
		}
	}
	return nil
}

func writeRange(gen *generator, n *canon.Node) error {
	dt, _ := gen.inDType(0)
	td, err := gen.genDType(dt)
	if err != nil {
		return err
	}
	var args [3]string
	for i := range args {
		e, err := gen.in(i)
		if err != nil {
			return err
		}
		args[i] = e + ".item()"
	}
	gen.assign(fmt.Sprintf("torch.arange(%s, %s, %s, dtype=%s)", args[0], args[1], args[2], td))
	return nil
}

// pyScalar is the Python literal of t's one element.
func pyScalar(t *canon.Tensor) (string, error) {
	if t.DType == canon.Bool {
		if t.Data[0] != 0 {
			return "True", nil
		}
		return "False", nil
	}
	if t.DType.IsFloat() {
		v, err := t.Float64s()
		if err != nil {
			return "", err
		}
		if t.DType == canon.Float64 {
			s := strconv.FormatFloat(v[0], 'g', -1, 64)
			if v[0] == v[0] && v[0]-v[0] == 0 { // finite
				return "float(" + strconv.Quote(s) + ")", nil
			}
		}
		return pyFloat(float32(v[0])), nil
	}
	v, err := t.Int64s()
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(v[0], 10), nil
}

func writeConstantOfShape(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.ConstantOfShape)
	td, err := gen.genDType(op.Value.DType)
	if err != nil {
		return err
	}
	v, err := pyScalar(op.Value)
	if err != nil {
		return gen.fail("value: %v", err)
	}
	shape := pyInts(op.Shape, true)
	if len(op.Shape) == 0 {
		shape = "()"
	}
	if genIn(n, 0) != "" {
		if s, ok := gen.constInts(0); ok {
			shape = pyInts(s, true)
			if len(s) == 0 {
				shape = "()"
			}
		} else {
			e, err := gen.in(0)
			if err != nil {
				return err
			}
			shape = "tuple(" + e + ".tolist())"
		}
	}
	gen.assign(fmt.Sprintf("torch.full(%s, %s, dtype=%s)", shape, v, td))
	return nil
}

func genIn(n *canon.Node, i int) string {
	if i < len(n.Inputs) {
		return n.Inputs[i]
	}
	return ""
}

func writeEyeLike(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.EyeLike)
	td, err := gen.genDType(op.DType)
	if err != nil {
		return err
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	gen.assign(fmt.Sprintf("(torch.arange(%s.shape[1]).unsqueeze(0) - torch.arange(%s.shape[0]).unsqueeze(1) == %d).to(%s)", x, x, op.K, td))
	return nil
}

func writeDepthToSpace(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.DepthToSpace)
	b := strconv.FormatInt(op.Blocksize, 10)
	if op.CRD {
		return gen.call("F.pixel_shuffle(%s, "+b+")", 0)
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	// DCR: the channels are (b, b, C/b²).
	gen.assign(fmt.Sprintf("%[1]s.reshape(%[1]s.shape[0], %[2]s, %[2]s, -1, %[1]s.shape[2], %[1]s.shape[3]).permute(0, 3, 4, 1, 5, 2).reshape(%[1]s.shape[0], -1, %[1]s.shape[2] * %[2]s, %[1]s.shape[3] * %[2]s)", x, b))
	return nil
}

func writeSpaceToDepth(gen *generator, n *canon.Node) error {
	b := strconv.FormatInt(n.Op.(*canon.SpaceToDepth).Blocksize, 10)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	gen.assign(fmt.Sprintf("%[1]s.reshape(%[1]s.shape[0], %[1]s.shape[1], %[1]s.shape[2] // %[2]s, %[2]s, %[1]s.shape[3] // %[2]s, %[2]s).permute(0, 3, 5, 1, 2, 4).reshape(%[1]s.shape[0], -1, %[1]s.shape[2] // %[2]s, %[1]s.shape[3] // %[2]s)", x, b))
	return nil
}

// writeReverseSequence gathers along the time axis at l-1-t for t < l
// (l the entry's sequence length) and at t elsewhere.
func writeReverseSequence(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.ReverseSequence)
	r := gen.rankOf(n.Inputs[0])
	if r < 2 {
		return gen.fail("the input's rank must be known")
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	lens, err := gen.in(1)
	if err != nil {
		return err
	}
	ta := strconv.FormatInt(op.TimeAxis, 10)
	tShape, lShape := "(-1, 1)", "(1, -1)"
	if op.TimeAxis == 1 {
		tShape, lShape = "(1, -1)", "(-1, 1)"
	}
	t := gen.genTemp("t", "torch.arange("+x+".shape["+ta+"]).reshape"+tShape)
	l := gen.genTemp("len", lens+".long().reshape"+lShape)
	idx := gen.genTemp("idx", "torch.where("+t+" < "+l+", "+l+" - 1 - "+t+", "+t+")")
	ones := ""
	for range r - 2 {
		ones += ", 1"
	}
	idx = gen.genTemp("idx", idx+".reshape("+idx+".shape[0], "+idx+".shape[1]"+ones+").expand("+x+".shape)")
	gen.assign("torch.gather(" + x + ", " + ta + ", " + idx + ")")
	return nil
}
