package torchexport

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// Parameters computed at run time. ONNX lets TopK's k, OneHot's depth, the
// Reduce axes, Trilu's k, CumSum's axis, Clip's bounds, Expand's shape,
// Tile's repeats, the Squeeze/Unsqueeze axes, Slice's bounds, Pad's pads
// and value and Split's sizes arrive as tensors; model.py then reads them
// when it runs (.tolist(), int()) instead of writing them as literals.

// paramWriters write a node whose parameters arrive as run-time inputs;
// emit uses them instead of refusing such a node.
var paramWriters = map[string]func(gen *generator, n *canon.Node) error{
	"TopK":      writeTopKParam,
	"OneHot":    writeOneHotParam,
	"Trilu":     writeTriluParam,
	"CumSum":    writeCumSumParam,
	"Clip":      writeClipParam,
	"Expand":    writeExpandParam,
	"Tile":      writeTileParam,
	"Squeeze":   writeSqueezeParam,
	"Unsqueeze": writeUnsqueezeParam,
	"Slice":     writeSliceParam,
	"Pad":       writePadParam,
	"Split":     writeSplitParam,
}

func init() {
	for _, k := range []string{"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL1", "ReduceL2",
		"ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ReduceProd"} {
		paramWriters[k] = writeReduceParam
	}
}

// hasIn reports whether optional input i of the current node is given.
func (gen *generator) hasIn(i int) bool {
	return i < len(gen.node.Inputs) && gen.node.Inputs[i] != ""
}

// paramList is the Python list of input i's values, read at run time.
func (gen *generator) paramList(i int) (string, error) {
	v, err := gen.in(i)
	if err != nil {
		return "", err
	}
	return v + ".reshape(-1).tolist()", nil
}

// paramInt is input i (a one-element tensor) as a Python int.
func (gen *generator) paramInt(i int) (string, error) {
	v, err := gen.in(i)
	if err != nil {
		return "", err
	}
	return "int(" + v + ")", nil
}

func writeTopKParam(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.TopK)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	k, err := gen.paramInt(1)
	if err != nil {
		return err
	}
	a := strconv.FormatInt(op.Axis, 10)
	sorted := gen.indexingTemp("sorted", "torch.sort("+x+", dim="+a+", descending="+pyBool(op.Largest)+", stable=True)")
	for i, o := range n.Outputs {
		if o == "" {
			continue
		}
		v := gen.out(i)
		gen.forward = append(gen.forward, v+" = "+sorted+"["+strconv.Itoa(i)+"].narrow("+a+", 0, "+k+")")
	}
	return nil
}

// writeOneHotParam: the depth is a number of any dtype, truncated.
func writeOneHotParam(gen *generator, n *canon.Node) error {
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
	dv, err := gen.in(2)
	if err != nil {
		return err
	}
	d := gen.indexingTemp("depth", "int("+dv+".reshape(-1)[0])")
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

func writeTriluParam(gen *generator, n *canon.Node) error {
	f := "torch.tril"
	if n.Op.(*canon.Trilu).Upper {
		f = "torch.triu"
	}
	k, err := gen.paramInt(1)
	if err != nil {
		return err
	}
	return gen.call(f+"(%s, diagonal="+k+")", 0)
}

func writeCumSumParam(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.CumSum)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	axis, err := gen.paramInt(1)
	if err != nil {
		return err
	}
	a := gen.indexingTemp("axis", axis)
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

// writeClipParam: torch.clamp takes tensor bounds of the input's dtype; an
// absent bound is the attribute's (unbounded unless set).
func writeClipParam(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Clip)
	var args []string
	for i, b := range []struct {
		name string
		attr float32
		none float64
	}{{"min", op.Min, math.Inf(-1)}, {"max", op.Max, math.Inf(1)}} {
		switch {
		case gen.hasIn(1 + i):
			v, err := gen.in(1 + i)
			if err != nil {
				return err
			}
			args = append(args, b.name+"="+v)
		case float64(b.attr) != b.none:
			if dt, ok := gen.inDType(0); ok && !dt.IsFloat() {
				return gen.fail("an integer Clip with one bound as an input and one as an attribute")
			}
			args = append(args, b.name+"="+pyFloat(b.attr))
		}
	}
	if len(args) == 0 {
		return gen.alias()
	}
	return gen.call("torch.clamp(%s, "+strings.Join(args, ", ")+")", 0)
}

// writeExpandParam: ONNX's Expand broadcasts both ways.
func writeExpandParam(gen *generator, _ *canon.Node) error {
	s, err := gen.paramList(1)
	if err != nil {
		return err
	}
	return gen.call("torch.broadcast_to(%[1]s, torch.broadcast_shapes(%[1]s.shape, tuple("+s+")))", 0)
}

func writeTileParam(gen *generator, _ *canon.Node) error {
	r, err := gen.paramList(1)
	if err != nil {
		return err
	}
	return gen.call("%s.repeat("+r+")", 0)
}

// loopAxes writes `out = x`, then a loop applying method to out for each
// axis of the axes list (normalized against rank, sorted; descending when
// desc), and returns nothing: the output variable holds the result.
func (gen *generator) loopAxes(x, axes, rank, method string, desc bool) {
	out := gen.out(0)
	d := gen.genName("d")
	gen.forward = append(gen.forward,
		out+" = "+x,
		fmt.Sprintf("for %s in sorted((a %% (%s) for a in %s), reverse=%s):", d, rank, axes, pyBool(desc)),
		"    "+out+" = "+out+"."+method+"("+d+")")
}

func writeSqueezeParam(gen *generator, _ *canon.Node) error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	axes, err := gen.paramList(1)
	if err != nil {
		return err
	}
	gen.loopAxes(x, axes, x+".dim()", "squeeze", true)
	return nil
}

func writeUnsqueezeParam(gen *generator, _ *canon.Node) error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	axes, err := gen.paramList(1)
	if err != nil {
		return err
	}
	a := gen.indexingTemp("axes", axes)
	gen.loopAxes(x, a, x+".dim() + len("+a+")", "unsqueeze", false)
	return nil
}

// writeReduceParam: the axes are read at run time; none means every axis,
// or no reduction with NoopWithEmptyAxes.
func writeReduceParam(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Reduce)
	if dt, ok := gen.inDType(0); ok && dt == canon.Bool && op.Fn != canon.ReduceMax && op.Fn != canon.ReduceMin {
		return gen.fail("bool input")
	}
	if w := opWriters[n.Op.Kind()]; w.floatOnly != "" {
		if dt, ok := gen.inDType(0); ok && !dt.IsFloat() {
			return gen.fail("input dtype %s: PyTorch computes %s in floating point only; cast the input to float32 first", dt, w.floatOnly)
		}
	}
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	axes, err := gen.paramList(1)
	if err != nil {
		return err
	}
	a := gen.indexingTemp("axes", axes)
	keep := pyBool(op.KeepDims)
	if op.Fn == canon.ReduceProd {
		// torch.prod takes one dim: reduce from the last axis down.
		all := a + " or list(range(" + x + ".dim()))"
		if op.NoopWithEmptyAxes {
			all = a
		}
		out := gen.out(0)
		d := gen.genName("d")
		gen.forward = append(gen.forward,
			out+" = "+x,
			fmt.Sprintf("for %s in sorted((a %% %s.dim() for a in %s), reverse=True):", d, x, all),
			"    "+out+" = torch.prod("+out+", dim="+d+", keepdim="+keep+")")
		if cb := gen.castBack(x); cb != "" {
			gen.forward = append(gen.forward, out+" = "+out+cb)
		}
		return nil
	}
	formats := map[canon.ReduceFn]string{
		canon.ReduceSum:       "torch.sum(%s, dim=%s, keepdim=%s)",
		canon.ReduceMean:      "torch.mean(%s, dim=%s, keepdim=%s)",
		canon.ReduceMax:       "torch.amax(%s, dim=%s, keepdim=%s)",
		canon.ReduceMin:       "torch.amin(%s, dim=%s, keepdim=%s)",
		canon.ReduceL1:        "torch.sum(torch.abs(%s), dim=%s, keepdim=%s)",
		canon.ReduceL2:        "torch.sqrt(torch.sum(%[1]s * %[1]s, dim=%[2]s, keepdim=%[3]s))",
		canon.ReduceLogSum:    "torch.log(torch.sum(%s, dim=%s, keepdim=%s))",
		canon.ReduceLogSumExp: "torch.logsumexp(%s, dim=%s, keepdim=%s)",
		canon.ReduceSumSquare: "torch.sum(%[1]s * %[1]s, dim=%[2]s, keepdim=%[3]s)",
	}
	format, ok := formats[op.Fn]
	if !ok {
		return gen.fail("reduction %s with run-time axes", op.Fn)
	}
	// torch reads dim=() as every axis, so the empty case is spelled out.
	dims := gen.indexingTemp("dims", "tuple(a % "+x+".dim() for a in ("+a+" or range("+x+".dim())))")
	expr := fmt.Sprintf(format, x, dims, keep) + gen.castBack(x)
	if op.Fn == canon.ReduceMax || op.Fn == canon.ReduceMin {
		// torch refuses to reduce no elements; ONNX gives the dtype's
		// lowest (max) or highest (min) value.
		fill := "(float('-inf') if " + x + ".is_floating_point() else torch.iinfo(" + x + ".dtype).min)"
		if op.Fn == canon.ReduceMin {
			fill = "(float('inf') if " + x + ".is_floating_point() else torch.iinfo(" + x + ".dtype).max)"
		}
		shape := "[1 if i in " + dims + " else s for i, s in enumerate(" + x + ".shape) if " + keep + " or i not in " + dims + "]"
		expr = "(" + expr + " if " + x + ".numel() else torch.full(" + shape + ", " + fill + ", dtype=" + x + ".dtype))"
	}
	if op.NoopWithEmptyAxes {
		expr = "(" + expr + " if " + a + " else " + x + ")"
	}
	gen.assign(expr)
	return nil
}

// writeSliceParam: each sliced axis is an index_select of the positions
// Python's slice gives (its clamping is ONNX's, negative steps included).
func writeSliceParam(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Slice)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	list := func(i int, attr []int64, dflt string) (string, error) {
		switch {
		case gen.hasIn(i):
			return gen.paramList(i)
		case attr != nil:
			return pyInts(attr, false), nil
		}
		return dflt, nil
	}
	starts, err := list(1, op.Starts, "")
	if err != nil {
		return err
	}
	ends, err := list(2, op.Ends, "")
	if err != nil {
		return err
	}
	s := gen.indexingTemp("starts", starts)
	axes, err := list(3, op.Axes, "list(range(len("+s+")))")
	if err != nil {
		return err
	}
	steps, err := list(4, op.Steps, "[1] * len("+s+")")
	if err != nil {
		return err
	}
	out := gen.out(0)
	a, b, e, st := gen.genName("a"), gen.genName("b"), gen.genName("e"), gen.genName("s")
	gen.forward = append(gen.forward,
		out+" = "+x,
		fmt.Sprintf("for %s, %s, %s, %s in zip(%s, %s, %s, %s):", a, b, e, st, axes, s, ends, steps),
		fmt.Sprintf("    %s = %s %% %s.dim()", a, a, out),
		fmt.Sprintf("    %[1]s = torch.index_select(%[1]s, %[2]s, torch.tensor(range(*slice(%[3]s, %[4]s, %[5]s).indices(%[1]s.shape[%[2]s])), dtype=torch.int64))", out, a, b, e, st))
	return nil
}

// writePadParam: the pads (begins then ends, over every axis or Axes) are
// laid out as F.pad's list, last axis first. torch pads reflect and edge
// modes only on the last axes of a 3-D to 5-D input; other pads raise.
func writePadParam(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Pad)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	r := gen.rankOf(n.Inputs[0])
	if r < 0 {
		return gen.fail("input rank is unknown")
	}
	var pads string
	if gen.hasIn(1) {
		if pads, err = gen.paramList(1); err != nil {
			return err
		}
	} else {
		pads = pyInts(append(append([]int64{}, op.PadsBegin...), op.PadsEnd...), false)
	}
	p := gen.indexingTemp("pads", pads)
	axes := "list(range(" + strconv.Itoa(r) + "))"
	if op.Axes != nil {
		axes = pyInts(op.Axes, false)
	}
	if gen.hasIn(3) {
		if axes, err = gen.paramList(3); err != nil {
			return err
		}
	}
	full := gen.indexingTemp("full", "[0] * "+strconv.Itoa(2*r))
	i, a := gen.genName("i"), gen.genName("a")
	gen.forward = append(gen.forward,
		fmt.Sprintf("for %s, %s in enumerate(%s):", i, a, axes),
		fmt.Sprintf("    %[1]s[2 * (%[4]d - 1 - %[2]s %% %[4]d)], %[1]s[2 * (%[4]d - 1 - %[2]s %% %[4]d) + 1] = %[3]s[%[5]s], %[3]s[%[5]s + len(%[3]s) // 2]", full, a, p, r, i))
	switch op.Mode {
	case canon.PadWrap:
		gen.padWrapRunTime(x, full, r)
		return nil
	case canon.PadConstant:
		value := pyFloat(op.Value)
		if gen.hasIn(2) {
			v, err := gen.in(2)
			if err != nil {
				return err
			}
			value = v + ".item()"
		}
		gen.assign("F.pad(" + x + ", " + full + ", mode=\"constant\", value=" + value + ")")
		return nil
	case canon.PadReflect, canon.PadEdge:
		mode := map[canon.PadMode]string{canon.PadReflect: "reflect", canon.PadEdge: "replicate"}[op.Mode]
		if r < 3 || r > 5 {
			return gen.fail("torch pads in %s mode only the last 1 to 3 axes of a 3-D to 5-D input", mode)
		}
		gen.forward = append(gen.forward,
			"if any("+full+"[-4:]):",
			"    raise ValueError(\"torch pads in "+mode+" mode only the axes after the first two\")")
		src, back := x, ""
		if dt, ok := gen.inDType(0); ok && !dt.IsFloat() {
			// torch pads these modes in floating point only; float64
			// holds integers of up to 32 bits exactly.
			if dt.Size() > 4 {
				return gen.fail("torch pads in %s mode in floating point only, and %s values do not fit float64 exactly", mode, dt)
			}
			src, back = x+".double()", ".to("+x+".dtype)"
		}
		gen.assign("F.pad(" + src + ", " + full + "[:-4], mode=\"" + mode + "\")" + back)
		return nil
	}
	return gen.fail("pad mode %s", op.Mode)
}

func writeSplitParam(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Split)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	sizes, err := gen.paramList(1)
	if err != nil {
		return err
	}
	var outs []string
	for i := range n.Outputs {
		if n.Outputs[i] == "" {
			outs = append(outs, "_")
			continue
		}
		outs = append(outs, gen.out(i))
	}
	lhs := strings.Join(outs, ", ")
	if len(outs) == 1 {
		lhs += ","
	}
	gen.forward = append(gen.forward, fmt.Sprintf("%s = torch.split(%s, %s, dim=%d)", lhs, x, sizes, op.Axis))
	return nil
}

// reshapeParam writes a Reshape to a shape computed at run time: ONNX's 0
// copies the input's size unless AllowZero; -1 is torch's too.
func (gen *generator) reshapeParam(op *canon.Reshape) error {
	s, err := gen.paramList(1)
	if err != nil {
		return err
	}
	if op.AllowZero {
		return gen.call("%s.reshape("+s+")", 0)
	}
	return gen.call("%[1]s.reshape([%[1]s.shape[i] if d == 0 else d for i, d in enumerate("+s+")])", 0)
}
