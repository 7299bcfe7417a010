package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The convert family: torch.to (dtype casts), torch.where, torch.expand,
// expand_as, torch.repeat and the comparisons eq, lt, le, gt, ge.

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.to":        entry(opTo, "Cast"),
		"torch.where":     entry(opWhere, "Where", "Cast", "NonZero", "Gather"),
		"torch.expand":    entry(opExpand, "Expand"),
		"torch.expand_as": entry(opExpandAs, "Expand", "Shape"),
		"torch.repeat":    entry(opRepeat, "Tile", "Unsqueeze"),
		"torch.eq":        entry(compareOp(canon.CmpEqual), "Equal", "Cast", "Reshape"),
		"torch.lt":        entry(compareOp(canon.CmpLess), "Less", "Cast", "Reshape"),
		"torch.le":        entry(compareOp(canon.CmpLessOrEqual), "LessOrEqual", "Cast", "Reshape"),
		"torch.gt":        entry(compareOp(canon.CmpGreater), "Greater", "Cast", "Reshape"),
		"torch.ge":        entry(compareOp(canon.CmpGreaterOrEqual), "GreaterOrEqual", "Cast", "Reshape"),
		"torch.ne":        entry(opNotEqual, "Equal", "Not", "Cast", "Reshape"),
	})
	optable.Add(&opLacks, map[string]string{
		"Size": "torch.jit.trace records x.numel() as a number, which is folded at import",
	})
}

// scalarTypes are torch's ScalarType codes, as serialized code passes them.
var scalarTypes = map[int64]canon.DType{
	0: canon.Uint8, 1: canon.Int8, 2: canon.Int16, 3: canon.Int32, 4: canon.Int64,
	5: canon.Float16, 6: canon.Float32, 7: canon.Float64, 11: canon.Bool, 15: canon.BFloat16,
}

// opTo reads the dtype forms of Tensor.to: to(dtype, ...), to(device,
// dtype, ...) and to(other, ...). A move to a device alone is the identity.
func opTo(c *opCall) (value, error) {
	if len(c.args) == 1 {
		// aten's to.dtype and to.device (a .pt2 program) name the dtype.
		if d, ok := c.kwargs["dtype"]; ok && d != nil {
			if _, none := d.(noneVal); !none {
				c.args = append(c.args, d)
			}
		}
		if _, ok := c.kwargs["device"]; ok && len(c.args) == 1 {
			return c.args[0], nil // a device move only
		}
	}
	if len(c.args) < 2 {
		return nil, c.errf("needs a dtype, a device or a tensor")
	}
	x, ok := c.args[0].(*tensorVal)
	if !ok {
		return nil, c.errf("argument self must be a Tensor, got %s", typeName(c.args[0]))
	}
	var to canon.DType
	switch a := c.args[1].(type) {
	case *tensorVal:
		to = c.b().info(a).DType
	case int64:
		dt, ok := scalarTypes[a]
		if !ok {
			return nil, c.errf("dtype code %d is not supported (float16, bfloat16, float32, float64, uint8, int8..int64, bool)", a)
		}
		to = dt
	default:
		if len(c.args) > 2 {
			if code, ok := c.args[2].(int64); ok {
				dt, ok := scalarTypes[code]
				if !ok {
					return nil, c.errf("dtype code %d is not supported", code)
				}
				to = dt
				break
			}
		}
		return x, nil // a device move only
	}
	if to == canon.Undefined {
		return nil, c.errf("the target dtype is unknown")
	}
	if c.b().info(x).DType == to {
		return x, nil
	}
	return c.b().emit1(c.scope, &canon.Cast{To: to}, x)
}

// compareOp reads torch.eq/lt/le/gt/ge of two tensors or a tensor and a
// number (in the tensor's dtype, as torch compares them).
func compareOp(fn canon.CompareFn) opHandler {
	return func(c *opCall) (value, error) {
		if err := c.bind("input", "other"); err != nil {
			return nil, err
		}
		left, right := c.bound[0], c.bound[1]
		if v, done, err := scalarCompare(c, fn, left, right); done {
			return v, err
		}
		a, aIsT := left.(*tensorVal)
		b, bIsT := right.(*tensorVal)
		_, okA := scalarOf(left)
		_, okB := scalarOf(right)
		if (!aIsT && !okA) || (!bIsT && !okB) || (!aIsT && !bIsT) {
			return nil, c.errf("unsupported operands %s and %s", typeName(left), typeName(right))
		}
		a, b, err := promoteOperands(c, a, b, left, right)
		if err != nil {
			return nil, err
		}
		return c.b().emit1(c.scope, &canon.Compare{Fn: fn}, a, b)
	}
}

// opWhere reads torch.where(condition, x, y); a number operand takes the
// other operand's dtype.
func opWhere(c *opCall) (value, error) {
	if len(c.args)+len(c.kwargs) == 1 {
		return whereNonzero(c)
	}
	if err := c.bind("condition", "input", "other"); err != nil {
		return nil, err
	}
	cond, err := c.tensor(0)
	if err != nil {
		return nil, err
	}
	x, xT := c.bound[1].(*tensorVal)
	y, yT := c.bound[2].(*tensorVal)
	if !xT && !yT {
		return nil, c.errf("needs at least one tensor operand")
	}
	if x, y, err = promoteOperands(c, x, y, c.bound[1], c.bound[2]); err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Where{}, cond, x, y)
}

// opExpand: torch's -1 keeps the input's size, which is what 1 means to
// Expand (torch refuses a 1 against a larger size, so nothing else
// changes).
func opExpand(c *opCall) (value, error) {
	x, err := c.bindInput("input", "size", "implicit=False")
	if err != nil {
		return nil, err
	}
	size, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	target := make([]int64, len(size))
	for i, d := range size {
		target[i] = d
		if d == -1 {
			target[i] = 1
		}
	}
	return c.b().emit1(c.scope, &canon.Expand{Shape: target}, x)
}

func opExpandAs(c *opCall) (value, error) {
	x, err := c.bindInput("input", "other")
	if err != nil {
		return nil, err
	}
	other, err := c.tensor(1)
	if err != nil {
		return nil, err
	}
	shape, err := c.shapeOf(other, "the other tensor")
	if err != nil {
		return expandAsRunTime(c, x, other)
	}
	return c.b().emit1(c.scope, &canon.Expand{Shape: shape}, x)
}

// opRepeat: repeats may be longer than the rank; the input then gains
// leading axes of size 1, as torch does.
func opRepeat(c *opCall) (value, error) {
	x, err := c.bindInput("input", "repeats")
	if err != nil {
		return nil, err
	}
	reps, err := c.ints(1, 0)
	if err != nil {
		return nil, err
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, err
	}
	if len(reps) < r {
		return nil, c.errf("repeats %v have fewer entries than the input's rank %d", reps, r)
	}
	var in value = x
	if k := len(reps) - r; k > 0 {
		axes := make([]int64, k)
		for i := range axes {
			axes[i] = int64(i)
		}
		if in, err = c.b().emit1(c.scope, &canon.Unsqueeze{Axes: axes}, x); err != nil {
			return nil, err
		}
	}
	t, _ := in.(*tensorVal)
	return c.b().emit1(c.scope, &canon.Tile{Repeats: reps}, t)
}

// opNotEqual is Equal negated (ONNX has no NotEqual).
func opNotEqual(c *opCall) (value, error) {
	eq, err := compareOp(canon.CmpEqual)(c)
	if err != nil {
		return nil, err
	}
	if v, done, err := notScalar(c, eq); done {
		return v, err
	}
	return c.b().emit1(c.scope, &canon.Not{}, eq.(*tensorVal))
}
