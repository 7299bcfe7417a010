package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The generate family: torch.nonzero, unique (_unique2, unique_dim),
// arange, full/zeros/ones and their _like and new_ forms, eye,
// pixel_shuffle and pixel_unshuffle. Traced code passes dtype, layout,
// device and pin_memory as keywords; only dtype matters here.

// factoryTail are the keyword parameters of torch's factory functions.
var factoryTail = []string{"dtype=None", "layout=None", "device=None", "pin_memory=None"}

func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.nonzero":         entry(opNonZero, "NonZero", "Transpose"),
		"torch._unique2":        entry(opUnique2, "Unique", "Reshape"),
		"torch.unique_dim":      entry(opUniqueDim, "Unique"),
		"torch.arange":          entry(opArange, "Range", "Reshape", "Cast"),
		"torch.full":            entry(opFull("full"), "ConstantOfShape", "Concat"),
		"torch.zeros":           entry(opFull("zeros"), "ConstantOfShape", "Concat"),
		"torch.ones":            entry(opFull("ones"), "ConstantOfShape", "Concat"),
		"torch.full_like":       entry(opFull("full_like"), "ConstantOfShape", "Shape"),
		"torch.zeros_like":      entry(opFull("zeros_like"), "ConstantOfShape", "Shape"),
		"torch.ones_like":       entry(opFull("ones_like"), "ConstantOfShape", "Shape"),
		"torch.new_full":        entry(opFull("new_full"), "ConstantOfShape", "Concat"),
		"torch.new_zeros":       entry(opFull("new_zeros"), "ConstantOfShape", "Concat"),
		"torch.new_ones":        entry(opFull("new_ones"), "ConstantOfShape", "Concat"),
		"torch.eye":             entry(opEye, "ConstantOfShape", "EyeLike"),
		"torch.pixel_shuffle":   entry(opPixelShuffle, "DepthToSpace", "Reshape"),
		"torch.pixel_unshuffle": entry(opPixelUnshuffle, "SpaceToDepth", "Reshape", "Transpose"),
		"torch.device":          entry(opDevice),
	})
	optable.Add(&opLacks, map[string]string{
		"ReverseSequence": "TorchScript has no per-sequence reverse; aten::flip reverses whole axes",
	})
}

// opDevice: a device argument names where a factory puts its tensor; the
// graph has no devices, so it is kept as its name.
func opDevice(c *opCall) (value, error) {
	if err := c.bind("type"); err != nil {
		return nil, err
	}
	s, ok := c.bound[0].(string)
	if !ok {
		return nil, c.errf("the device must be a string, got %s", typeName(c.bound[0]))
	}
	return s, nil
}

// factoryDType reads a dtype argument (a ScalarType code or None: dflt).
func factoryDType(c *opCall, i int, dflt canon.DType) (canon.DType, error) {
	if c.isNone(i) {
		return dflt, nil
	}
	code, err := c.int(i)
	if err != nil {
		return 0, err
	}
	dt, ok := scalarTypes[code]
	if !ok {
		return 0, c.errf("dtype code %d is not supported (float16, bfloat16, float32, float64, uint8, int8..int64, bool)", code)
	}
	return dt, nil
}

// opNonZero: torch.nonzero is (count, rank); ONNX's NonZero is (rank, count).
func opNonZero(c *opCall) (value, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, err
	}
	nz, err := c.b().emit1(c.scope, &canon.NonZero{}, x)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Transpose{Perm: []int64{1, 0}}, nz)
}

// emptyInt64 is the empty tensor torch returns for an output of unique that
// was not asked for.
func emptyInt64() *tensorVal {
	return &tensorVal{konst: canon.NewInt64Tensor("", []int64{0}, nil)}
}

// opUnique2 is torch.unique without dim. On the CPU, sorted=False is a hash
// order, which no canonical op reproduces, so only sorted output is read.
// torch's inverse indices have the input's shape; canon's are flat.
func opUnique2(c *opCall) (value, error) {
	x, err := c.bindInput("input", "sorted=True", "return_inverse=False", "return_counts=False")
	if err != nil {
		return nil, err
	}
	sorted, err := c.bool(1)
	if err != nil {
		return nil, err
	}
	if !sorted {
		return nil, c.errf("sorted=False orders the values by a hash on the CPU, which no canonical op reproduces; use sorted=True")
	}
	inverse, err := c.bool(2)
	if err != nil {
		return nil, err
	}
	counts, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	outs, err := c.b().emit(c.scope, &canon.Unique{Sorted: true, Flatten: true}, []*tensorVal{x}, 4)
	if err != nil {
		return nil, err
	}
	res := []value{outs[0], emptyInt64(), emptyInt64()}
	if inverse {
		shape, err := c.shapeOf(x, "the input")
		if err != nil {
			return nil, err
		}
		inv, err := c.b().emit1(c.scope, &canon.Reshape{Shape: shape, AllowZero: true}, outs[2])
		if err != nil {
			return nil, err
		}
		res[1] = inv
	}
	if counts {
		res[2] = outs[3]
	}
	return &tupleVal{items: res}, nil
}

// opUniqueDim is torch.unique with dim: always sorted (lexicographically),
// with 1-D inverse indices, as canon's Unique along an axis.
func opUniqueDim(c *opCall) (value, error) {
	x, err := c.bindInput("input", "dim", "sorted=True", "return_inverse=False", "return_counts=False")
	if err != nil {
		return nil, err
	}
	d, err := indexingDim(c, 1, x)
	if err != nil {
		return nil, err
	}
	inverse, err := c.bool(3)
	if err != nil {
		return nil, err
	}
	counts, err := c.bool(4)
	if err != nil {
		return nil, err
	}
	outs, err := c.b().emit(c.scope, &canon.Unique{Sorted: true, Axis: d}, []*tensorVal{x}, 4)
	if err != nil {
		return nil, err
	}
	res := []value{outs[0], emptyInt64(), emptyInt64()}
	if inverse {
		res[1] = outs[2]
	}
	if counts {
		res[2] = outs[3]
	}
	return &tupleVal{items: res}, nil
}

// opArange reads arange(end), arange(start, end) and arange(start, end,
// step), each followed by the factory keywords. Without a dtype the result
// is int64 when every bound is an integer and float32 otherwise. Bounds
// computed at run time (tensor sizes) become Range inputs.
func opArange(c *opCall) (value, error) {
	// Traced code passes the factory arguments as keywords, so the
	// positional arguments are the bounds.
	nums := 0
	for nums < len(c.args) && nums < 3 {
		if _, ok := c.args[nums].(noneVal); ok {
			break
		}
		if _, ok := c.args[nums].(string); ok {
			break
		}
		nums++
	}
	schema := map[int][]string{1: {"end"}, 2: {"start", "end"}, 3: {"start", "end", "step"}}[nums]
	if schema == nil {
		return nil, c.errf("needs 1 to 3 bounds")
	}
	if err := c.bind(append(append([]string{}, schema...), factoryTail...)...); err != nil {
		return nil, err
	}
	bounds := []value{int64(0), nil, int64(1)}
	switch nums {
	case 1:
		bounds[1] = c.bound[0]
	case 2:
		bounds[0], bounds[1] = c.bound[0], c.bound[1]
	case 3:
		bounds = []value{c.bound[0], c.bound[1], c.bound[2]}
	}
	allInt := true
	for i, v := range bounds {
		if _, ok := v.(*dynInt); ok {
			continue
		}
		if t, ok := runTimeBound(c, v); ok {
			allInt = allInt && !c.b().info(t).DType.IsFloat()
			continue
		}
		if _, ok := v.(*dynFloat); ok {
			return nil, c.errf("bound %d is a float known only at run time: torch counts the entries as ceil((end - start) / step) in double and steps in the result's dtype, which this importer does only with float bounds known at import (or int bounds known at run time)", i)
		}
		s, ok := scalarOf(v)
		if !ok {
			return nil, c.errf("bound %d must be a number, got %s", i, typeName(v))
		}
		allInt = allInt && s.isInt
	}
	dflt := canon.Int64
	if !allInt {
		dflt = canon.Float32
	}
	dt, err := factoryDType(c, nums, dflt)
	if err != nil {
		return nil, err
	}
	if dt == canon.Bool {
		return nil, c.errf("arange of dtype bool is not defined")
	}
	ins := make([]*tensorVal, 3)
	for i, v := range bounds {
		if d, ok := v.(*dynInt); ok {
			if dt != canon.Int64 && dt != canon.Int32 {
				return nil, c.errf("a %s arange with a bound known only at run time is not supported", dt)
			}
			if ins[i], err = c.b().emit1(c.scope, &canon.Reshape{Shape: []int64{}}, d.t); err != nil {
				return nil, err
			}
			if dt == canon.Int32 { // a size fits: the cast is exact
				if ins[i], err = c.b().emit1(c.scope, &canon.Cast{To: canon.Int32}, ins[i]); err != nil {
					return nil, err
				}
			}
			continue
		}
		if t, ok := runTimeBound(c, v); ok {
			if !allInt {
				return nil, c.errf("an arange with a fractional or float bound and a bound known only at run time is not supported: torch counts the entries in float64")
			}
			if ins[i], err = scalarBound(c, t, dt); err != nil {
				return nil, err
			}
			continue
		}
		s, _ := scalarOf(v)
		if dt.IsInt() && !s.isInt && s.f != math.Trunc(s.f) {
			return nil, c.errf("an integer arange with the fractional bound %v is not supported: torch counts the entries in float64", s.f)
		}
		k, err := scalarAs(s.f, dt)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		ins[i] = &tensorVal{konst: k}
	}
	return c.b().emit1(c.scope, &canon.Range{}, ins...)
}

// opFull reads the filled factories: full(size, v), zeros(size),
// ones(size), full_like(x, v), zeros_like(x), ones_like(x),
// new_full(x, size, v), new_zeros(x, size) and new_ones(x, size).
func opFull(kind string) opHandler {
	return func(c *opCall) (value, error) {
		var schema []string
		like, newOf := false, false
		switch kind {
		case "full":
			schema = []string{"size", "fill_value"}
		case "zeros", "ones":
			schema = []string{"size"}
		case "full_like":
			schema, like = []string{"input", "fill_value"}, true
		case "zeros_like", "ones_like":
			schema, like = []string{"input"}, true
		case "new_full":
			schema, newOf = []string{"input", "size", "fill_value"}, true
		case "new_zeros", "new_ones":
			schema, newOf = []string{"input", "size"}, true
		}
		tail := append([]string{}, factoryTail...)
		if like {
			tail = append(tail, "memory_format=None")
		}
		if err := c.bind(append(append([]string{}, schema...), tail...)...); err != nil {
			return nil, err
		}
		fill := 0.0
		fillKind := 1 // an int fill: full's dtype is int64
		switch kind {
		case "ones", "ones_like", "new_ones":
			fill = 1
		case "full", "full_like", "new_full":
			v := c.bound[len(schema)-1]
			s, ok := scalarOf(v)
			if !ok {
				return nil, c.errf("fill_value must be a number known at import, got %s", typeName(v))
			}
			fill = s.f
			if _, isBool := v.(bool); isBool {
				fillKind = 0
			} else if !s.isInt {
				fillKind = 2
			}
		}
		dflt := canon.Float32
		var src *tensorVal
		if like || newOf {
			var err error
			if src, err = c.tensor(0); err != nil {
				return nil, err
			}
			dflt = c.b().info(src).DType
		} else if kind == "full" {
			dflt = [...]canon.DType{canon.Bool, canon.Int64, canon.Float32}[fillKind]
		}
		dt, err := factoryDType(c, len(schema), dflt)
		if err != nil {
			return nil, err
		}
		val, err := scalarAs(fill, dt)
		if err != nil {
			return nil, c.errf("%v", err)
		}
		val.Shape = []int64{1}
		if like {
			vi := c.b().info(src)
			if shape, ok := vi.StaticShape(); ok {
				return c.b().emit1(c.scope, &canon.ConstantOfShape{Value: val, Shape: shape}, nil)
			}
			if !vi.RankKnown {
				return nil, c.errf("the rank of the input is not known at import; give the input shape (--input-shape NAME=D1,D2,...)")
			}
			shape, err := c.b().emit1(c.scope, &canon.ShapeOf{End: math.MaxInt64}, src)
			if err != nil {
				return nil, err
			}
			out, err := c.b().emit1(c.scope, &canon.ConstantOfShape{Value: val}, shape)
			if err == nil {
				sizesLike(c.b(), out, vi)
			}
			return out, err
		}
		si := 0
		if newOf {
			si = 1
		}
		if items, ok := listItems(c.bound[si]); ok && hasDynInt(items) {
			return dynamicFull(c, items, val)
		}
		size, err := c.ints(si, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range size {
			if d < 0 {
				return nil, c.errf("size %v has a negative entry", size)
			}
		}
		return c.b().emit1(c.scope, &canon.ConstantOfShape{Value: val, Shape: size}, nil)
	}
}

// opEye: eye(n) or eye(n, m) is EyeLike of an n×m tensor.
func opEye(c *opCall) (value, error) {
	nums := 1
	if len(c.args) > 1 {
		if _, ok := toInt(c.args[1]); ok {
			nums = 2
		}
	}
	schema := []string{"n"}
	if nums == 2 {
		schema = append(schema, "m")
	}
	if err := c.bind(append(schema, factoryTail...)...); err != nil {
		return nil, err
	}
	n, err := c.int(0)
	if err != nil {
		return nil, err
	}
	m := n
	if nums == 2 {
		if m, err = c.int(1); err != nil {
			return nil, err
		}
	}
	if n < 0 || m < 0 {
		return nil, c.errf("sizes %d and %d must be >= 0", n, m)
	}
	dt, err := factoryDType(c, nums, canon.Float32)
	if err != nil {
		return nil, err
	}
	zero := canon.NewFloat32Tensor("", []int64{1}, []float32{0})
	shaped, err := c.b().emit1(c.scope, &canon.ConstantOfShape{Value: zero, Shape: []int64{n, m}}, nil)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.EyeLike{DType: dt}, shaped)
}

// blockArgs reads (input, factor) of the pixel shuffles: a 4-D input.
func blockArgs(c *opCall, param string) (*tensorVal, int64, error) {
	x, err := c.bindInput("input", param)
	if err != nil {
		return nil, 0, err
	}
	r, err := c.int(1)
	if err != nil {
		return nil, 0, err
	}
	if r < 1 {
		return nil, 0, c.errf("%s is %d, must be >= 1", param, r)
	}
	if rank, err := c.rankOf(x, "the input"); err != nil {
		return nil, 0, err
	} else if rank < 3 {
		return nil, 0, c.errf("a rank-%d input is not supported (want (*, C, H, W))", rank)
	}
	return x, r, nil
}

// opPixelShuffle is DepthToSpace in CRD order.
func opPixelShuffle(c *opCall) (value, error) {
	x, r, err := blockArgs(c, "upscale_factor")
	if err != nil {
		return nil, err
	}
	return foldedBatch(c, x, func(x4 *tensorVal) (*tensorVal, error) {
		return c.b().emit1(c.scope, &canon.DepthToSpace{Blocksize: r, CRD: true}, x4)
	})
}

// opPixelUnshuffle: torch puts channel c's block entries together
// (c·r² + i·r + j); SpaceToDepth puts the blocks outermost ((i·r + j)·C +
// c), so its channels are regrouped by a reshape, a transpose and a reshape.
func opPixelUnshuffle(c *opCall) (value, error) {
	x, r, err := blockArgs(c, "downscale_factor")
	if err != nil {
		return nil, err
	}
	return foldedBatch(c, x, func(x4 *tensorVal) (*tensorVal, error) { return pixelUnshuffle(c, x4, r) })
}

func pixelUnshuffle(c *opCall, x *tensorVal, r int64) (*tensorVal, error) {
	shape, err := c.shapeOf(x, "the input")
	if err != nil {
		return nil, err
	}
	ch, h, w := shape[1], shape[2], shape[3]
	if h%r != 0 || w%r != 0 {
		return nil, c.errf("height %d and width %d must be multiples of downscale_factor %d", h, w, r)
	}
	s2d, err := c.b().emit1(c.scope, &canon.SpaceToDepth{Blocksize: r}, x)
	if err != nil {
		return nil, err
	}
	if r == 1 || ch == 1 {
		return s2d, nil
	}
	split, err := c.b().emit1(c.scope, &canon.Reshape{Shape: []int64{shape[0], r * r, ch, h / r, w / r}, AllowZero: true}, s2d)
	if err != nil {
		return nil, err
	}
	t, err := c.b().emit1(c.scope, &canon.Transpose{Perm: []int64{0, 2, 1, 3, 4}}, split)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Reshape{Shape: []int64{shape[0], ch * r * r, h / r, w / r}, AllowZero: true}, t)
}

// dynamicFull fills a shape mixing static ints and sizes known only at
// run time (torch.zeros(x.size(0), 3)): the shape is built by Concat and
// given to ConstantOfShape as its input.
func dynamicFull(c *opCall, items []value, val *canon.Tensor) (value, error) {
	b := c.b()
	pieces := make([]*tensorVal, len(items))
	syms := make([]string, len(items))
	for i, it := range items {
		if d, ok := it.(*dynInt); ok {
			pieces[i], syms[i] = d.t, d.sym
			continue
		}
		n, ok := toInt(it)
		if !ok || n < 0 {
			return nil, c.errf("size element %d is a %s, not a size", i, typeName(it))
		}
		pieces[i] = &tensorVal{konst: canon.NewInt64Tensor("", []int64{1}, []int64{n})}
	}
	shape, err := b.emit1(c.scope, &canon.Concat{Axis: 0}, pieces...)
	if err != nil {
		return nil, err
	}
	out, err := b.emit1(c.scope, &canon.ConstantOfShape{Value: val}, shape)
	if err != nil {
		return nil, err
	}
	knownSizes(b, out, pieces)
	b.syms[out.name] = syms
	return out, nil
}
