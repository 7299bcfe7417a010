package tfliteimport

import (
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// opEntry converts one TFLite builtin; kinds are the canonical op kinds it
// may write (the importer's coverage).
type opEntry struct {
	fn    func(*opCtx) error
	kinds []string
}

// Kinds the fixed-point arithmetic of quantized kernels writes.
var fixedPointKinds = []string{"Cast", "Add", "Sub", "Mul", "Div", "Mod", "Sign", "Max", "Min"}

func withFixedPoint(k ...string) []string { return append(k, fixedPointKinds...) }

var opTable map[tflitefb.BuiltinOperator]opEntry

func init() {
	unary := func(op func() canon.Op) func(*opCtx) error {
		return func(c *opCtx) error { return convUnary(c, op()) }
	}
	binary := func(fn canon.BinaryFn) func(*opCtx) error {
		return func(c *opCtx) error { return convBinary(c, fn) }
	}
	opTable = map[tflitefb.BuiltinOperator]opEntry{
		tflitefb.BuiltinOperatorCONV_2D:                      {convConv2D, withFixedPoint("Conv", "Relu", "Clip", "Tanh", "ConvInteger")},
		tflitefb.BuiltinOperatorDEPTHWISE_CONV_2D:            {convDepthwiseConv2D, withFixedPoint("Conv", "Relu", "Clip", "Tanh", "ConvInteger")},
		tflitefb.BuiltinOperatorTRANSPOSE_CONV:               {convTransposeConv, withFixedPoint("ConvTranspose", "Relu", "Clip", "Tanh", "ConvInteger", "Reshape", "Pad", "Slice")},
		tflitefb.BuiltinOperatorFULLY_CONNECTED:              {convFullyConnected, withFixedPoint("Linear", "Reshape", "Relu", "Clip", "Tanh", "MatMulInteger")},
		tflitefb.BuiltinOperatorAVERAGE_POOL_2D:              {func(c *opCtx) error { return convPool(c, false) }, withFixedPoint("AveragePool", "ConvInteger")},
		tflitefb.BuiltinOperatorMAX_POOL_2D:                  {func(c *opCtx) error { return convPool(c, true) }, withFixedPoint("MaxPool")},
		tflitefb.BuiltinOperatorRESHAPE:                      {convReshape, []string{"Reshape"}},
		tflitefb.BuiltinOperatorTRANSPOSE:                    {convTranspose, []string{"Transpose"}},
		tflitefb.BuiltinOperatorSPLIT:                        {func(c *opCtx) error { return convSplit(c, false) }, []string{"Split"}},
		tflitefb.BuiltinOperatorSPLIT_V:                      {func(c *opCtx) error { return convSplit(c, true) }, []string{"Split"}},
		tflitefb.BuiltinOperatorSOFTMAX:                      {convSoftmax, withFixedPoint("Softmax", "ReduceMax", "ReduceSum", "Gather", "Unsqueeze", "GreaterOrEqual")},
		tflitefb.BuiltinOperatorADD:                          {binary(canon.Add), withFixedPoint("Add")},
		tflitefb.BuiltinOperatorSUB:                          {binary(canon.Sub), withFixedPoint("Sub")},
		tflitefb.BuiltinOperatorMUL:                          {binary(canon.Mul), []string{"Mul"}},
		tflitefb.BuiltinOperatorDIV:                          {binary(canon.Div), []string{"Div"}},
		tflitefb.BuiltinOperatorPAD:                          {convPad, []string{"Pad"}},
		tflitefb.BuiltinOperatorPADV2:                        {convPad, []string{"Pad"}},
		tflitefb.BuiltinOperatorLEAKY_RELU:                   {convLeakyRelu, withFixedPoint("LeakyRelu", "Where", "GreaterOrEqual")},
		tflitefb.BuiltinOperatorSTRIDED_SLICE:                {convStridedSlice, []string{"Slice", "Reshape"}},
		tflitefb.BuiltinOperatorCONCATENATION:                {convConcatenation, []string{"Concat"}},
		tflitefb.BuiltinOperatorMEAN:                         {convMean, []string{"ReduceMean"}},
		tflitefb.BuiltinOperatorSUM:                          {func(c *opCtx) error { return convReduce(c, canon.ReduceSum) }, []string{"ReduceSum"}},
		tflitefb.BuiltinOperatorREDUCE_MAX:                   {func(c *opCtx) error { return convReduce(c, canon.ReduceMax) }, []string{"ReduceMax"}},
		tflitefb.BuiltinOperatorREDUCE_MIN:                   {func(c *opCtx) error { return convReduce(c, canon.ReduceMin) }, []string{"ReduceMin"}},
		tflitefb.BuiltinOperatorREDUCE_PROD:                  {func(c *opCtx) error { return convReduce(c, canon.ReduceProd) }, []string{"ReduceProd"}},
		tflitefb.BuiltinOperatorMIRROR_PAD:                   {convPad, []string{"Pad"}},
		tflitefb.BuiltinOperatorMAXIMUM:                      {func(c *opCtx) error { return convPlain2(c, &canon.Variadic{Fn: canon.VarMax}) }, []string{"Max"}},
		tflitefb.BuiltinOperatorMINIMUM:                      {func(c *opCtx) error { return convPlain2(c, &canon.Variadic{Fn: canon.VarMin}) }, []string{"Min"}},
		tflitefb.BuiltinOperatorRESIZE_BILINEAR:              {func(c *opCtx) error { return convResize(c, true) }, []string{"Resize"}},
		tflitefb.BuiltinOperatorRESIZE_NEAREST_NEIGHBOR:      {func(c *opCtx) error { return convResize(c, false) }, []string{"Resize"}},
		tflitefb.BuiltinOperatorPRELU:                        {convPRelu, []string{"PRelu"}},
		tflitefb.BuiltinOperatorBATCH_MATMUL:                 {convBatchMatMul, []string{"MatMul"}},
		tflitefb.BuiltinOperatorPOW:                          {func(c *opCtx) error { return convPlain2(c, &canon.Pow{}) }, []string{"Pow"}},
		tflitefb.BuiltinOperatorGELU:                         {convGelu, []string{"Gelu"}},
		tflitefb.BuiltinOperatorELU:                          {unary(func() canon.Op { return &canon.Elu{Alpha: 1} }), []string{"Elu"}},
		tflitefb.BuiltinOperatorSIN:                          {unary(func() canon.Op { return &canon.Math{Fn: canon.MathSin} }), []string{"Sin"}},
		tflitefb.BuiltinOperatorCOS:                          {unary(func() canon.Op { return &canon.Math{Fn: canon.MathCos} }), []string{"Cos"}},
		tflitefb.BuiltinOperatorROUND:                        {unary(func() canon.Op { return &canon.Math{Fn: canon.MathRound} }), []string{"Round"}},
		tflitefb.BuiltinOperatorLOG_SOFTMAX:                  {convLogSoftmax, []string{"LogSoftmax"}},
		tflitefb.BuiltinOperatorGATHER:                       {convGather, []string{"Gather"}},
		tflitefb.BuiltinOperatorCAST:                         {convCast, []string{"Cast"}},
		tflitefb.BuiltinOperatorFLOOR:                        {unary(func() canon.Op { return &canon.Math{Fn: canon.MathFloor} }), []string{"Floor"}},
		tflitefb.BuiltinOperatorCEIL:                         {unary(func() canon.Op { return &canon.Math{Fn: canon.MathCeil} }), []string{"Ceil"}},
		tflitefb.BuiltinOperatorSIGN:                         {unary(func() canon.Op { return &canon.Math{Fn: canon.MathSign} }), []string{"Sign"}},
		tflitefb.BuiltinOperatorQUANTIZE:                     {convQuantize, withFixedPoint("Abs", "Floor", "Clip")},
		tflitefb.BuiltinOperatorDEQUANTIZE:                   {convDequantize, []string{"DequantizeLinear", "Cast"}},
		tflitefb.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM: {convSequenceLSTM, withFixedPoint("LSTM", "Reshape", "Slice", "Linear", "Split", "Sigmoid", "Tanh", "Relu", "Mul", "Add", "Clip", "Concat", "MatMulInteger", "Gather")},
		tflitefb.BuiltinOperatorLOGISTIC:                     {unary(func() canon.Op { return &canon.Unary{Fn: canon.Sigmoid} }), []string{"Sigmoid"}},
		tflitefb.BuiltinOperatorTANH:                         {unary(func() canon.Op { return &canon.Unary{Fn: canon.Tanh} }), []string{"Tanh"}},
		tflitefb.BuiltinOperatorRELU:                         {unary(func() canon.Op { return &canon.Unary{Fn: canon.Relu} }), []string{"Relu"}},
		tflitefb.BuiltinOperatorRELU6:                        {unary(func() canon.Op { return &canon.Clip{Min: 0, Max: 6} }), []string{"Clip"}},
		tflitefb.BuiltinOperatorHARD_SWISH:                   {unary(func() canon.Op { return &canon.Unary{Fn: canon.HardSwish} }), []string{"HardSwish"}},
		tflitefb.BuiltinOperatorEXP:                          {unary(func() canon.Op { return &canon.Math{Fn: canon.MathExp} }), []string{"Exp"}},
		tflitefb.BuiltinOperatorABS:                          {unary(func() canon.Op { return &canon.Math{Fn: canon.MathAbs} }), []string{"Abs"}},
		tflitefb.BuiltinOperatorSQRT:                         {unary(func() canon.Op { return &canon.Math{Fn: canon.MathSqrt} }), []string{"Sqrt"}},
		tflitefb.BuiltinOperatorNEG:                          {unary(func() canon.Op { return &canon.Math{Fn: canon.MathNeg} }), []string{"Neg"}},
		tflitefb.BuiltinOperatorLOG:                          {unary(func() canon.Op { return &canon.Math{Fn: canon.MathLog} }), []string{"Log"}},
	}
}

// lacksHint says why a builtin the table lacks is refused, when known.
func lacksHint(op tflitefb.BuiltinOperator) string {
	switch op {
	case tflitefb.BuiltinOperatorWHILE, tflitefb.BuiltinOperatorIF, tflitefb.BuiltinOperatorCALL_ONCE:
		return " (control flow over subgraphs is not read)"
	case tflitefb.BuiltinOperatorCUSTOM:
		return " (custom ops have no published semantics)"
	}
	return ""
}

// Ops is the importer's coverage: the canonical kinds its op table writes
// and, for every other kind, why a TFLite model does not produce it here.
func Ops() canon.Coverage {
	by := map[string][]string{}
	for code, e := range opTable {
		for _, k := range e.kinds {
			if canon.Lookup(k) != nil {
				by[k] = append(by[k], tflitefb.EnumNamesBuiltinOperator[code])
			}
		}
	}
	cov := canon.Coverage{}
	for k, why := range lacks {
		cov[k] = canon.Lacks(why)
	}
	// Transposes are written where a graph input or output keeps the
	// file's NHWC layout, not by one builtin.
	by["Transpose"] = append(by["Transpose"], "NHWC graph inputs and outputs")
	for k, names := range by {
		sort.Strings(names)
		names = compactStrings(names)
		cov[k] = canon.Handles(strings.Join(names, ", "))
	}
	return cov
}

func compactStrings(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
