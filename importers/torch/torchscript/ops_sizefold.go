package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// foldMod computes torch.remainder / torch.fmod of two numbers known at
// import, as traced size arithmetic does (Swin's window padding:
// remainder(7 - remainder(W, 7), 7) on a size W made a tensor by
// prim::NumToTensor), so that int() of the result stays a number. ok is
// false when either operand is only known at run time.
func foldMod(c *opCall, fmod bool) (v value, ok bool, err error) {
	if err := c.bind("input", "other"); err != nil {
		return nil, false, err
	}
	a, okA := scalarOf(c.bound[0])
	b, okB := scalarOf(c.bound[1])
	if !okA || !okB {
		return nil, false, nil
	}
	r := scalar{isInt: a.isInt && b.isInt, isTensor: a.isTensor || b.isTensor}
	if b.f == 0 {
		if r.isInt {
			return nil, true, c.errf("integer remainder by zero")
		}
		r.f = math.NaN()
		return r.value(), true, nil
	}
	if fmod {
		r.f = math.Mod(a.f, b.f) // the sign of the dividend, as C's fmod
	} else {
		r.f = a.f - math.Floor(a.f/b.f)*b.f // the sign of the divisor, as Python's %
	}
	return r.value(), true, nil
}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.numel": entry(opNumel, "Shape", "ReduceProd"),
		"torch.zero_": entry(inPlace(opZero), "ConstantOfShape", "Expand", "Cast", "ScatterND", "Reshape"),
	})
}

// opNumel is the number of elements of a tensor of static shape (Swin v2
// sizes its position-bias table by it).
func opNumel(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	if vi := c.b().info(x); vi.RankKnown {
		if _, static := vi.StaticShape(); !static {
			return runTimeNumel(c, x)
		}
	}
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	return canon.NumElements(shape), nil
}

// opZero is fill_(input, 0) (Swin v2 zeroes the key bias of a copy of its
// qkv bias this way).
func opZero(c *opCall) (value, error) {
	if len(c.args) != 1 || len(c.kwargs) != 0 {
		return nil, c.errf("takes one argument, the tensor")
	}
	c.args = []value{c.args[0], int64(0)}
	return opFill(c)
}
