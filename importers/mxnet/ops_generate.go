package mxnetimport

import (
	"encoding/binary"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The generate family: depth_to_space, space_to_depth, SequenceReverse,
// _arange, _full/_zeros/_ones and _eye. MXNet 1.x's symbol API has no
// nonzero or unique.

func init() {
	optable.Add(&converters, map[string]mxOp{
		"depth_to_space":  {convBlocks(true), []string{"DepthToSpace"}},
		"space_to_depth":  {convBlocks(false), []string{"SpaceToDepth"}},
		"SequenceReverse": {convSequenceReverse, []string{"ReverseSequence"}},
		"_arange":         {convArange, []string{"Range"}},
		"_full":           {convFull(math.NaN()), []string{"ConstantOfShape"}},
		"_zeros":          {convFull(0), []string{"ConstantOfShape"}},
		"_ones":           {convFull(1), []string{"ConstantOfShape"}},
		"_eye":            {convEye, []string{"EyeLike", "ConstantOfShape"}},
	})
	optable.Add(&lacks, map[string]string{
		"NonZero": "MXNet 1.x's symbol API has no nonzero (only the numpy interface's _npx_nonzero, not read)",
		"Unique":  "MXNet 1.x's symbol API has no unique (only the numpy interface's _np_unique, not read)",
	})
}

// genScalar is a tensor of dtype dt and the given shape holding v
// everywhere (one element for the shapes used here).
func genScalar(c *nodeCtx, name string, dt canon.DType, shape []int64, v float64) (*canon.Tensor, error) {
	switch dt {
	case canon.Float32:
		return canon.NewFloat32Tensor(name, shape, []float32{float32(v)}), nil
	case canon.Int64:
		return canon.NewInt64Tensor(name, shape, []int64{int64(v)}), nil
	case canon.Float64:
		b := make([]byte, 8)
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
		return &canon.Tensor{Name: name, DType: dt, Shape: shape, Data: b}, nil
	case canon.Int32:
		b := make([]byte, 4)
		binary.LittleEndian.PutUint32(b, uint32(int32(v)))
		return &canon.Tensor{Name: name, DType: dt, Shape: shape, Data: b}, nil
	}
	return nil, c.errf("dtype %s is not supported here (float32, float64, int32 or int64)", dt)
}

// genDType reads a dtype attribute (default float32).
func genDType(c *nodeCtx) (canon.DType, error) {
	switch s := c.a.str("dtype", "float32"); s {
	case "float32":
		return canon.Float32, nil
	case "float64":
		return canon.Float64, nil
	case "int32":
		return canon.Int32, nil
	case "int64":
		return canon.Int64, nil
	default:
		return canon.Undefined, c.errf("dtype %s is not supported (float32, float64, int32 or int64)", s)
	}
}

func convBlocks(toSpace bool) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		if err := c.a.required("block_size"); err != nil {
			return nil, err
		}
		bs, err := c.a.int("block_size", 1)
		if err != nil {
			return nil, err
		}
		x, err := b.in(c, 0)
		if err != nil {
			return nil, err
		}
		var op canon.Op = &canon.SpaceToDepth{Blocksize: bs}
		if toSpace {
			op = &canon.DepthToSpace{Blocksize: bs} // MXNet's order is DCR
		}
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, op, []string{x}, out)
	}
}

// convSequenceReverse: axis 0 is time, axis 1 batch. Without
// use_sequence_length every sequence is the whole time axis.
func convSequenceReverse(b *builder, c *nodeCtx) ([]string, error) {
	if ax, err := c.a.int("axis", 0); err != nil {
		return nil, err
	} else if ax != 0 {
		return nil, c.errf("axis is %d; SequenceReverse reverses axis 0 only", ax)
	}
	useLen, err := c.a.bool("use_sequence_length", false)
	if err != nil {
		return nil, err
	}
	x, err := b.in(c, 0)
	if err != nil {
		return nil, err
	}
	var lens string
	if useLen {
		l, err := b.in(c, 1)
		if err != nil {
			return nil, err
		}
		vi := b.vals[l]
		switch {
		case vi.Const != nil:
			v, err := vi.Const.Float64s()
			if err != nil {
				return nil, c.errf("sequence_length %s: %v", l, err)
			}
			iv := make([]int64, len(v))
			for i, f := range v {
				iv[i] = int64(f)
			}
			lens = b.constant(canon.NewInt64Tensor(c.n.Name+"_lens", []int64{int64(len(iv))}, iv))
		case vi.DType == canon.Int64:
			lens = l
		default:
			return nil, c.errf("sequence_length %s is %s and computed at run time; only int64 lengths are supported", l, vi.DType)
		}
	} else {
		s, err := b.staticShape(x, c.n.Name, "SequenceReverse without sequence lengths")
		if err != nil {
			return nil, err
		}
		if len(s) < 2 {
			return nil, c.errf("input %s has shape %v; SequenceReverse needs rank >= 2", x, s)
		}
		iv := make([]int64, s[1])
		for i := range iv {
			iv[i] = s[0]
		}
		lens = b.constant(canon.NewInt64Tensor(c.n.Name+"_lens", []int64{s[1]}, iv))
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.ReverseSequence{BatchAxis: 1, TimeAxis: 0}, []string{x, lens}, out)
}

func convArange(b *builder, c *nodeCtx) ([]string, error) {
	dt, err := genDType(c)
	if err != nil {
		return nil, err
	}
	start, err := c.a.float("start", 0)
	if err != nil {
		return nil, err
	}
	stop := start
	if s := c.a.str("stop", "None"); s != "None" {
		if stop, err = c.a.float("stop", 0); err != nil {
			return nil, err
		}
	} else {
		start = 0 // arange(n) counts from 0 to n
	}
	step, err := c.a.float("step", 1)
	if err != nil {
		return nil, err
	}
	if r, err := c.a.int("repeat", 1); err != nil {
		return nil, err
	} else if r != 1 {
		return nil, c.errf("repeat is %d; only 1 is supported", r)
	}
	if c.a.str("infer_range", "False") == "True" {
		return nil, c.errf("infer_range=True is not supported")
	}
	var ins []string
	for _, p := range []struct {
		n string
		v float64
	}{{"_start", start}, {"_limit", stop}, {"_delta", step}} {
		t, err := genScalar(c, c.n.Name+p.n, dt, []int64{}, p.v)
		if err != nil {
			return nil, err
		}
		ins = append(ins, b.constant(t))
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.Range{}, ins, out)
}

// convFull reads _full (fill NaN: from the value attribute), _zeros, _ones.
func convFull(fill float64) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		dt, err := genDType(c)
		if err != nil {
			return nil, err
		}
		shape, err := c.a.ints("shape", []int64{})
		if err != nil {
			return nil, err
		}
		v := fill
		if math.IsNaN(fill) {
			if v, err = c.a.float("value", 0); err != nil {
				return nil, err
			}
		}
		val, err := genScalar(c, "", dt, []int64{1}, v)
		if err != nil {
			return nil, err
		}
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, &canon.ConstantOfShape{Value: val, Shape: shape}, nil, out)
	}
}

func convEye(b *builder, c *nodeCtx) ([]string, error) {
	dt, err := genDType(c)
	if err != nil {
		return nil, err
	}
	n, err := c.a.int("N", 0)
	if err != nil {
		return nil, err
	}
	m, err := c.a.int("M", 0)
	if err != nil {
		return nil, err
	}
	if m == 0 {
		m = n
	}
	k, err := c.a.int("k", 0)
	if err != nil {
		return nil, err
	}
	zero, err := genScalar(c, "", dt, []int64{1}, 0)
	if err != nil {
		return nil, err
	}
	like := b.fresh(c.n.Name + "_shape")
	if err := b.emit(like, &canon.ConstantOfShape{Value: zero, Shape: []int64{n, m}}, nil, like); err != nil {
		return nil, err
	}
	out := b.fresh(c.n.Name)
	return []string{out}, b.emit(out, &canon.EyeLike{K: k, DType: dt}, []string{like}, out)
}
