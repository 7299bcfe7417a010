package canon

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// vi builds a value type; -1 is an unknown dim.
func vi(dt DType, dims ...int64) ValueInfo {
	ds := make([]Dim, len(dims))
	for i, d := range dims {
		ds[i] = Dim{Size: d}
	}
	return ValueInfo{DType: dt, Shape: ds, RankKnown: true}
}

func f32(dims ...int64) ValueInfo { return vi(Float32, dims...) }
func i64(dims ...int64) ValueInfo { return vi(Int64, dims...) }

// withParam names dim i symbolically.
func withParam(v ValueInfo, i int, p string) ValueInfo {
	v.Shape = cloneDims(v.Shape)
	v.Shape[i] = Dim{Size: -1, Param: p}
	return v
}

func constI64(shape []int64, v ...int64) ValueInfo {
	t := NewInt64Tensor("c", shape, v)
	info := vi(Int64, t.Shape...)
	info.Const = t
	return info
}

// node builds a node with inputs in0, in1, ... and outputs y0, y1, ...
func node(op Op, nin, nout int) *Node {
	n := &Node{Name: "n1", Op: op}
	for i := 0; i < nin; i++ {
		n.Inputs = append(n.Inputs, fmt.Sprintf("in%d", i))
	}
	for i := 0; i < nout; i++ {
		n.Outputs = append(n.Outputs, fmt.Sprintf("y%d", i))
	}
	return n
}

func show(v ValueInfo) string {
	s := v.DType.String() + fmtShape(v)
	if v.Const != nil {
		x, _ := v.Const.Int64s()
		s += fmt.Sprintf("=%v", x)
	}
	return s
}

func conv2d(s, d, pb, pe []int64, g int64) *Conv {
	return &Conv{Strides: s, Dilations: d, PadsBegin: pb, PadsEnd: pe, Group: g}
}

func ints(v ...int64) []int64 { return v }

var big = int64(1) << 62

type inferCase struct {
	name string
	op   Op
	in   []ValueInfo
	nout int    // outputs; 0 means 1
	want string // outputs joined by ", ", or an error substring after "ERR "
}

var inferCases = []inferCase{
	// Conv
	{"conv basic", conv2d(ints(2, 2), ints(1, 1), ints(1, 1), ints(1, 1), 1), []ValueInfo{f32(1, 3, 224, 224), f32(8, 3, 3, 3)}, 0, "f32[1 8 112 112]"},
	{"conv bias", conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 1), []ValueInfo{f32(1, 3, 5, 5), f32(8, 3, 3, 3), f32(8)}, 0, "f32[1 8 3 3]"},
	{"conv bias wrong", conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 1), []ValueInfo{f32(1, 3, 5, 5), f32(8, 3, 3, 3), f32(7)}, 0, "ERR bias B has 7 entries but the node has 8 output channels"},
	{"conv asymmetric 1d", conv2d(ints(2), ints(2), ints(1), ints(0), 1), []ValueInfo{f32(1, 2, 7), f32(4, 2, 3)}, 0, "f32[1 4 2]"},
	{"conv asymmetric 2d", conv2d(ints(2, 2), ints(1, 1), ints(0, 2), ints(1, 0), 1), []ValueInfo{f32(1, 1, 8, 8), f32(1, 1, 3, 3)}, 0, "f32[1 1 4 4]"},
	{"conv group", conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 2), []ValueInfo{f32(1, 4, 8, 8), f32(8, 2, 3, 3)}, 0, "f32[1 8 6 6]"},
	{"conv depthwise dilated", conv2d(ints(1, 1), ints(2, 2), ints(2, 2), ints(2, 2), 16), []ValueInfo{f32(1, 16, 9, 9), f32(16, 1, 3, 3)}, 0, "f32[1 16 9 9]"},
	{"conv 3d", &Conv{Strides: ints(1, 2, 2), Dilations: ints(1, 1, 1), PadsBegin: ints(0, 0, 0), PadsEnd: ints(0, 0, 0), Group: 1}, []ValueInfo{f32(2, 3, 4, 9, 9), f32(5, 3, 2, 3, 3)}, 0, "f32[2 5 3 4 4]"},
	{"conv unknown dims", conv2d(ints(1, 1), ints(1, 1), ints(1, 1), ints(1, 1), 1), []ValueInfo{withParam(f32(-1, 3, -1, 10), 0, "batch"), f32(8, 3, 3, 3)}, 0, "f32[batch 8 ? 10]"},
	{"conv unknown rank", conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 1), []ValueInfo{{DType: Float32}, f32(8, 3, 3, 3)}, 0, "f32[? 8 ? ?]"},
	{"conv channels", conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 2), []ValueInfo{f32(1, 3, 8, 8), f32(8, 2, 3, 3)}, 0, `ERR node "n1" (Conv): input X has 3 channels but W expects 4 (W shape [8 2 3 3], group 2)`},
	{"conv group divides out", conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 2), []ValueInfo{f32(1, 4, 8, 8), f32(7, 2, 3, 3)}, 0, "ERR W has 7 output channels"},
	{"conv attr len", conv2d(ints(1), ints(1), ints(0), ints(0), 1), []ValueInfo{f32(1, 3, 8, 8), f32(8, 3, 3, 3)}, 0, `ERR node "n1" (Conv): Strides has 1 values [1], want 2`},
	{"conv empty attrs", conv2d(nil, nil, nil, nil, 1), []ValueInfo{f32(1, 3, 8, 8), f32(8, 3, 3, 3)}, 0, "ERR Strides has 0 values [], want 2"},
	{"conv zero stride", conv2d(ints(0, 1), ints(1, 1), ints(0, 0), ints(0, 0), 1), []ValueInfo{f32(1, 3, 8, 8), f32(8, 3, 3, 3)}, 0, "ERR Strides [0 1] has 0; every entry must be >= 1"},
	{"conv group 0", conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 0), []ValueInfo{f32(1, 3, 8, 8), f32(8, 3, 3, 3)}, 0, "ERR Group is 0"},
	{"conv kernel too big", conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 1), []ValueInfo{f32(1, 3, 2, 8), f32(8, 3, 3, 3)}, 0, "ERR spatial axis 0: kernel 3"},
	{"conv rank", conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 1), []ValueInfo{f32(3, 8, 8), f32(8, 3, 3, 3)}, 0, "ERR input X has rank 3"},
	{"conv overflow", conv2d(ints(1, 1), ints(1, 1), ints(big, big), ints(big, big), 1), []ValueInfo{f32(1, 3, big, 8), f32(8, 3, 3, 3)}, 0, "ERR overflows int64"},
	{"conv dtype", conv2d(ints(1, 1), ints(1, 1), ints(0, 0), ints(0, 0), 1), []ValueInfo{f32(1, 3, 8, 8), vi(Float16, 8, 3, 3, 3)}, 0, "ERR input X is f32 but W is f16"},

	// ConvTranspose: C_out = W.shape[1]*group; out = s*(in-1) + op + (k-1)*d+1 - pb - pe
	{"deconv groups outpad", &ConvTranspose{Strides: ints(2, 2), Dilations: ints(1, 1), PadsBegin: ints(1, 1), PadsEnd: ints(1, 1), OutputPadding: ints(1, 1), Group: 2},
		[]ValueInfo{f32(1, 4, 5, 5), f32(4, 3, 3, 3)}, 0, "f32[1 6 10 10]"},
	{"deconv dilated asym", &ConvTranspose{Strides: ints(3, 1), Dilations: ints(2, 1), PadsBegin: ints(0, 1), PadsEnd: ints(2, 0), OutputPadding: ints(1, 0), Group: 1},
		[]ValueInfo{f32(1, 2, 4, 4), f32(2, 5, 3, 2)}, 0, "f32[1 5 13 4]"},
	{"deconv channels", &ConvTranspose{Strides: ints(1, 1), Dilations: ints(1, 1), PadsBegin: ints(0, 0), PadsEnd: ints(0, 0), OutputPadding: ints(0, 0), Group: 1},
		[]ValueInfo{f32(1, 3, 5, 5), f32(4, 3, 3, 3)}, 0, "ERR input X has 3 channels but W expects 4"},
	{"deconv bad outpad", &ConvTranspose{Strides: ints(2, 2), Dilations: ints(1, 1), PadsBegin: ints(0, 0), PadsEnd: ints(0, 0), OutputPadding: ints(2, 0), Group: 1},
		[]ValueInfo{f32(1, 3, 5, 5), f32(3, 3, 3, 3)}, 0, "ERR OutputPadding [2 0]: 2 on axis 0 must be smaller than the stride"},
	{"deconv crop all", &ConvTranspose{Strides: ints(1), Dilations: ints(1), PadsBegin: ints(2), PadsEnd: ints(2), OutputPadding: ints(0), Group: 1},
		[]ValueInfo{f32(1, 3, 1), f32(3, 3, 3)}, 0, "ERR pads 2+2 crop the whole output of size 3"},

	// Pools
	{"maxpool floor", &MaxPool{Kernel: ints(3, 3), Strides: ints(2, 2), Dilations: ints(1, 1), PadsBegin: ints(0, 0), PadsEnd: ints(0, 0)}, []ValueInfo{f32(1, 1, 6, 6)}, 0, "f32[1 1 2 2]"},
	{"maxpool ceil", &MaxPool{Kernel: ints(3, 3), Strides: ints(2, 2), Dilations: ints(1, 1), PadsBegin: ints(0, 0), PadsEnd: ints(0, 0), CeilMode: true}, []ValueInfo{f32(1, 1, 6, 6)}, 0, "f32[1 1 3 3]"},
	// ceil would give 4, but the 4th window would start in the right padding.
	{"maxpool ceil drops last", &MaxPool{Kernel: ints(2), Strides: ints(2), Dilations: ints(1), PadsBegin: ints(1), PadsEnd: ints(1), CeilMode: true}, []ValueInfo{f32(1, 1, 5)}, 0, "f32[1 1 3]"},
	{"maxpool ceil exact", &MaxPool{Kernel: ints(2, 2), Strides: ints(2, 2), Dilations: ints(1, 1), PadsBegin: ints(0, 0), PadsEnd: ints(0, 0), CeilMode: true}, []ValueInfo{f32(1, 1, 8, 7)}, 0, "f32[1 1 4 4]"},
	{"avgpool dilated", &AveragePool{Kernel: ints(3), Strides: ints(1), Dilations: ints(2), PadsBegin: ints(0), PadsEnd: ints(0)}, []ValueInfo{f32(1, 2, 7)}, 0, "f32[1 2 3]"},
	{"avgpool ceil", &AveragePool{Kernel: ints(3, 3), Strides: ints(2, 2), Dilations: ints(1, 1), PadsBegin: ints(1, 1), PadsEnd: ints(1, 1), CeilMode: true}, []ValueInfo{f32(1, 2, 56, 55)}, 0, "f32[1 2 29 28]"},
	{"pool zero kernel", &MaxPool{Kernel: ints(0, 2), Strides: ints(1, 1), Dilations: ints(1, 1), PadsBegin: ints(0, 0), PadsEnd: ints(0, 0)}, []ValueInfo{f32(1, 1, 6, 6)}, 0, "ERR Kernel [0 2] has 0"},
	{"pool no dilations", &MaxPool{Kernel: ints(2, 2), Strides: ints(1, 1), PadsBegin: ints(0, 0), PadsEnd: ints(0, 0)}, []ValueInfo{f32(1, 1, 6, 6)}, 0, "ERR Kernel [2 2] and Dilations [] must have one entry per spatial axis"},
	{"global avg", &GlobalAveragePool{}, []ValueInfo{withParam(f32(-1, 8, 7, 7), 0, "N")}, 0, "f32[N 8 1 1]"},
	{"global max", &GlobalMaxPool{}, []ValueInfo{f32(2, 8, 7)}, 0, "f32[2 8 1]"},

	// ReduceMean
	{"reduce all", &Reduce{Fn: ReduceMean}, []ValueInfo{f32(2, 3, 4)}, 0, "f32[]"},
	{"reduce all keep", &Reduce{Fn: ReduceMean, KeepDims: true}, []ValueInfo{f32(2, 3, 4)}, 0, "f32[1 1 1]"},
	{"reduce axes", &Reduce{Fn: ReduceMean, Axes: ints(-1, 1), KeepDims: true}, []ValueInfo{f32(2, 3, 4)}, 0, "f32[2 1 1]"},
	{"reduce axes drop", &Reduce{Fn: ReduceMean, Axes: ints(2, 3)}, []ValueInfo{f32(1, 8, 7, 7)}, 0, "f32[1 8]"},
	{"reduce dup", &Reduce{Fn: ReduceMean, Axes: ints(1, -2)}, []ValueInfo{f32(2, 3, 4)}, 0, "ERR axis 1 is listed twice"},
	{"reduce range", &Reduce{Fn: ReduceMean, Axes: ints(3)}, []ValueInfo{f32(2, 3, 4)}, 0, "ERR axis 3 is out of range for input X of shape [2 3 4]"},

	// BatchNorm, Linear, MatMul
	{"bn", &BatchNorm{Epsilon: 1e-5}, []ValueInfo{f32(1, 4, 3, 3), f32(4), f32(4), f32(4), f32(4)}, 0, "f32[1 4 3 3]"},
	{"bn wrong", &BatchNorm{Epsilon: 1e-5}, []ValueInfo{f32(1, 4, 3, 3), f32(4), f32(4), f32(5), f32(4)}, 0, `ERR Mean "in3" has 5 entries but input X has 4 channels`},
	{"linear", &Linear{Alpha: 1, Beta: 1}, []ValueInfo{f32(2, 5), f32(3, 5), f32(3)}, 0, "f32[2 3]"},
	{"linear K", &Linear{Alpha: 1, Beta: 1}, []ValueInfo{f32(2, 5), f32(3, 4)}, 0, "ERR input A [2 5] has 5 features but W [3 4] (layout OI) expects 4"},
	{"linear C", &Linear{Alpha: 1, Beta: 1}, []ValueInfo{f32(2, 5), f32(3, 5), f32(2, 2)}, 0, "ERR C has shape [2 2], which does not broadcast"},
	{"matmul batch", &MatMul{}, []ValueInfo{f32(2, 3, 4), f32(4, 5)}, 0, "f32[2 3 5]"},
	{"matmul broadcast", &MatMul{}, []ValueInfo{f32(2, 1, 3, 4), f32(5, 4, 6)}, 0, "f32[2 5 3 6]"},
	{"matmul vec vec", &MatMul{}, []ValueInfo{f32(4), f32(4)}, 0, "f32[]"},
	{"matmul vec mat", &MatMul{}, []ValueInfo{f32(4), f32(2, 4, 5)}, 0, "f32[2 5]"},
	{"matmul mat vec", &MatMul{}, []ValueInfo{f32(3, 4), f32(4)}, 0, "f32[3]"},
	{"matmul K", &MatMul{}, []ValueInfo{f32(3, 4), f32(5, 6)}, 0, "ERR inner dimensions 4 and 5 differ"},
	{"matmul batch mismatch", &MatMul{}, []ValueInfo{f32(2, 3, 4), f32(3, 4, 5)}, 0, "ERR batch dimensions cannot be broadcast"},

	// Elementwise and broadcasting with unknown dims
	{"add broadcast", &Binary{Fn: Add}, []ValueInfo{withParam(f32(-1, 3, 1), 0, "N"), f32(1, 4)}, 0, "f32[N 3 4]"},
	{"add unknown vs 1", &Binary{Fn: Mul}, []ValueInfo{f32(-1, 1), f32(1, 5)}, 0, "f32[? 5]"},
	{"add unknown vs 5", &Binary{Fn: Sub}, []ValueInfo{f32(-1), f32(5)}, 0, "f32[5]"},
	{"add unknown vs unknown", &Binary{Fn: Div}, []ValueInfo{withParam(f32(-1), 0, "a"), withParam(f32(-1), 0, "b")}, 0, "f32[?]"},
	{"add same param", &Binary{Fn: Add}, []ValueInfo{withParam(f32(-1), 0, "a"), withParam(f32(-1), 0, "a")}, 0, "f32[a]"},
	{"add mismatch", &Binary{Fn: Add}, []ValueInfo{f32(2, 3), f32(4)}, 0, `ERR node "n1" (Add): inputs A "in0" [2 3] and B "in1" [4] cannot be broadcast: axis -1 has [3] vs [4]`},
	{"add dtype", &Binary{Fn: Add}, []ValueInfo{f32(2), i64(2)}, 0, "ERR input A is f32 but B is i64"},
	{"add unknown rank", &Binary{Fn: Add}, []ValueInfo{{DType: Float32}, f32(2)}, 0, "f32[unknown rank]"},
	{"binary bad fn", &Binary{Fn: 9}, []ValueInfo{f32(2), f32(2)}, 0, `ERR node "n1" (Binary(fn 9)): op kind Binary(fn 9) is not a registered canonical op`},
	{"relu", &Unary{Fn: Relu}, []ValueInfo{f32(1, 2)}, 0, "f32[1 2]"},
	{"clip", NewClip(), []ValueInfo{withParam(f32(-1, 2), 0, "N")}, 0, "f32[N 2]"},
	{"leaky", &LeakyRelu{Alpha: 0.1}, []ValueInfo{f32(3)}, 0, "f32[3]"},
	{"hardsigmoid", &HardSigmoid{Alpha: 0.2, Beta: 0.5}, []ValueInfo{f32(3)}, 0, "f32[3]"},
	{"softplus", &Unary{Fn: Softplus}, []ValueInfo{withParam(f32(-1, 2), 0, "N")}, 0, "f32[N 2]"},
	{"softsign", &Unary{Fn: Softsign}, []ValueInfo{f32(2, 3)}, 0, "f32[2 3]"},
	{"elu", &Elu{Alpha: 1}, []ValueInfo{f32(4)}, 0, "f32[4]"},
	{"selu", &Selu{Alpha: SeluAlpha, Gamma: SeluGamma}, []ValueInfo{withParam(f32(-1, 5), 0, "B")}, 0, "f32[B 5]"},
	{"prelu", &PRelu{}, []ValueInfo{f32(1, 8, 4, 4), f32(8, 1, 1)}, 0, "f32[1 8 4 4]"},
	{"prelu bad", &PRelu{}, []ValueInfo{f32(1, 8, 4, 4), f32(3, 1, 1)}, 0, `ERR Slope "in1" has shape [3 1 1], which does not broadcast to input X [1 8 4 4]`},
	{"softmax", &Softmax{Axis: -1}, []ValueInfo{f32(2, 10)}, 0, "f32[2 10]"},
	{"softmax axis", &Softmax{Axis: 2}, []ValueInfo{f32(2, 10)}, 0, "ERR axis 2 is out of range"},

	// Concat, Split
	{"concat", &Concat{Axis: 1}, []ValueInfo{f32(1, 2, 4), f32(1, 3, 4), f32(1, 1, 4)}, 0, "f32[1 6 4]"},
	{"concat neg unknown", &Concat{Axis: -1}, []ValueInfo{f32(-1, 2), f32(3, -1)}, 0, "f32[3 ?]"},
	{"concat unknown rank", &Concat{Axis: 0}, []ValueInfo{{DType: Float32}, f32(3, 2)}, 0, "f32[? 2]"},
	{"concat mismatch", &Concat{Axis: 1}, []ValueInfo{f32(1, 2, 4), f32(1, 3, 5)}, 0, `ERR input 1 "in1" has shape [1 3 5]: axis 2 is 5 but earlier inputs have 4`},
	{"concat rank", &Concat{Axis: 0}, []ValueInfo{f32(1, 2), f32(1)}, 0, "ERR has rank 1"},
	{"concat const", &Concat{Axis: 0}, []ValueInfo{constI64(nil, 1, 2), constI64(nil, 3)}, 0, "i64[3]=[1 2 3]"},
	{"split", &Split{Axis: -1, Sizes: ints(2, 4)}, []ValueInfo{f32(3, 6)}, 2, "f32[3 2], f32[3 4]"},
	{"split sum", &Split{Axis: 1, Sizes: ints(2, 3)}, []ValueInfo{f32(3, 6)}, 2, "ERR Sizes [2 3] add up to 5 but input X [3 6] has 6 on axis 1"},
	{"split count", &Split{Axis: 1, Sizes: ints(2, 4)}, []ValueInfo{f32(3, 6)}, 3, "ERR has 3 outputs but Sizes [2 4] lists 2 parts"},
	{"split negative", &Split{Axis: 1, Sizes: ints(-1, 7)}, []ValueInfo{f32(3, 6)}, 2, "ERR Sizes [-1 7] has -1"},

	// Reshape
	{"reshape copy infer", &Reshape{Shape: ints(0, -1)}, []ValueInfo{withParam(f32(-1, 3, 4), 0, "N")}, 0, "f32[N 12]"},
	{"reshape infer", &Reshape{Shape: ints(2, -1)}, []ValueInfo{f32(4, 6)}, 0, "f32[2 12]"},
	{"reshape zero copies", &Reshape{Shape: ints(0, 0, 3)}, []ValueInfo{f32(2, 4, 1, 3)}, 0, "f32[2 4 3]"},
	{"reshape count", &Reshape{Shape: ints(0, 0, 5)}, []ValueInfo{f32(2, 4, 1, 3)}, 0, "ERR cannot reshape input X [2 4 1 3] into [0 0 5]: element counts differ"},
	{"reshape allowzero", &Reshape{Shape: ints(0, 3), AllowZero: true}, []ValueInfo{f32(0, 3)}, 0, "f32[0 3]"},
	{"reshape allowzero mix", &Reshape{Shape: ints(0, -1), AllowZero: true}, []ValueInfo{f32(0, 3)}, 0, "ERR mixes -1 with 0 under AllowZero"},
	{"reshape not divisible", &Reshape{Shape: ints(5, -1)}, []ValueInfo{f32(4, 6)}, 0, "ERR cannot reshape input X [4 6] into [5 -1]: the -1 cannot be inferred"},
	{"reshape two -1", &Reshape{Shape: ints(-1, -1)}, []ValueInfo{f32(4, 6)}, 0, "ERR more than one -1"},
	{"reshape copy beyond rank", &Reshape{Shape: ints(2, 3, 0)}, []ValueInfo{f32(6)}, 0, "ERR copies axis 2 (code 0) but input X has shape [6]"},
	{"reshape unknown", &Reshape{Shape: ints(-1, 4)}, []ValueInfo{f32(-1, 2, 2)}, 0, "f32[? 4]"},
	{"reshape input const", &Reshape{}, []ValueInfo{f32(2, 3, 4), constI64(nil, 0, 12)}, 0, "f32[2 12]"},
	{"reshape input dynamic", &Reshape{}, []ValueInfo{f32(2, 3, 4), i64(3)}, 0, "f32[? ? ?]"},
	{"reshape both", &Reshape{Shape: ints(24)}, []ValueInfo{f32(2, 3, 4), i64(1)}, 0, "ERR has both a Shape attribute and a Shape input"},
	{"reshape overflow", &Reshape{Shape: ints(-1)}, []ValueInfo{f32(big, big)}, 0, "ERR overflows int64"},
	{"reshape const", &Reshape{Shape: ints(2, 1)}, []ValueInfo{constI64(nil, 7, 8)}, 0, "i64[2 1]=[7 8]"},

	// Flatten, Transpose, Squeeze, Unsqueeze, Pad
	{"flatten", &Flatten{Axis: 1}, []ValueInfo{f32(2, 3, 4)}, 0, "f32[2 12]"},
	{"flatten 0", &Flatten{Axis: 0}, []ValueInfo{f32(2, 3, 4)}, 0, "f32[1 24]"},
	{"flatten neg", &Flatten{Axis: -1}, []ValueInfo{f32(2, 3, 4)}, 0, "f32[6 4]"},
	{"flatten rank", &Flatten{Axis: 3}, []ValueInfo{f32(2, 3, 4)}, 0, "f32[24 1]"},
	{"flatten dyn", &Flatten{Axis: 1}, []ValueInfo{withParam(f32(-1, 3, 4), 0, "N")}, 0, "f32[N 12]"},
	{"flatten range", &Flatten{Axis: 4}, []ValueInfo{f32(2, 3, 4)}, 0, "ERR axis 4 is out of range"},
	{"transpose", &Transpose{Perm: ints(2, 0, 1)}, []ValueInfo{f32(1, 2, 3)}, 0, "f32[3 1 2]"},
	{"transpose bad", &Transpose{Perm: ints(0, 0, 1)}, []ValueInfo{f32(1, 2, 3)}, 0, "ERR Perm [0 0 1] is not a permutation of 0..2"},
	{"transpose rank", &Transpose{Perm: ints(1, 0)}, []ValueInfo{f32(1, 2, 3)}, 0, "ERR Perm [1 0] has 2 entries but input X has shape [1 2 3]"},
	{"squeeze all", &Squeeze{}, []ValueInfo{f32(1, 3, 1, 4)}, 0, "f32[3 4]"},
	{"squeeze axes", &Squeeze{Axes: ints(-2)}, []ValueInfo{f32(1, 3, 1, 4)}, 0, "f32[1 3 4]"},
	{"squeeze not 1", &Squeeze{Axes: ints(1)}, []ValueInfo{f32(1, 3, 1, 4)}, 0, "ERR cannot squeeze axis 1 of input X [1 3 1 4]: its size is 3, not 1"},
	{"squeeze unknown", &Squeeze{}, []ValueInfo{f32(1, -1)}, 0, "f32[unknown rank]"},
	{"squeeze const", &Squeeze{Axes: ints(0)}, []ValueInfo{constI64([]int64{1}, 5)}, 0, "i64[]=[5]"},
	{"unsqueeze", &Unsqueeze{Axes: ints(0, -1)}, []ValueInfo{f32(3, 4)}, 0, "f32[1 3 4 1]"},
	{"unsqueeze mid", &Unsqueeze{Axes: ints(1)}, []ValueInfo{f32(3, 4)}, 0, "f32[3 1 4]"},
	{"unsqueeze dup", &Unsqueeze{Axes: ints(0, -3)}, []ValueInfo{f32(3)}, 0, "ERR axis 0 is listed twice"},
	{"unsqueeze const", &Unsqueeze{Axes: ints(0)}, []ValueInfo{constI64([]int64{}, 5)}, 0, "i64[1]=[5]"},
	{"pad", &Pad{PadsBegin: ints(0, 0, 1, 1), PadsEnd: ints(0, 0, 2, 2)}, []ValueInfo{f32(1, 3, 4, 4)}, 0, "f32[1 3 7 7]"},
	{"pad crop", &Pad{PadsBegin: ints(-1), PadsEnd: ints(-2)}, []ValueInfo{f32(5)}, 0, "f32[2]"},
	{"pad crop too much", &Pad{PadsBegin: ints(-3), PadsEnd: ints(-3)}, []ValueInfo{f32(5)}, 0, "ERR pads -3+-3 crop axis 0 of size 5 below zero"},
	{"pad reflect", &Pad{Mode: PadReflect, PadsBegin: ints(3), PadsEnd: ints(0)}, []ValueInfo{f32(3)}, 0, "ERR reflect padding 3+0 on axis 0"},
	{"pad mode", &Pad{Mode: 7, PadsBegin: ints(0), PadsEnd: ints(0)}, []ValueInfo{f32(3)}, 0, "ERR unknown pad mode 7"},
	{"pad rank", &Pad{PadsBegin: ints(0), PadsEnd: ints(0)}, []ValueInfo{f32(3, 3)}, 0, "ERR need 2 entries each"},

	// Slice (ONNX clamping, negative steps)
	{"slice basic", &Slice{Starts: ints(1), Ends: ints(-1)}, []ValueInfo{f32(10, 4)}, 0, "f32[8 4]"},
	{"slice reverse all", &Slice{Starts: ints(-1), Ends: ints(math.MinInt64), Axes: ints(0), Steps: ints(-1)}, []ValueInfo{f32(10)}, 0, "f32[10]"},
	{"slice neg step", &Slice{Starts: ints(8), Ends: ints(2), Axes: ints(-1), Steps: ints(-2)}, []ValueInfo{f32(3, 10)}, 0, "f32[3 3]"},
	{"slice step clamp", &Slice{Starts: ints(0), Ends: ints(math.MaxInt64), Axes: ints(1), Steps: ints(3)}, []ValueInfo{f32(3, 10)}, 0, "f32[3 4]"},
	{"slice past end", &Slice{Starts: ints(20), Ends: ints(30), Axes: ints(0), Steps: ints(1)}, []ValueInfo{f32(10)}, 0, "f32[0]"},
	{"slice huge neg step", &Slice{Starts: ints(math.MaxInt64), Ends: ints(math.MinInt64), Axes: ints(0), Steps: ints(math.MinInt64)}, []ValueInfo{f32(10)}, 0, "f32[1]"},
	{"slice unknown", &Slice{Starts: ints(0), Ends: ints(2), Axes: ints(0), Steps: ints(1)}, []ValueInfo{f32(-1, 5)}, 0, "f32[? 5]"},
	{"slice zero step", &Slice{Starts: ints(0), Ends: ints(2), Axes: ints(0), Steps: ints(0)}, []ValueInfo{f32(5)}, 0, "ERR Steps [0] has a 0 step"},
	{"slice axis", &Slice{Starts: ints(0), Ends: ints(2), Axes: ints(2), Steps: ints(1)}, []ValueInfo{f32(5)}, 0, "ERR axis 2 is out of range"},
	{"slice const", &Slice{Starts: ints(-1), Ends: ints(-4), Axes: ints(0), Steps: ints(-2)}, []ValueInfo{constI64(nil, 10, 11, 12, 13)}, 0, "i64[2]=[13 11]"},

	// Gather
	{"gather neg axis", &Gather{Axis: -2}, []ValueInfo{f32(5, 4, 3), i64(2)}, 0, "f32[5 2 3]"},
	{"gather scalar", &Gather{Axis: 0}, []ValueInfo{f32(4, 3), i64()}, 0, "f32[3]"},
	{"gather 2d idx", &Gather{Axis: 1}, []ValueInfo{f32(4, 3), i64(2, 5)}, 0, "f32[4 2 5]"},
	{"gather range", &Gather{Axis: 0}, []ValueInfo{f32(4, 3), constI64([]int64{}, 4)}, 0, `ERR index 4 is out of range for axis 0 of Data "in0" [4 3] (size 4)`},
	{"gather const", &Gather{Axis: 0}, []ValueInfo{constI64(nil, 1, 3, 224, 224), constI64([]int64{}, -3)}, 0, "i64[]=[3]"},
	{"gather float idx", &Gather{Axis: 0}, []ValueInfo{f32(4), f32(1)}, 0, "ERR Indices \"in1\" are f32, want i32 or i64"},

	// Shape, Constant, Identity, Dropout, Resize
	{"shape", NewShapeOf(), []ValueInfo{f32(1, 3, -1)}, 0, "i64[3]"},
	{"shape static", NewShapeOf(), []ValueInfo{f32(1, 3, 8)}, 0, "i64[3]=[1 3 8]"},
	{"shape start end", &ShapeOf{Start: -2, End: 100}, []ValueInfo{f32(-1, 3, 8)}, 0, "i64[2]=[3 8]"},
	{"shape empty", &ShapeOf{Start: 2, End: 1}, []ValueInfo{f32(1, 3, 8)}, 0, "i64[0]=[]"},
	{"shape unknown rank", NewShapeOf(), []ValueInfo{{DType: Float32}}, 0, "i64[?]"},
	{"constant", &Constant{Value: NewInt64Tensor("k", nil, []int64{4, 5})}, nil, 0, "i64[2]=[4 5]"},
	{"constant bad", &Constant{Value: &Tensor{Name: "k", DType: Float32, Shape: []int64{3}, Data: make([]byte, 8)}}, nil, 0, `ERR tensor "k": f32[3] needs 12 bytes of data, has 8`},
	{"identity", &Identity{}, []ValueInfo{constI64(nil, 2)}, 0, "i64[1]=[2]"},
	{"dropout", &Dropout{Ratio: 0.5}, []ValueInfo{f32(2, 3)}, 2, "f32[2 3], bool[2 3]"},
	{"dropout one", &Dropout{Ratio: 0.5}, []ValueInfo{f32(2, 3)}, 1, "f32[2 3]"},
	{"resize scales", &Resize{Scales: []float32{1, 1, 2, 0.5}}, []ValueInfo{f32(1, 3, 5, 5)}, 0, "f32[1 3 10 2]"},
	{"resize sizes", &Resize{Sizes: ints(1, 3, 7, 9)}, []ValueInfo{f32(1, 3, 5, 5)}, 0, "f32[1 3 7 9]"},
	{"resize both", &Resize{Scales: []float32{1}, Sizes: ints(1)}, []ValueInfo{f32(1)}, 0, "ERR needs exactly one of Scales"},
	{"resize rank", &Resize{Scales: []float32{1, 2}}, []ValueInfo{f32(1, 3, 5)}, 0, "ERR has 2 scales/sizes but input X has shape [1 3 5]"},

	// Integer arithmetic on constants
	{"const add bcast", &Binary{Fn: Add}, []ValueInfo{constI64(nil, 1, 2, 3), constI64([]int64{}, 10)}, 0, "i64[3]=[11 12 13]"},
	{"const div trunc", &Binary{Fn: Div}, []ValueInfo{constI64(nil, 7, -7), constI64(nil, 2)}, 0, "i64[2]=[3 -3]"},
	{"const div zero", &Binary{Fn: Div}, []ValueInfo{constI64(nil, 7), constI64(nil, 0)}, 0, `ERR integer division by zero: B "in1" holds 0`},
	{"const mul 2d", &Binary{Fn: Mul}, []ValueInfo{constI64([]int64{2, 1}, 2, 3), constI64([]int64{1, 2}, 5, 7)}, 0, "i64[2 2]=[10 14 15 21]"},
}

func TestInferNode(t *testing.T) {
	for _, tc := range inferCases {
		t.Run(tc.name, func(t *testing.T) {
			nout := max(tc.nout, 1)
			n := node(tc.op, len(tc.in), nout)
			got, err := InferNode(n, tc.in)
			if want, isErr := strings.CutPrefix(tc.want, "ERR "); isErr {
				if err == nil {
					t.Fatalf("no error, got %v; want error containing %q", got, want)
				}
				if !strings.Contains(err.Error(), want) {
					t.Fatalf("error %q does not contain %q", err, want)
				}
				if !strings.Contains(err.Error(), `node "n1"`) {
					t.Fatalf("error %q does not name the node", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for i, v := range got {
				if v.Name != n.Outputs[i] {
					t.Errorf("output %d named %q, want %q", i, v.Name, n.Outputs[i])
				}
				parts = append(parts, show(v))
			}
			if s := strings.Join(parts, ", "); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}
}

// Every op kind in ops.go has at least one inference case.
func TestInferCoversEveryOp(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range inferCases {
		seen[fmt.Sprintf("%T", tc.op)] = true
	}
	for _, op := range []Op{&Conv{}, &ConvTranspose{}, &BatchNorm{}, &Linear{}, &MatMul{}, &Binary{}, &Unary{}, &LeakyRelu{}, &Elu{}, &Selu{}, &PRelu{},
		&Clip{}, &HardSigmoid{}, &Softmax{}, &MaxPool{}, &AveragePool{}, &GlobalAveragePool{}, &GlobalMaxPool{}, &Reduce{Fn: ReduceMean},
		&Concat{}, &Split{}, &Reshape{}, &Flatten{}, &Transpose{}, &Squeeze{}, &Unsqueeze{}, &Pad{}, &Slice{}, &Gather{},
		&ShapeOf{}, &Constant{}, &Identity{}, &Dropout{}, &Resize{}} {
		if !seen[fmt.Sprintf("%T", op)] {
			t.Errorf("no inference case for %T", op)
		}
	}
}

func TestInferNodeBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    *Node
		in   []ValueInfo
		want string
	}{
		{"nil op", &Node{Name: "x"}, nil, `node "x" has no op`},
		{"typed nil op", &Node{Name: "x", Op: (*Conv)(nil)}, nil, `node "x" has no op`},
		{"type count", node(&Unary{}, 1, 1), nil, "0 input types given for 1 inputs"},
		{"arity", node(&Unary{}, 2, 1), []ValueInfo{f32(1), f32(1)}, `node "n1" (Relu): has 2 inputs ["in0" "in1"], takes at most 1 (X)`},
		{"missing W", node(conv2d(ints(1), ints(1), ints(0), ints(0), 1), 1, 1), []ValueInfo{f32(1, 1, 3)}, "missing required input W"},
		{"outputs", node(&Unary{}, 1, 2), []ValueInfo{f32(1)}, "has 2 outputs, wants 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := InferNode(tc.n, tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
