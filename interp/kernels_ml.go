package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the ai.onnx.ml ops, following ONNX Runtime's CPU kernels.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"Binarizer":             computesF64(withOp(runBinarizer)),
		"ArrayFeatureExtractor": computesF64(fixed(runArrayFeatureExtractor)),
		"LabelEncoder":          computesF64(buildLabelEncoder),
	})
}

func runBinarizer(x *exec, op *canon.Binarizer) error {
	in := x.in(0)
	shape := append([]int{}, in.shape...)
	switch {
	case in.isFloat() && in.dt == canon.Float32:
		out := x.newF(shape)
		for i, v := range in.f {
			out.f[i] = float32(b2i(v > op.Threshold))
		}
		x.set(0, out)
	case in.isF64():
		t := float64(op.Threshold)
		out := x.newD(shape)
		for i, v := range in.d {
			out.d[i] = float64(b2i(v > t))
		}
		x.set(0, out)
	default:
		return fmt.Errorf("input is %s; Binarizer computes on float32 and float64", in.dt)
	}
	return nil
}

func runArrayFeatureExtractor(x *exec) error {
	in, idx := x.in(0), x.in(1)
	if len(in.shape) == 0 {
		return fmt.Errorf("input X is a scalar; ArrayFeatureExtractor selects along the last axis")
	}
	if idx.dt != canon.Int64 {
		return fmt.Errorf("Y is %s; ArrayFeatureExtractor's indices are int64", idx.dt)
	}
	last := in.shape[len(in.shape)-1]
	for _, k := range idx.i {
		if k < 0 || k >= int64(last) {
			return fmt.Errorf("index %d in Y is outside [0, %d), the size of X's last axis", k, last)
		}
	}
	rows := 1
	for _, d := range in.shape[:len(in.shape)-1] {
		rows *= d
	}
	count := len(idx.i)
	shape := append(append([]int{}, in.shape[:len(in.shape)-1]...), count)
	if len(in.shape) == 1 {
		shape = []int{1, count}
	}
	var out *tensor
	if in.dt == canon.String {
		var extra int64
		for r := range rows {
			for _, k := range idx.i {
				extra += int64(len(in.s[r*last+int(k)]))
			}
		}
		out = x.newS(shape, extra)
	} else {
		out = x.newLike(in, shape)
	}
	for r := range rows {
		src, dst := r*last, r*count
		for j, k := range idx.i {
			switch {
			case in.dt == canon.String:
				out.s[dst+j] = in.s[src+int(k)]
			case in.isFloat():
				out.f[dst+j] = in.f[src+int(k)]
			case in.isF64():
				out.d[dst+j] = in.d[src+int(k)]
			default:
				out.i[dst+j] = in.i[src+int(k)]
			}
		}
	}
	x.set(0, out)
	return nil
}

// labelTable is a LabelEncoder's table ready for lookups: key → position
// in the values.
type labelTable struct {
	op  *canon.LabelEncoder
	pos map[string]int
	// The values and the default in the storage of the output's dtype.
	s []string
	f []float32
	d []float64
	i []int64
}

func newLabelTable(op *canon.LabelEncoder) (*labelTable, error) {
	if err := op.Validate(); err != nil {
		return nil, err
	}
	keys, err := op.KeyStrings()
	if err != nil {
		return nil, err
	}
	t := &labelTable{op: op, pos: make(map[string]int, len(keys))}
	for i, k := range keys {
		t.pos[k] = i
	}
	// The values, then the default at the end.
	for _, v := range []*canon.Tensor{op.Values, op.Default} {
		switch dt := v.DType; {
		case dt == canon.String:
			t.s = append(t.s, v.Strings...)
		case dt.IsFloat():
			vals, err := v.Float64s()
			if err != nil {
				return nil, err
			}
			for _, f := range vals {
				if dt == canon.Float32 {
					t.f = append(t.f, float32(f))
				} else {
					t.d = append(t.d, f)
				}
			}
		default:
			vals, err := v.Int64s()
			if err != nil {
				return nil, err
			}
			t.i = append(t.i, vals...)
		}
	}
	return t, nil
}

func buildLabelEncoder(op canon.Op) kernel {
	t, err := newLabelTable(op.(*canon.LabelEncoder))
	return func(x *exec) error {
		if err != nil {
			return err
		}
		return t.run(x)
	}
}

func (t *labelTable) run(x *exec) error {
	in := x.in(0)
	if in.dt != t.op.Keys.DType {
		return fmt.Errorf("input is %s but the keys are %s", in.dt, t.op.Keys.DType)
	}
	n := len(in.shape)
	shape := append(make([]int, 0, n), in.shape...)
	size := 1
	for _, d := range shape {
		size *= d
	}
	def := int(t.op.Values.NumElements())
	at := make([]int, size)
	for e := range at {
		var key string
		switch {
		case in.dt == canon.String:
			key = canon.MLKey(canon.String, in.s[e], 0, 0)
		case in.isFloat():
			key = canon.MLKey(in.dt, "", float64(in.f[e]), 0)
		case in.isF64():
			key = canon.MLKey(in.dt, "", in.d[e], 0)
		default:
			key = canon.MLKey(in.dt, "", 0, in.i[e])
		}
		p, ok := t.pos[key]
		if !ok {
			p = def
		}
		at[e] = p
	}
	var out *tensor
	switch dt := t.op.Values.DType; {
	case dt == canon.String:
		var extra int64
		for _, p := range at {
			extra += int64(len(t.s[p]))
		}
		out = x.newS(shape, extra)
		for e, p := range at {
			out.s[e] = t.s[p]
		}
	case dt == canon.Float32:
		out = x.newF(shape)
		for e, p := range at {
			out.f[e] = t.f[p]
		}
	case dt == canon.Float64:
		out = x.newD(shape)
		for e, p := range at {
			out.d[e] = t.d[p]
		}
	default:
		out = x.newI(dt, shape)
		for e, p := range at {
			out.i[e] = t.i[p]
		}
	}
	x.set(0, out)
	return nil
}
