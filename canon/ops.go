package canon

import (
	"fmt"
	"math"
)

// Op is the typed payload of a node: one struct per op kind, holding that
// kind's attributes with every default already applied by the importer.
type Op interface {
	// Kind is the canonical op name, e.g. "Conv" or "Add".
	Kind() string
	// Signature describes the inputs (with their roles) and outputs.
	Signature() Signature
}

// InputSpec describes one input slot of an op kind.
type InputSpec struct {
	Name     string
	Role     Role
	Optional bool
	// Variadic marks the last slot as repeatable (Concat).
	Variadic bool
	// Param marks an input that carries, at run time, a parameter the op
	// otherwise takes as an attribute (Clip's bounds, Slice's starts).
	Param bool
}

// param is an optional run-time parameter input.
func param(name string) InputSpec { return InputSpec{Name: name, Optional: true, Param: true} }

// Signature is the input and output arity of an op kind.
type Signature struct {
	Inputs []InputSpec
	// MinOutputs and MaxOutputs bound the output count; MaxOutputs < 0 means
	// any number (Split).
	MinOutputs, MaxOutputs int
}

func sig(outs int, in ...InputSpec) Signature {
	return Signature{Inputs: in, MinOutputs: outs, MaxOutputs: outs}
}

var (
	inX    = InputSpec{Name: "X"}
	inA    = InputSpec{Name: "A"}
	inB    = InputSpec{Name: "B"}
	inBias = InputSpec{Name: "B", Role: RoleBias, Optional: true}
)

// ---- Convolutions ----

// Conv is an N-D convolution of X (N, C, spatial...) with W in layout
// OI+spatial (C_out, C_in/Group, k...). The kernel shape is W's spatial
// shape. Pads are explicit per spatial axis; there is no auto_pad.
type Conv struct {
	Strides   []int64
	Dilations []int64
	PadsBegin []int64
	PadsEnd   []int64
	Group     int64
}

func (*Conv) Kind() string { return "Conv" }
func (*Conv) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "W", Role: RoleConvWeight}, inBias)
}

// ConvTranspose is an N-D transposed convolution with W in layout
// IO+spatial (C_in, C_out/Group, k...). The full output is
// (in-1)*stride + (k-1)*dilation + 1 + OutputPadding, of which PadsBegin
// and PadsEnd are cropped: every output_shape/auto_pad/target_shape form is
// resolved into these explicit pads at import.
type ConvTranspose struct {
	Strides       []int64
	Dilations     []int64
	PadsBegin     []int64
	PadsEnd       []int64
	OutputPadding []int64
	Group         int64
}

func (*ConvTranspose) Kind() string { return "ConvTranspose" }
func (*ConvTranspose) Signature() Signature {
	return sig(1, inX, InputSpec{Name: "W", Role: RoleDeconvWeight}, inBias)
}

// ---- Normalization and dense layers ----

// BatchNorm is inference-mode batch normalization over axis 1:
// Y = (X - Mean) / sqrt(Var + Epsilon) * Scale + Bias.
type BatchNorm struct {
	Epsilon float32
}

func (*BatchNorm) Kind() string { return "BatchNormalization" }
func (*BatchNorm) Signature() Signature {
	ch := func(n string) InputSpec { return InputSpec{Name: n, Role: RoleChannel} }
	return sig(1, inX, ch("Scale"), ch("Bias"), ch("Mean"), ch("Var"))
}

// Linear is Y = Alpha * A·Wᵀ + Beta * C, with A of shape (M, K), W in layout
// OI (N, K) and C optional, broadcastable to (M, N). ONNX Gemm's transA and
// transB are resolved at import (a constant W is stored as OI; otherwise a
// Transpose node is inserted).
type Linear struct {
	Alpha float32
	Beta  float32
}

func (*Linear) Kind() string { return "Linear" }
func (*Linear) Signature() Signature {
	return sig(1, inA, InputSpec{Name: "W", Role: RoleLinearWeight}, InputSpec{Name: "C", Optional: true})
}

// MatMul is a NumPy-style matrix product with batch broadcasting.
type MatMul struct{}

func (*MatMul) Kind() string         { return "MatMul" }
func (*MatMul) Signature() Signature { return sig(1, inA, inB) }

// ---- Elementwise ----

// BinaryFn is an elementwise arithmetic function.
type BinaryFn uint8

const (
	Add BinaryFn = iota
	Sub
	Mul
	Div
)

var binaryNames = [...]string{Add: "Add", Sub: "Sub", Mul: "Mul", Div: "Div"}

func (f BinaryFn) String() string {
	if int(f) < len(binaryNames) {
		return binaryNames[f]
	}
	return fmt.Sprintf("Binary(fn %d)", f)
}

// Binary is an elementwise op with NumPy broadcasting.
type Binary struct {
	Fn BinaryFn
}

func (b *Binary) Kind() string       { return b.Fn.String() }
func (*Binary) Signature() Signature { return sig(1, inA, inB) }

// UnaryFn is an elementwise activation without parameters.
type UnaryFn uint8

const (
	Relu UnaryFn = iota
	Sigmoid
	Tanh
	HardSwish
	// Softplus is log(1 + exp(x)).
	Softplus
	// Softsign is x / (1 + |x|).
	Softsign
)

var unaryNames = [...]string{Relu: "Relu", Sigmoid: "Sigmoid", Tanh: "Tanh", HardSwish: "HardSwish", Softplus: "Softplus", Softsign: "Softsign"}

func (f UnaryFn) String() string {
	if int(f) < len(unaryNames) {
		return unaryNames[f]
	}
	return fmt.Sprintf("Unary(fn %d)", f)
}

// Unary applies Fn to every element.
type Unary struct {
	Fn UnaryFn
}

func (u *Unary) Kind() string       { return u.Fn.String() }
func (*Unary) Signature() Signature { return sig(1, inX) }

// LeakyRelu is x for x >= 0, Alpha*x otherwise.
type LeakyRelu struct {
	Alpha float32
}

func (*LeakyRelu) Kind() string         { return "LeakyRelu" }
func (*LeakyRelu) Signature() Signature { return sig(1, inX) }

// Elu is x for x > 0, Alpha*(exp(x)-1) otherwise (ONNX Elu; default Alpha 1).
type Elu struct {
	Alpha float32
}

func (*Elu) Kind() string         { return "Elu" }
func (*Elu) Signature() Signature { return sig(1, inX) }

// Selu is Gamma*x for x > 0, Gamma*Alpha*(exp(x)-1) otherwise. The
// constants are attributes because ONNX lets a model set them; ONNX's
// defaults, PyTorch's and MXNet's fixed constants all round to SeluAlpha and
// SeluGamma in float32.
type Selu struct {
	Alpha float32
	Gamma float32
}

// SeluAlpha and SeluGamma are ONNX's default Selu constants.
const (
	SeluAlpha float32 = 1.67326319217681884765625
	SeluGamma float32 = 1.05070102214813232421875
)

func (*Selu) Kind() string         { return "Selu" }
func (*Selu) Signature() Signature { return sig(1, inX) }

// GeluApprox selects Gelu's formula.
type GeluApprox uint8

const (
	// GeluExact is x·Φ(x) = 0.5·x·(1 + erf(x/√2)).
	GeluExact GeluApprox = iota
	// GeluTanh is 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
	GeluTanh
)

var geluNames = [...]string{GeluExact: "none", GeluTanh: "tanh"}

// String is the ONNX spelling of the approximation ("none" or "tanh").
func (a GeluApprox) String() string {
	if int(a) < len(geluNames) {
		return geluNames[a]
	}
	return fmt.Sprintf("GeluApprox(%d)", a)
}

// Gelu is the Gaussian error linear unit, exact or with the tanh
// approximation.
type Gelu struct {
	Approximate GeluApprox
}

func (*Gelu) Kind() string         { return "Gelu" }
func (*Gelu) Signature() Signature { return sig(1, inX) }

// PRelu is x for x >= 0, Slope*x otherwise, Slope broadcast to X.
type PRelu struct{}

func (*PRelu) Kind() string         { return "PRelu" }
func (*PRelu) Signature() Signature { return sig(1, inX, InputSpec{Name: "Slope", Role: RoleWeight}) }

// Clip bounds X to [Min, Max]; absent bounds are -Inf/+Inf.
//
// A bound computed at run time is the optional input Min or Max instead: a
// scalar of X's dtype. The attribute for that bound must then stay unset
// (-Inf for Min, +Inf for Max); validation rejects a node that has both.
type Clip struct {
	Min float32
	Max float32
}

// NewClip returns an unbounded Clip.
func NewClip() *Clip { return &Clip{Min: float32(math.Inf(-1)), Max: float32(math.Inf(1))} }

func (*Clip) Kind() string { return "Clip" }
func (*Clip) Signature() Signature {
	return sig(1, inX, param("Min"), param("Max"))
}

// HardSigmoid is max(0, min(1, Alpha*x + Beta)).
type HardSigmoid struct {
	Alpha float32
	Beta  float32
}

func (*HardSigmoid) Kind() string         { return "HardSigmoid" }
func (*HardSigmoid) Signature() Signature { return sig(1, inX) }

// Softmax normalizes along one axis (ONNX opset-13 semantics; the older
// flatten-to-2-D form is rewritten at import).
type Softmax struct {
	Axis int64
}

func (*Softmax) Kind() string         { return "Softmax" }
func (*Softmax) Signature() Signature { return sig(1, inX) }

// ---- Pooling ----

// MaxPool takes the maximum over each window. Pads are explicit; CeilMode
// rounds the output size up. The optional second output, Indices (i64),
// is the flat offset of each maximum in X, batch and channel included:
// row-major, or with ColumnMajorIndices (ONNX storage_order=1) the
// spatial part counted column-major.
type MaxPool struct {
	Kernel             []int64
	Strides            []int64
	Dilations          []int64
	PadsBegin          []int64
	PadsEnd            []int64
	CeilMode           bool
	ColumnMajorIndices bool
}

func (*MaxPool) Kind() string { return "MaxPool" }
func (*MaxPool) Signature() Signature {
	return Signature{Inputs: []InputSpec{inX}, MinOutputs: 1, MaxOutputs: 2}
}

// AveragePool averages each window; CountIncludePad decides whether padded
// positions count in the divisor.
type AveragePool struct {
	Kernel          []int64
	Strides         []int64
	Dilations       []int64
	PadsBegin       []int64
	PadsEnd         []int64
	CeilMode        bool
	CountIncludePad bool
}

func (*AveragePool) Kind() string         { return "AveragePool" }
func (*AveragePool) Signature() Signature { return sig(1, inX) }

// GlobalAveragePool averages over all spatial axes, keeping them as size 1.
type GlobalAveragePool struct{}

func (*GlobalAveragePool) Kind() string         { return "GlobalAveragePool" }
func (*GlobalAveragePool) Signature() Signature { return sig(1, inX) }

// GlobalMaxPool takes the maximum over all spatial axes, keeping them as size 1.
type GlobalMaxPool struct{}

func (*GlobalMaxPool) Kind() string         { return "GlobalMaxPool" }
func (*GlobalMaxPool) Signature() Signature { return sig(1, inX) }

// ---- Shape manipulation ----

// Concat joins its inputs along Axis.
type Concat struct {
	Axis int64
}

func (*Concat) Kind() string { return "Concat" }
func (*Concat) Signature() Signature {
	return sig(1, InputSpec{Name: "Inputs", Variadic: true})
}

// Split cuts X along Axis into len(Sizes) outputs of the given sizes.
//
// Sizes computed at run time are the optional input Sizes instead (a 1-D
// i64 tensor with one entry per output); the attribute is then nil, and
// validation rejects a node that has both.
type Split struct {
	Axis  int64
	Sizes []int64
}

func (*Split) Kind() string { return "Split" }
func (*Split) Signature() Signature {
	return Signature{Inputs: []InputSpec{inX, param("Sizes")}, MinOutputs: 1, MaxOutputs: -1}
}

// Reshape gives X a new shape. When Shape is set it is the constant target
// (ONNX codes: 0 copies the input dim unless AllowZero, -1 is inferred) and
// the second input is absent; when Shape is nil the target is the second
// input, an i64 tensor computed by the graph.
type Reshape struct {
	Shape     []int64
	AllowZero bool
}

func (*Reshape) Kind() string { return "Reshape" }
func (*Reshape) Signature() Signature {
	return sig(1, inX, param("Shape"))
}

// Flatten reshapes X to 2-D: (prod(dims[:Axis]), prod(dims[Axis:])).
type Flatten struct {
	Axis int64
}

func (*Flatten) Kind() string         { return "Flatten" }
func (*Flatten) Signature() Signature { return sig(1, inX) }

// Transpose permutes axes: output axis i is input axis Perm[i]. Perm is
// always explicit.
type Transpose struct {
	Perm []int64
}

func (*Transpose) Kind() string         { return "Transpose" }
func (*Transpose) Signature() Signature { return sig(1, inX) }

// Squeeze removes the listed size-1 axes (every size-1 axis when Axes is
// nil and there is no Axes input).
//
// Axes computed at run time are the optional input Axes instead (a 1-D i64
// tensor; empty means every size-1 axis); the attribute is then nil, and
// validation rejects a node that has both.
type Squeeze struct {
	Axes []int64
}

func (*Squeeze) Kind() string         { return "Squeeze" }
func (*Squeeze) Signature() Signature { return sig(1, inX, inAxes) }

// Unsqueeze inserts size-1 axes at the listed positions of the output.
//
// Axes computed at run time are the optional input Axes instead (a 1-D i64
// tensor); the attribute is then nil, and validation rejects a node that
// has both.
type Unsqueeze struct {
	Axes []int64
}

func (*Unsqueeze) Kind() string         { return "Unsqueeze" }
func (*Unsqueeze) Signature() Signature { return sig(1, inX, inAxes) }

// inAxes is the optional run-time axes input of Squeeze and Unsqueeze.
var inAxes = param("Axes")

// PadMode is how Pad fills the border.
type PadMode uint8

const (
	PadConstant PadMode = iota
	PadReflect
	PadEdge
	// PadWrap continues the axis periodically: the pad before an axis
	// repeats its end, the pad after its start (ONNX Pad-19's wrap).
	PadWrap
)

var padModeNames = [...]string{PadConstant: "constant", PadReflect: "reflect", PadEdge: "edge", PadWrap: "wrap"}

func (m PadMode) String() string { return padModeNames[m] }

// Pad adds PadsBegin/PadsEnd elements on every axis (negative values crop).
//
// Pads computed at run time are the optional input Pads instead: a 1-D i64
// tensor of the begin pads followed by the end pads, over every axis of X,
// or over Axes when Axes is set (Axes is only meaningful with the Pads
// input). PadsBegin and PadsEnd are then nil. A fill value computed at run
// time is the optional input Value (a scalar of X's dtype); the Value
// attribute is then 0. Axes computed at run time are the optional input
// Axes (a 1-D integer tensor, negative entries counting from the end),
// which places a Pads input; the Axes attribute is then nil. Validation
// rejects an attribute and an input for the same parameter.
type Pad struct {
	Mode      PadMode
	PadsBegin []int64
	PadsEnd   []int64
	Value     float32
	Axes      []int64
}

func (*Pad) Kind() string { return "Pad" }
func (*Pad) Signature() Signature {
	return sig(1, inX, param("Pads"), param("Value"), param("Axes"))
}

// Slice takes [Starts, Ends) with Steps along Axes (ONNX clamping rules;
// negative indices count from the end). Axes nil means the leading axes,
// Steps nil means steps of 1.
//
// Each of the four parameters may instead be computed at run time: the
// optional input of the same name (a 1-D i64 tensor), in which case its
// attribute is nil. Validation rejects an attribute and an input for the
// same parameter.
type Slice struct {
	Starts []int64
	Ends   []int64
	Axes   []int64
	Steps  []int64
}

func (*Slice) Kind() string { return "Slice" }
func (*Slice) Signature() Signature {
	return sig(1, inX, param("Starts"), param("Ends"), param("Axes"), param("Steps"))
}

// Gather takes entries of Data along Axis at Indices (negative indices count
// from the end).
type Gather struct {
	Axis int64
}

func (*Gather) Kind() string { return "Gather" }
func (*Gather) Signature() Signature {
	return sig(1, InputSpec{Name: "Data"}, InputSpec{Name: "Indices"})
}

// ShapeOf returns X's shape as a 1-D i64 tensor, dims [Start, End) with
// ONNX's clamping (End = math.MaxInt64 means to the last axis).
type ShapeOf struct {
	Start int64
	End   int64
}

// NewShapeOf returns a ShapeOf covering every axis.
func NewShapeOf() *ShapeOf { return &ShapeOf{End: math.MaxInt64} }

func (*ShapeOf) Kind() string         { return "Shape" }
func (*ShapeOf) Signature() Signature { return sig(1, inX) }

// Constant produces Value.
type Constant struct {
	Value *Tensor
}

func (*Constant) Kind() string         { return "Constant" }
func (*Constant) Signature() Signature { return sig(1) }

// Identity copies X.
type Identity struct{}

func (*Identity) Kind() string         { return "Identity" }
func (*Identity) Signature() Signature { return sig(1, inX) }

// Dropout is the identity at inference. Its optional second output is the
// mask (all true at inference). Ratio is kept for export only.
//
// A training mode computed at run time is the optional input TrainingMode
// (a bool scalar), with the optional input Ratio (a float scalar; Ratio
// the attribute when absent): when a run has training mode on and a ratio
// other than 0, the node drops elements at random, which is refused when
// it runs; otherwise it is the identity with an all-true mask.
type Dropout struct {
	Ratio float32
}

func (*Dropout) Kind() string { return "Dropout" }
func (*Dropout) Signature() Signature {
	return Signature{Inputs: []InputSpec{inX, param("Ratio"), param("TrainingMode")}, MinOutputs: 1, MaxOutputs: 2}
}

// AttrGiven: Ratio only records the exported ratio, so a Ratio input does
// not contradict it; TrainingMode has no attribute.
func (*Dropout) AttrGiven(slot int) (string, bool) {
	if slot == 1 {
		return "Ratio", false
	}
	return "TrainingMode", false
}

// CoordTransform maps an output coordinate to an input coordinate in Resize.
type CoordTransform uint8

const (
	HalfPixel CoordTransform = iota
	Asymmetric
	AlignCorners
	PytorchHalfPixel
	TFHalfPixelForNN
	HalfPixelSymmetric
	TFCropAndResize
)

var coordNames = [...]string{HalfPixel: "half_pixel", Asymmetric: "asymmetric", AlignCorners: "align_corners", PytorchHalfPixel: "pytorch_half_pixel", TFHalfPixelForNN: "tf_half_pixel_for_nn",
	HalfPixelSymmetric: "half_pixel_symmetric", TFCropAndResize: "tf_crop_and_resize"}

func (c CoordTransform) String() string { return coordNames[c] }

// NearestMode rounds a mapped coordinate to an input index in Resize.
type NearestMode uint8

const (
	RoundPreferFloor NearestMode = iota
	RoundPreferCeil
	Floor
	Ceil
)

var nearestNames = [...]string{RoundPreferFloor: "round_prefer_floor", RoundPreferCeil: "round_prefer_ceil", Floor: "floor", Ceil: "ceil"}

func (n NearestMode) String() string { return nearestNames[n] }

// Resize resamples X (ONNX Resize-19 semantics, see defs_resample.go).
// Exactly one of Scales (one per resized axis) and Sizes (the output size
// of each resized axis) is given. Axes names the resized axes (nil: all, in
// order). ONNX Upsample and Resize-10 are imported as Asymmetric + Floor.
//
// Scales, Sizes or Roi computed at run time are the optional input of that
// name instead (Scales and Roi 1-D f32 tensors, Sizes a 1-D i64 tensor);
// the attribute is then nil. Validation requires exactly one of Scales and
// Sizes to be given, as attribute or input.
type Resize struct {
	Scales         []float32
	Sizes          []int64
	Axes           []int64
	Mode           ResizeMode
	CoordTransform CoordTransform
	Nearest        NearestMode
	// CubicCoeffA is the cubic kernel's a (-0.75 as in PyTorch and ONNX's
	// default, -0.5 as in TensorFlow), 0 for other modes; ExcludeOutside
	// drops and renormalizes the taps outside the input.
	CubicCoeffA    float32
	ExcludeOutside bool
	// Antialias widens the linear/cubic kernel by 1/scale when downsampling.
	Antialias bool
	// KeepAspect turns Sizes into one scale shared by the resized axes.
	KeepAspect AspectPolicy
	// Roi (TFCropAndResize only) is the region to resample, in normalized
	// input coordinates: the starts of the resized axes, then their ends.
	// Points outside the input take ExtrapolationValue.
	Roi                []float32
	ExtrapolationValue float32
}

func (*Resize) Kind() string { return "Resize" }
func (*Resize) Signature() Signature {
	return sig(1, inX, param("Scales"), param("Sizes"), param("Roi"))
}

// ---- run-time parameters: which attribute stands for which input ----

func (o *Clip) AttrGiven(slot int) (string, bool) {
	if slot == 1 {
		return "Min", !math.IsInf(float64(o.Min), -1)
	}
	return "Max", !math.IsInf(float64(o.Max), 1)
}

func (o *Split) AttrGiven(int) (string, bool)     { return "Sizes", o.Sizes != nil }
func (o *Squeeze) AttrGiven(int) (string, bool)   { return "Axes", o.Axes != nil }
func (o *Unsqueeze) AttrGiven(int) (string, bool) { return "Axes", o.Axes != nil }
func (o *Reshape) AttrGiven(int) (string, bool)   { return "Shape", o.Shape != nil }

func (o *Pad) AttrGiven(slot int) (string, bool) {
	switch slot {
	case 1:
		return "Pads", o.PadsBegin != nil || o.PadsEnd != nil
	case 3:
		return "Axes", o.Axes != nil
	}
	return "Value", math.Float32bits(o.Value) != 0
}

func (o *Slice) AttrGiven(slot int) (string, bool) {
	switch slot {
	case 1:
		return "Starts", o.Starts != nil
	case 2:
		return "Ends", o.Ends != nil
	case 3:
		return "Axes", o.Axes != nil
	}
	return "Steps", o.Steps != nil
}

func (o *Resize) AttrGiven(slot int) (string, bool) {
	switch slot {
	case 1:
		return "Scales", o.Scales != nil
	case 2:
		return "Sizes", o.Sizes != nil
	}
	return "Roi", o.Roi != nil
}
