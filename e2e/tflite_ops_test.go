package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
	"github.com/modelbridge/modelbridge/interp"
)

// tflCase is a small float model: tensors[0..inputs) are its inputs.
type tflCase struct {
	name    string
	tensors []tflTensor
	ops     []tflOp
	inputs  []int32
	outputs []int32
	// numpyTransposeConv: check against the NumPy reference of TFLite's
	// TRANSPOSE_CONV instead of Arm NN, whose 20.08 parser pads it
	// differently (its output is shifted by one pixel against TFLite's
	// kernel); the filter is tensor 1 and the strides 2×2, SAME.
	numpyTransposeConv bool
	// armnn, when set, is the model Arm NN runs instead (with the same
	// inputs): an equivalent it can parse.
	armnn *tflCase
	// steps is how many quantization steps a quantized case may differ
	// from Arm NN by: its reference backend computes quantized kernels in
	// float, TFLite (and the importer) in fixed point.
	steps float64
}

// q8 is an int8 activation with one scale and zero point.
func q8(name string, scale float32, zero int64, shape ...int32) tflTensor {
	return tflTensor{name: name, shape: shape, typ: tflitefb.TensorTypeINT8, scale: []float32{scale}, zero: []int64{zero}}
}

func act(t string, shape ...int32) tflTensor {
	return tflTensor{name: t, shape: shape, typ: tflitefb.TensorTypeFLOAT32}
}

func konst(t string, shape []int32, v []float32) tflTensor {
	return tflTensor{name: t, shape: shape, typ: tflitefb.TensorTypeFLOAT32, data: f32Bytes(v)}
}

func ikonst(t string, shape []int32, v []int32) tflTensor {
	return tflTensor{name: t, shape: shape, typ: tflitefb.TensorTypeINT32, data: i32Bytes(v)}
}

func numel(s []int32) int {
	n := 1
	for _, d := range s {
		n *= int(d)
	}
	return n
}

func convOpts(pad tflitefb.Padding, sh, sw, dh, dw int32, a tflitefb.ActivationFunctionType) func(*flatbuffers.Builder) flatbuffers.UOffsetT {
	return func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.Conv2DOptionsStart(b)
		tflitefb.Conv2DOptionsAddPadding(b, pad)
		tflitefb.Conv2DOptionsAddStrideH(b, sh)
		tflitefb.Conv2DOptionsAddStrideW(b, sw)
		tflitefb.Conv2DOptionsAddDilationHFactor(b, dh)
		tflitefb.Conv2DOptionsAddDilationWFactor(b, dw)
		tflitefb.Conv2DOptionsAddFusedActivationFunction(b, a)
		return tflitefb.Conv2DOptionsEnd(b)
	}
}

func poolOpts(pad tflitefb.Padding, k, s int32) func(*flatbuffers.Builder) flatbuffers.UOffsetT {
	return func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.Pool2DOptionsStart(b)
		tflitefb.Pool2DOptionsAddPadding(b, pad)
		tflitefb.Pool2DOptionsAddFilterHeight(b, k)
		tflitefb.Pool2DOptionsAddFilterWidth(b, k)
		tflitefb.Pool2DOptionsAddStrideH(b, s)
		tflitefb.Pool2DOptionsAddStrideW(b, s)
		return tflitefb.Pool2DOptionsEnd(b)
	}
}

func unaryCase(name string, code tflitefb.BuiltinOperator) tflCase {
	return tflCase{name: name, tensors: []tflTensor{act("x", 1, 3, 4, 2), act("y", 1, 3, 4, 2)},
		ops: []tflOp{{code: code, inputs: []int32{0}, outputs: []int32{1}}}, inputs: []int32{0}, outputs: []int32{1}}
}

func tflCases() []tflCase {
	return []tflCase{
		{name: "conv_same_stride_relu6", tensors: []tflTensor{act("x", 1, 7, 9, 3), konst("w", []int32{4, 3, 3, 3}, ramp(108, 1)), konst("b", []int32{4}, ramp(4, 2)), act("y", 1, 4, 9, 4)},
			ops:    []tflOp{{code: tflitefb.BuiltinOperatorCONV_2D, inputs: []int32{0, 1, 2}, outputs: []int32{3}, optsType: tflitefb.BuiltinOptionsConv2DOptions, opts: convOpts(tflitefb.PaddingSAME, 2, 1, 1, 1, tflitefb.ActivationFunctionTypeRELU6)}},
			inputs: []int32{0}, outputs: []int32{3}},
		{name: "conv_valid_dilated", tensors: []tflTensor{act("x", 1, 8, 8, 2), konst("w", []int32{3, 3, 2, 2}, ramp(36, 3)), konst("b", []int32{3}, ramp(3, 4)), act("y", 1, 4, 6, 3)},
			ops:    []tflOp{{code: tflitefb.BuiltinOperatorCONV_2D, inputs: []int32{0, 1, 2}, outputs: []int32{3}, optsType: tflitefb.BuiltinOptionsConv2DOptions, opts: convOpts(tflitefb.PaddingVALID, 1, 1, 2, 2, tflitefb.ActivationFunctionTypeNONE)}},
			inputs: []int32{0}, outputs: []int32{3}},
		{name: "depthwise_multiplier2", tensors: []tflTensor{act("x", 1, 6, 7, 3), konst("w", []int32{1, 3, 3, 6}, ramp(54, 5)), konst("b", []int32{6}, ramp(6, 6)), act("y", 1, 3, 4, 6)},
			ops: []tflOp{{code: tflitefb.BuiltinOperatorDEPTHWISE_CONV_2D, inputs: []int32{0, 1, 2}, outputs: []int32{3}, optsType: tflitefb.BuiltinOptionsDepthwiseConv2DOptions,
				opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
					tflitefb.DepthwiseConv2DOptionsStart(b)
					tflitefb.DepthwiseConv2DOptionsAddPadding(b, tflitefb.PaddingSAME)
					tflitefb.DepthwiseConv2DOptionsAddStrideH(b, 2)
					tflitefb.DepthwiseConv2DOptionsAddStrideW(b, 2)
					tflitefb.DepthwiseConv2DOptionsAddDepthMultiplier(b, 2)
					tflitefb.DepthwiseConv2DOptionsAddDilationHFactor(b, 1)
					tflitefb.DepthwiseConv2DOptionsAddDilationWFactor(b, 1)
					return tflitefb.DepthwiseConv2DOptionsEnd(b)
				}}},
			inputs: []int32{0}, outputs: []int32{3}},
		{name: "transpose_conv_same_stride2", tensors: []tflTensor{ikonst("shape", []int32{4}, []int32{1, 8, 10, 4}), konst("w", []int32{4, 3, 3, 2}, ramp(72, 7)), act("x", 1, 4, 5, 2), act("y", 1, 8, 10, 4)},
			ops: []tflOp{{code: tflitefb.BuiltinOperatorTRANSPOSE_CONV, inputs: []int32{0, 1, 2}, outputs: []int32{3}, optsType: tflitefb.BuiltinOptionsTransposeConvOptions,
				opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
					tflitefb.TransposeConvOptionsStart(b)
					tflitefb.TransposeConvOptionsAddPadding(b, tflitefb.PaddingSAME)
					tflitefb.TransposeConvOptionsAddStrideH(b, 2)
					tflitefb.TransposeConvOptionsAddStrideW(b, 2)
					return tflitefb.TransposeConvOptionsEnd(b)
				}}},
			inputs: []int32{2}, outputs: []int32{3}, numpyTransposeConv: true},
		{name: "average_pool_same", tensors: []tflTensor{act("x", 1, 7, 7, 3), act("y", 1, 4, 4, 3)},
			ops:    []tflOp{{code: tflitefb.BuiltinOperatorAVERAGE_POOL_2D, inputs: []int32{0}, outputs: []int32{1}, optsType: tflitefb.BuiltinOptionsPool2DOptions, opts: poolOpts(tflitefb.PaddingSAME, 3, 2)}},
			inputs: []int32{0}, outputs: []int32{1}},
		{name: "max_pool_valid", tensors: []tflTensor{act("x", 1, 7, 7, 3), act("y", 1, 3, 3, 3)},
			ops:    []tflOp{{code: tflitefb.BuiltinOperatorMAX_POOL_2D, inputs: []int32{0}, outputs: []int32{1}, optsType: tflitefb.BuiltinOptionsPool2DOptions, opts: poolOpts(tflitefb.PaddingVALID, 2, 2)}},
			inputs: []int32{0}, outputs: []int32{1}},
		{name: "conv_then_add_channel_constant_mean", tensors: []tflTensor{act("x", 1, 5, 5, 2), konst("w", []int32{3, 1, 1, 2}, ramp(6, 8)), act("c", 1, 5, 5, 3), konst("k", []int32{3}, []float32{0.5, -1, 2}), act("s", 1, 5, 5, 3), ikonst("axes", []int32{2}, []int32{1, 2}), act("y", 1, 1, 1, 3), konst("cb", []int32{3}, []float32{0.1, 0.2, -0.3})},
			ops: []tflOp{
				{code: tflitefb.BuiltinOperatorCONV_2D, inputs: []int32{0, 1, 7}, outputs: []int32{2}, optsType: tflitefb.BuiltinOptionsConv2DOptions, opts: convOpts(tflitefb.PaddingVALID, 1, 1, 1, 1, tflitefb.ActivationFunctionTypeNONE)},
				{code: tflitefb.BuiltinOperatorADD, inputs: []int32{2, 3}, outputs: []int32{4}, optsType: tflitefb.BuiltinOptionsAddOptions, opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
					tflitefb.AddOptionsStart(b)
					tflitefb.AddOptionsAddFusedActivationFunction(b, tflitefb.ActivationFunctionTypeRELU)
					return tflitefb.AddOptionsEnd(b)
				}},
				{code: tflitefb.BuiltinOperatorMEAN, inputs: []int32{4, 5}, outputs: []int32{6}, optsType: tflitefb.BuiltinOptionsReducerOptions, opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
					tflitefb.ReducerOptionsStart(b)
					tflitefb.ReducerOptionsAddKeepDims(b, true)
					return tflitefb.ReducerOptionsEnd(b)
				}},
			},
			inputs: []int32{0}, outputs: []int32{6}},
		{name: "pad", tensors: []tflTensor{act("x", 1, 3, 3, 2), ikonst("p", []int32{4, 2}, []int32{0, 0, 1, 2, 2, 1, 0, 0}), act("y", 1, 6, 6, 2)},
			ops:    []tflOp{{code: tflitefb.BuiltinOperatorPAD, inputs: []int32{0, 1}, outputs: []int32{2}}},
			inputs: []int32{0}, outputs: []int32{2}},
		{name: "strided_slice", tensors: []tflTensor{act("x", 1, 6, 6, 4), ikonst("b", []int32{4}, []int32{0, 1, 0, 1}), ikonst("e", []int32{4}, []int32{1, 5, 6, 4}), ikonst("s", []int32{4}, []int32{1, 2, 1, 1}), act("y", 1, 2, 6, 3)},
			ops: []tflOp{{code: tflitefb.BuiltinOperatorSTRIDED_SLICE, inputs: []int32{0, 1, 2, 3}, outputs: []int32{4}, optsType: tflitefb.BuiltinOptionsStridedSliceOptions, opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
				tflitefb.StridedSliceOptionsStart(b)
				tflitefb.StridedSliceOptionsAddEndMask(b, 4)
				return tflitefb.StridedSliceOptionsEnd(b)
			}}},
			inputs: []int32{0}, outputs: []int32{4}},
		{name: "concatenation_channels", tensors: []tflTensor{act("a", 1, 2, 3, 2), act("b", 1, 2, 3, 3), act("y", 1, 2, 3, 5)},
			ops: []tflOp{{code: tflitefb.BuiltinOperatorCONCATENATION, inputs: []int32{0, 1}, outputs: []int32{2}, optsType: tflitefb.BuiltinOptionsConcatenationOptions, opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
				tflitefb.ConcatenationOptionsStart(b)
				tflitefb.ConcatenationOptionsAddAxis(b, 3)
				return tflitefb.ConcatenationOptionsEnd(b)
			}}},
			inputs: []int32{0, 1}, outputs: []int32{2}},
		{name: "conv_reshape_fully_connected", tensors: []tflTensor{act("x", 1, 2, 2, 3), konst("cw", []int32{3, 1, 1, 3}, ramp(9, 11)), konst("cb", []int32{3}, ramp(3, 12)), act("c", 1, 2, 2, 3), act("r", 1, 12), konst("w", []int32{4, 12}, ramp(48, 9)), konst("b", []int32{4}, ramp(4, 10)), act("y", 1, 4)},
			ops: []tflOp{
				{code: tflitefb.BuiltinOperatorCONV_2D, inputs: []int32{0, 1, 2}, outputs: []int32{3}, optsType: tflitefb.BuiltinOptionsConv2DOptions, opts: convOpts(tflitefb.PaddingVALID, 1, 1, 1, 1, tflitefb.ActivationFunctionTypeNONE)},
				{code: tflitefb.BuiltinOperatorRESHAPE, inputs: []int32{3}, outputs: []int32{4}, optsType: tflitefb.BuiltinOptionsReshapeOptions, opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
					b.StartVector(4, 2, 4)
					b.PrependInt32(12)
					b.PrependInt32(1)
					v := b.EndVector(2)
					tflitefb.ReshapeOptionsStart(b)
					tflitefb.ReshapeOptionsAddNewShape(b, v)
					return tflitefb.ReshapeOptionsEnd(b)
				}},
				{code: tflitefb.BuiltinOperatorFULLY_CONNECTED, inputs: []int32{4, 5, 6}, outputs: []int32{7}, optsType: tflitefb.BuiltinOptionsFullyConnectedOptions, opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
					tflitefb.FullyConnectedOptionsStart(b)
					tflitefb.FullyConnectedOptionsAddFusedActivationFunction(b, tflitefb.ActivationFunctionTypeTANH)
					return tflitefb.FullyConnectedOptionsEnd(b)
				}},
			},
			inputs: []int32{0}, outputs: []int32{7}},
		{name: "softmax_beta", tensors: []tflTensor{act("x", 2, 5), act("y", 2, 5)},
			ops: []tflOp{{code: tflitefb.BuiltinOperatorSOFTMAX, inputs: []int32{0}, outputs: []int32{1}, optsType: tflitefb.BuiltinOptionsSoftmaxOptions, opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
				tflitefb.SoftmaxOptionsStart(b)
				tflitefb.SoftmaxOptionsAddBeta(b, 0.5)
				return tflitefb.SoftmaxOptionsEnd(b)
			}}},
			inputs: []int32{0}, outputs: []int32{1}},
		{name: "leaky_relu", tensors: []tflTensor{act("x", 1, 3, 4, 2), act("y", 1, 3, 4, 2)},
			ops: []tflOp{{code: tflitefb.BuiltinOperatorLEAKY_RELU, inputs: []int32{0}, outputs: []int32{1}, optsType: tflitefb.BuiltinOptionsLeakyReluOptions, opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
				tflitefb.LeakyReluOptionsStart(b)
				tflitefb.LeakyReluOptionsAddAlpha(b, 0.2)
				return tflitefb.LeakyReluOptionsEnd(b)
			}}},
			inputs: []int32{0}, outputs: []int32{1}},
		{name: "dequantize_float16_weights_conv", tensors: []tflTensor{act("x", 1, 5, 5, 2), {name: "w16", shape: []int32{3, 3, 3, 2}, typ: tflitefb.TensorTypeFLOAT16, data: f16Bytes(ramp(54, 13))}, act("w", 3, 3, 3, 2), konst("b", []int32{3}, ramp(3, 14)), act("y", 1, 5, 5, 3)},
			ops: []tflOp{
				{code: tflitefb.BuiltinOperatorDEQUANTIZE, inputs: []int32{1}, outputs: []int32{2}},
				{code: tflitefb.BuiltinOperatorCONV_2D, inputs: []int32{0, 2, 3}, outputs: []int32{4}, optsType: tflitefb.BuiltinOptionsConv2DOptions, opts: convOpts(tflitefb.PaddingSAME, 1, 1, 1, 1, tflitefb.ActivationFunctionTypeNONE)},
			},
			inputs: []int32{0}, outputs: []int32{4},
			// Arm NN 20.08 takes convolution weights only as constants: it
			// runs the float32 weights the float16 ones widen to exactly.
			armnn: &tflCase{tensors: []tflTensor{act("x", 1, 5, 5, 2), konst("w", []int32{3, 3, 3, 2}, widenHalf(ramp(54, 13))), konst("b", []int32{3}, ramp(3, 14)), act("y", 1, 5, 5, 3)},
				ops:    []tflOp{{code: tflitefb.BuiltinOperatorCONV_2D, inputs: []int32{0, 1, 2}, outputs: []int32{3}, optsType: tflitefb.BuiltinOptionsConv2DOptions, opts: convOpts(tflitefb.PaddingSAME, 1, 1, 1, 1, tflitefb.ActivationFunctionTypeNONE)}},
				inputs: []int32{0}, outputs: []int32{3}}},
		{name: "int8_max_pool_relu6", tensors: []tflTensor{q8("x", 0.05, 3, 1, 6, 6, 2), q8("y", 0.05, 3, 1, 3, 3, 2)},
			ops: []tflOp{{code: tflitefb.BuiltinOperatorMAX_POOL_2D, inputs: []int32{0}, outputs: []int32{1}, optsType: tflitefb.BuiltinOptionsPool2DOptions, opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
				tflitefb.Pool2DOptionsStart(b)
				tflitefb.Pool2DOptionsAddPadding(b, tflitefb.PaddingVALID)
				tflitefb.Pool2DOptionsAddFilterHeight(b, 2)
				tflitefb.Pool2DOptionsAddFilterWidth(b, 2)
				tflitefb.Pool2DOptionsAddStrideH(b, 2)
				tflitefb.Pool2DOptionsAddStrideW(b, 2)
				tflitefb.Pool2DOptionsAddFusedActivationFunction(b, tflitefb.ActivationFunctionTypeRELU6)
				return tflitefb.Pool2DOptionsEnd(b)
			}}},
			inputs: []int32{0}, outputs: []int32{1}},
		{name: "int8_average_pool_same", steps: 1, tensors: []tflTensor{q8("x", 0.05, 3, 1, 7, 7, 2), q8("y", 0.05, 3, 1, 4, 4, 2)},
			ops:    []tflOp{{code: tflitefb.BuiltinOperatorAVERAGE_POOL_2D, inputs: []int32{0}, outputs: []int32{1}, optsType: tflitefb.BuiltinOptionsPool2DOptions, opts: poolOpts(tflitefb.PaddingSAME, 3, 2)}},
			inputs: []int32{0}, outputs: []int32{1}},
		{name: "int8_add_rescaled", steps: 1, tensors: []tflTensor{q8("a", 0.05, 3, 1, 3, 4, 2), q8("b", 0.02, -7, 1, 3, 4, 2), q8("y", 0.07, 1, 1, 3, 4, 2)},
			ops: []tflOp{{code: tflitefb.BuiltinOperatorADD, inputs: []int32{0, 1}, outputs: []int32{2}, optsType: tflitefb.BuiltinOptionsAddOptions, opts: func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
				tflitefb.AddOptionsStart(b)
				return tflitefb.AddOptionsEnd(b)
			}}},
			inputs: []int32{0, 1}, outputs: []int32{2}},
		{name: "quantize_dequantize", tensors: []tflTensor{act("x", 1, 3, 4, 2), q8("q", 0.03, -5, 1, 3, 4, 2), act("y", 1, 3, 4, 2)},
			ops: []tflOp{
				{code: tflitefb.BuiltinOperatorQUANTIZE, inputs: []int32{0}, outputs: []int32{1}},
				{code: tflitefb.BuiltinOperatorDEQUANTIZE, inputs: []int32{1}, outputs: []int32{2}},
			},
			inputs: []int32{0}, outputs: []int32{2}, steps: 0.03},
		unaryCase("logistic", tflitefb.BuiltinOperatorLOGISTIC),
		unaryCase("tanh", tflitefb.BuiltinOperatorTANH),
		unaryCase("relu6", tflitefb.BuiltinOperatorRELU6),
		unaryCase("hard_swish", tflitefb.BuiltinOperatorHARD_SWISH),
	}
}

// TestTFLiteOpsAgainstArmNN builds one small float model per op (and
// option: SAME/VALID padding, strides, dilation, depth multiplier, fused
// activations, broadcast constants, masks) and compares the interpreter
// with Arm NN on the same inputs. Cases Arm NN cannot parse are skipped,
// naming its error.
func TestTFLiteOpsAgainstArmNN(t *testing.T) {
	for _, tc := range tflCases() {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name+".tflite")
			if err := os.WriteFile(path, buildTFLite(tc.tensors, tc.ops, tc.inputs, tc.outputs), 0o644); err != nil {
				t.Fatal(err)
			}
			g := load(t, path, "", formats.ReadOptions{})
			edge := map[string]bool{}
			for _, v := range append(append([]canon.ValueInfo{}, g.Inputs...), g.Outputs...) {
				edge[v.Name] = true
			}
			for _, n := range g.Nodes {
				if n.Op.Kind() == "Transpose" && !edge[n.Inputs[0]] && !edge[n.Outputs[0]] {
					t.Errorf("Transpose %s is inside the graph", n.Name)
				}
			}
			var ins []*canon.Tensor
			feeds := map[string]*canon.Tensor{}
			for k, i := range tc.inputs {
				tt := tc.tensors[i]
				shape := make([]int64, len(tt.shape))
				for a, d := range tt.shape {
					shape[a] = int64(d)
				}
				scaled := ramp(numel(tt.shape), float64(k)*3+0.4)
				for e := range scaled {
					scaled[e] *= 3
				}
				in := canon.NewFloat32Tensor(g.Inputs[k].Name, shape, scaled)
				if tt.typ == tflitefb.TensorTypeINT8 {
					data := make([]byte, len(scaled))
					for e, v := range scaled {
						data[e] = byte(int8(v * 42))
					}
					in = &canon.Tensor{Name: g.Inputs[k].Name, DType: canon.Int8, Shape: shape, Data: data}
				}
				ins = append(ins, in)
				feeds[in.Name] = in
			}
			got, err := interp.Run(g, feeds)
			if err != nil {
				t.Fatal(err)
			}
			if tc.numpyTransposeConv {
				checkTransposeConvNumPy(t, tc, ins[0], got[g.Outputs[0].Name])
				return
			}
			armPath := path
			if a := tc.armnn; a != nil {
				armPath = filepath.Join(t.TempDir(), tc.name+"_armnn.tflite")
				if err := os.WriteFile(armPath, buildTFLite(a.tensors, a.ops, a.inputs, a.outputs), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			arm, err := runArmNNErr(t, armPath, ins)
			if err != nil {
				if strings.Contains(err.Error(), "not supported") || strings.Contains(err.Error(), "Unsupported") || strings.Contains(err.Error(), "unsupported") {
					t.Skipf("skipping: Arm NN 20.08 cannot run this model: %v", err)
				}
				t.Fatal(err)
			}
			mine := got[g.Outputs[0].Name]
			if d := maxAbsDiff(t, mine, arm[0]); d > 2e-5 && d > tc.steps {
				mv, _ := mine.Float64s()
				av, _ := arm[0].Float64s()
				t.Errorf("interpreter and Arm NN differ by %g (first values %.4g and %.4g)", d, mv[:min(6, len(mv))], av[:min(6, len(av))])
			} else {
				t.Logf("max abs diff %.2g", d)
			}
		})
	}
}

// checkTransposeConvNumPy compares a TRANSPOSE_CONV case with the NumPy
// reference of TFLite's kernel.
func checkTransposeConvNumPy(t *testing.T, tc tflCase, x, mine *canon.Tensor) {
	t.Helper()
	dir := t.TempDir()
	wt := tc.tensors[1]
	w := &canon.Tensor{Name: "w", DType: canon.Float32, Shape: []int64{int64(wt.shape[0]), int64(wt.shape[1]), int64(wt.shape[2]), int64(wt.shape[3])}, Data: wt.data}
	for name, v := range map[string]*canon.Tensor{"x.npy": x, "w.npy": w} {
		var buf bytes.Buffer
		if err := npy.Write(&buf, v); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ys := tc.tensors[tc.outputs[0]].shape
	script := filepath.Join(testfix.RepoRoot(), "importers", "tflite", "testdata", "transpose_conv_reference.py")
	out := filepath.Join(dir, "y.npy")
	if msg, err := exec.Command("/usr/bin/python3", script, filepath.Join(dir, "x.npy"), filepath.Join(dir, "w.npy"),
		strconv.Itoa(int(ys[1])), strconv.Itoa(int(ys[2])), "2", "2", "SAME", out).CombinedOutput(); err != nil {
		t.Skipf("skipping: the NumPy reference did not run (/usr/bin/python3 with numpy is needed): %v\n%s", err, msg)
	}
	want, err := npy.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(t, mine, want); d > 2e-5 {
		t.Errorf("interpreter and the NumPy reference of TFLite's TRANSPOSE_CONV differ by %g", d)
	} else {
		t.Logf("max abs diff against the NumPy reference %.2g", d)
	}
}

func f16Bytes(v []float32) []byte {
	out := make([]byte, 2*len(v))
	for i, x := range v {
		h := canon.Float32ToHalf(x)
		out[2*i], out[2*i+1] = byte(h), byte(h>>8)
	}
	return out
}

// widenHalf rounds v to float16 and back.
func widenHalf(v []float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = canon.HalfToFloat32(canon.Float32ToHalf(x))
	}
	return out
}
