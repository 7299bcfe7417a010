package canon

import (
	"math"
	"math/rand"
	"testing"
)

// TestInferNodeNeverPanics feeds random attributes and input types, many of
// them nonsense (zero strides, negative and huge dims, bad axes, constants
// that disagree with their types), to every op kind: InferNode must return
// a result or an error, never panic.
func TestInferNodeNeverPanics(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	pick := []int64{0, 1, 2, 3, -1, -2, 5, 1 << 40, math.MaxInt64, math.MinInt64}
	num := func() int64 { return pick[r.Intn(len(pick))] }
	list := func() []int64 {
		if r.Intn(6) == 0 {
			return nil
		}
		v := make([]int64, r.Intn(4))
		for i := range v {
			v[i] = num()
		}
		return v
	}
	info := func() ValueInfo {
		if r.Intn(8) == 0 {
			return ValueInfo{DType: DType(r.Intn(15))}
		}
		dims := list()
		if r.Intn(3) == 0 {
			dims = []int64{1, int64(r.Intn(4)), int64(r.Intn(9)), int64(r.Intn(9))}
		}
		v := vi(DType(r.Intn(15)), dims...)
		if r.Intn(3) == 0 {
			vals := list()
			v.Const = NewInt64Tensor("c", nil, vals)
			if r.Intn(2) == 0 {
				v.Const.Shape = list() // a constant that disagrees with its type
			}
		}
		return v
	}
	ops := []func() Op{
		func() Op { return &Conv{list(), list(), list(), list(), num()} },
		func() Op { return &ConvTranspose{list(), list(), list(), list(), list(), num()} },
		func() Op { return &BatchNorm{Epsilon: 1e-5} },
		func() Op { return &Linear{} },
		func() Op { return &MatMul{} },
		func() Op { return &Binary{Fn: BinaryFn(r.Intn(6))} },
		func() Op { return &Unary{Fn: UnaryFn(r.Intn(8))} },
		func() Op { return &PRelu{} },
		func() Op { return &Softmax{Axis: num()} },
		func() Op { return &MaxPool{list(), list(), list(), list(), list(), r.Intn(2) == 0, false} },
		func() Op { return &AveragePool{list(), list(), list(), list(), list(), r.Intn(2) == 0, false} },
		func() Op { return &GlobalAveragePool{} },
		func() Op { return &Reduce{Fn: ReduceMean, Axes: list(), KeepDims: r.Intn(2) == 0} },
		func() Op { return &Concat{Axis: num()} },
		func() Op { return &Split{Axis: num(), Sizes: list()} },
		func() Op { return &Reshape{Shape: list(), AllowZero: r.Intn(2) == 0} },
		func() Op { return &Flatten{Axis: num()} },
		func() Op { return &Transpose{Perm: list()} },
		func() Op { return &Squeeze{Axes: list()} },
		func() Op { return &Unsqueeze{Axes: list()} },
		func() Op { return &Pad{Mode: PadMode(r.Intn(4)), PadsBegin: list(), PadsEnd: list()} },
		func() Op { return &Slice{list(), list(), list(), list()} },
		func() Op { return &Gather{Axis: num()} },
		func() Op { return &ShapeOf{Start: num(), End: num()} },
		func() Op { return &Constant{Value: NewInt64Tensor("k", list(), list())} },
		func() Op { return &Identity{} },
		func() Op { return &Dropout{} },
		func() Op {
			return &Resize{Scales: []float32{float32(num()), 2}[:r.Intn(3)], Sizes: list(), Nearest: NearestMode(r.Intn(5))}
		},
	}
	for i := 0; i < 20000; i++ {
		op := ops[r.Intn(len(ops))]()
		nin, nout := r.Intn(4), 1+r.Intn(3)
		n := node(op, nin, nout)
		in := make([]ValueInfo, nin)
		for j := range in {
			in[j] = info()
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("InferNode(%T %+v, %v) panicked: %v", op, op, in, p)
				}
			}()
			_, _ = InferNode(n, in)
		}()
	}
}
