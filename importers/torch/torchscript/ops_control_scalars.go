package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// Scripted code computes with ints and bools that only a run tells (a loop
// variable, a size, int(tensor)): these calls take them.

// intArithmetic are the operators scripted code applies to two ints.
var intArithmetic = map[string]canon.BinaryFn{"torch.add": canon.Add, "torch.sub": canon.Sub, "torch.mul": canon.Mul}

// scalarOperandOps are elementwise operators whose number operand may be
// an int or bool known only at run time: it becomes a 0-d tensor of the
// tensor operand's dtype, as torch converts a number operand.
var scalarOperandOps = map[string]bool{
	"torch.add": true, "torch.sub": true, "torch.mul": true, "torch.div": true, "torch.remainder": true,
	"torch.eq": true, "torch.ne": true, "torch.lt": true, "torch.le": true, "torch.gt": true, "torch.ge": true,
}

func isRunTimeScalar(v value) bool {
	switch v.(type) {
	case *dynInt, *dynBool, *dynFloat:
		return true
	}
	return false
}

// runTimeScalarCall handles a call with a run-time int or bool argument
// that the operator's own handler does not take: done reports that it was
// handled (or refused); otherwise the arguments may have been converted
// for the handler.
func (c *opCall) runTimeScalarCall() (value, bool, error) {
	dyn := false
	for _, a := range c.args {
		dyn = dyn || isRunTimeScalar(a)
	}
	if !dyn {
		return nil, false, nil
	}
	if v, done, err := c.runTimeNumberMath(); done {
		return v, true, err
	}
	if len(c.args) < 2 {
		return nil, false, nil
	}
	if v, done, err := c.runTimeFloatArithmetic(); done {
		return v, true, err
	}
	if fn, ok := intArithmetic[c.name]; ok && len(c.args) == 2 && len(c.kwargs) == 0 {
		a, okA := intTensor(c.args[0])
		b, okB := intTensor(c.args[1])
		if okA && okB {
			t, err := c.b().emit1(c.scope, &canon.Binary{Fn: fn}, a, b)
			if err != nil {
				return nil, true, err
			}
			return &dynInt{t: t, sym: t.name}, true, nil
		}
	}
	if c.name == "torch.select" && len(c.args) == 3 {
		return c.selectRunTime()
	}
	if !scalarOperandOps[c.name] {
		return nil, false, nil
	}
	var like *tensorVal
	for _, a := range c.args[:2] {
		if t, ok := a.(*tensorVal); ok {
			like = t
			break
		}
	}
	if like == nil {
		return nil, false, nil
	}
	for i, a := range c.args[:2] {
		if f, ok := a.(*dynFloat); ok {
			s, other, err := floatOperand(c, f, like)
			if err != nil {
				return nil, true, err
			}
			c.args[i], c.args[1-i] = s, other
			return nil, false, nil
		}
	}
	dt := c.b().info(like).DType
	if dt == canon.Bool || dt == canon.Undefined {
		return nil, true, c.errf("an int known only at run time with a %s tensor is not supported", dt)
	}
	for i, a := range c.args[:2] {
		var t *tensorVal
		switch x := a.(type) {
		case *dynInt:
			t = x.t
		case *dynBool:
			t = x.t
		default:
			continue
		}
		s, err := c.b().emit1(c.scope, &canon.Reshape{}, t, scalarShape())
		if err != nil {
			return nil, true, err
		}
		if c.b().info(s).DType != dt {
			if s, err = c.b().emit1(c.scope, &canon.Cast{To: dt}, s); err != nil {
				return nil, true, err
			}
		}
		c.args[i] = s
	}
	return nil, false, nil
}

// selectRunTime reads torch.select(x, dim, index) with an index known only
// at run time: a Gather of that one entry.
func (c *opCall) selectRunTime() (value, bool, error) {
	x, ok := c.args[0].(*tensorVal)
	dim, okDim := c.args[1].(int64)
	idx, okIdx := c.args[2].(*dynInt)
	if !ok || !okDim || !okIdx {
		return nil, false, nil
	}
	vi := c.b().info(x)
	if !vi.RankKnown {
		return nil, true, c.errf("select with a run-time index needs the tensor's rank")
	}
	if dim < 0 {
		dim += int64(len(vi.Shape))
	}
	if dim < 0 || dim >= int64(len(vi.Shape)) {
		return nil, true, c.errf("dim %d out of range for rank %d", c.args[1], len(vi.Shape))
	}
	i, err := c.b().emit1(c.scope, &canon.Reshape{}, idx.t, scalarShape())
	if err != nil {
		return nil, true, err
	}
	out, err := c.b().emit1(c.scope, &canon.Gather{Axis: dim}, x, i)
	if err == nil {
		// x[i] aliases x: an in-place write into it changes x at a
		// position only a run tells (views_runtime_write.go).
		trackView(c, x, out, viewStep{axis: int(dim), selects: true, runStart: idx.t})
	}
	return out, true, err
}
