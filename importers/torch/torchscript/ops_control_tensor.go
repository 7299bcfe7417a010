package torchscript

import (
	"encoding/binary"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&opTable, map[string]opEntry{"torch.tensor": entry(opTensorLiteral, "Concat", "Reshape", "Cast")})
}

// opTensorLiteral reads torch.tensor(data, dtype=None, device=None,
// requires_grad=False) on numbers known at import (a number or nested
// lists of them): a constant. Without a dtype, ints give int64, a float
// float32 (torch's default dtype) and bools bool.
func opTensorLiteral(c *opCall) (value, error) {
	if err := c.bind("data", "dtype=None", "device=None", "requires_grad=False"); err != nil {
		return nil, err
	}
	var shape []int64
	var leaves []value
	var walk func(v value, depth int) error
	walk = func(v value, depth int) error {
		items, isList := listItems(v)
		if !isList {
			if depth != len(shape) {
				return c.errf("the nested lists are not rectangular")
			}
			switch v.(type) {
			case int64, float64, bool, *dynInt, *dynFloat:
				leaves = append(leaves, v)
				return nil
			}
			return c.errf("an element is a %s, not a number known at import", typeName(v))
		}
		if depth == len(shape) {
			if len(leaves) > 0 {
				return c.errf("the nested lists are not rectangular")
			}
			shape = append(shape, int64(len(items)))
		} else if depth > len(shape) || shape[depth] != int64(len(items)) {
			return c.errf("the nested lists are not rectangular")
		}
		for _, it := range items {
			if err := walk(it, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(c.bound[0], 0); err != nil {
		return nil, err
	}
	dt := canon.Bool
	for _, l := range leaves {
		switch l.(type) {
		case float64, *dynFloat:
			dt = canon.Float32
		case int64, *dynInt:
			if dt == canon.Bool {
				dt = canon.Int64
			}
		}
	}
	if code, ok := c.bound[1].(int64); ok {
		given, known := scalarTypes[code]
		if !known {
			return nil, c.errf("dtype code %d is not supported", code)
		}
		dt = given
	} else if _, none := c.bound[1].(noneVal); !none {
		return nil, c.errf("dtype is a %s", typeName(c.bound[1]))
	}
	if shape == nil {
		shape = []int64{}
	}
	if hasDynFloat(leaves) {
		return runTimeFloatTensorLiteral(c, leaves, shape, dt)
	}
	if hasDynInt(leaves) {
		return runTimeTensorLiteral(c, leaves, shape, dt)
	}
	if err := c.b().a.charge("a tensor literal", int64(len(leaves)*dt.Size())); err != nil {
		return nil, err
	}
	t := &canon.Tensor{DType: dt, Shape: shape, Data: make([]byte, 0, len(leaves)*dt.Size())}
	for _, l := range leaves {
		var f float64
		switch x := l.(type) {
		case int64:
			if dt == canon.Int64 { // exact beyond 2^53
				t.Data = binary.LittleEndian.AppendUint64(t.Data, uint64(x))
				continue
			}
			f = float64(x)
		case float64:
			f = x
		case bool:
			if x {
				f = 1
			}
		}
		if dt == canon.Bool && f != 0 {
			f = 1
		}
		k, err := scalarAs(f, dt)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		t.Data = append(t.Data, k.Data...)
	}
	return &tensorVal{konst: t}, nil
}
