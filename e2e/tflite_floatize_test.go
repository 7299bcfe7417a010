package e2e

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
	"github.com/modelbridge/modelbridge/interp"
)

// floatizeTFLite rewrites a quantized single-subgraph TFLite model as a
// float32 one with the dequantized weights (a constant's real values
// (q - zero_point)·scale, per axis where it is quantized so), keeping
// every op and its options. It handles the ops person_detect uses.
func floatizeTFLite(t *testing.T, src []byte) []byte {
	t.Helper()
	m := tflitefb.GetRootAsModel(src, 0)
	var sg tflitefb.SubGraph
	if !m.Subgraphs(&sg, 0) {
		t.Fatal("no subgraph")
	}
	b := flatbuffers.NewBuilder(len(src) * 4)
	ints := func(start func(*flatbuffers.Builder, int) flatbuffers.UOffsetT, v []int32) flatbuffers.UOffsetT {
		start(b, len(v))
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependInt32(v[i])
		}
		return b.EndVector(len(v))
	}
	// Buffers: 0 stays empty, then one per constant tensor.
	var bufData [][]byte
	bufData = append(bufData, nil)
	tensorBuf := make([]uint32, sg.TensorsLength())
	for i := 0; i < sg.TensorsLength(); i++ {
		var tt tflitefb.Tensor
		sg.Tensors(&tt, i)
		var buf tflitefb.Buffer
		m.Buffers(&buf, int(tt.Buffer()))
		data := buf.DataBytes()
		if len(data) == 0 {
			continue
		}
		if tt.Type() == tflitefb.TensorTypeINT32 && tt.Quantization(nil) == nil {
			// Shape operands stay integers.
			tensorBuf[i] = uint32(len(bufData))
			bufData = append(bufData, data)
			continue
		}
		var q tflitefb.QuantizationParameters
		tt.Quantization(&q)
		n := 1
		var shape []int
		for k := 0; k < tt.ShapeLength(); k++ {
			n *= int(tt.Shape(k))
			shape = append(shape, int(tt.Shape(k)))
		}
		inner := 1
		axis := int(q.QuantizedDimension())
		if q.ScaleLength() > 1 && len(shape) == 1 {
			axis = 0
		}
		for k := axis + 1; k < len(shape); k++ {
			inner *= shape[k]
		}
		out := make([]byte, 4*n)
		for e := 0; e < n; e++ {
			var v int64
			switch tt.Type() {
			case tflitefb.TensorTypeINT8:
				v = int64(int8(data[e]))
			case tflitefb.TensorTypeINT32:
				v = int64(int32(binary.LittleEndian.Uint32(data[4*e:])))
			default:
				t.Fatalf("tensor %d: type %s not handled", i, tflitefb.EnumNamesTensorType[tt.Type()])
			}
			ch := 0
			if q.ScaleLength() > 1 {
				ch = (e / inner) % q.ScaleLength()
			}
			zp := int64(0)
			if q.ZeroPointLength() > ch {
				zp = q.ZeroPoint(ch)
			}
			f := float32(float64(v-zp) * float64(q.Scale(ch)))
			binary.LittleEndian.PutUint32(out[4*e:], math.Float32bits(f))
		}
		tensorBuf[i] = uint32(len(bufData))
		bufData = append(bufData, out)
	}
	var bufOffs []flatbuffers.UOffsetT
	for _, d := range bufData {
		var dv flatbuffers.UOffsetT
		if d != nil {
			dv = b.CreateByteVector(d)
		}
		tflitefb.BufferStart(b)
		if d != nil {
			tflitefb.BufferAddData(b, dv)
		}
		bufOffs = append(bufOffs, tflitefb.BufferEnd(b))
	}
	var tensorOffs []flatbuffers.UOffsetT
	for i := 0; i < sg.TensorsLength(); i++ {
		var tt tflitefb.Tensor
		sg.Tensors(&tt, i)
		name := b.CreateString(string(tt.Name()))
		var shape []int32
		for k := 0; k < tt.ShapeLength(); k++ {
			shape = append(shape, tt.Shape(k))
		}
		sv := ints(tflitefb.TensorStartShapeVector, shape)
		typ := tflitefb.TensorTypeFLOAT32
		if tt.Type() == tflitefb.TensorTypeINT32 && tt.Quantization(nil) == nil {
			typ = tflitefb.TensorTypeINT32
		}
		tflitefb.TensorStart(b)
		tflitefb.TensorAddShape(b, sv)
		tflitefb.TensorAddType(b, typ)
		tflitefb.TensorAddBuffer(b, tensorBuf[i])
		tflitefb.TensorAddName(b, name)
		tensorOffs = append(tensorOffs, tflitefb.TensorEnd(b))
	}
	var opOffs []flatbuffers.UOffsetT
	for i := 0; i < sg.OperatorsLength(); i++ {
		var op tflitefb.Operator
		sg.Operators(&op, i)
		var ins, outs []int32
		for k := 0; k < op.InputsLength(); k++ {
			ins = append(ins, op.Inputs(k))
		}
		for k := 0; k < op.OutputsLength(); k++ {
			outs = append(outs, op.Outputs(k))
		}
		iv := ints(tflitefb.OperatorStartInputsVector, ins)
		ov := ints(tflitefb.OperatorStartOutputsVector, outs)
		var tab flatbuffers.Table
		var opts flatbuffers.UOffsetT
		has := op.BuiltinOptions(&tab)
		switch typ := op.BuiltinOptionsType(); {
		case !has:
		case typ == tflitefb.BuiltinOptionsConv2DOptions:
			var o tflitefb.Conv2DOptions
			o.Init(tab.Bytes, tab.Pos)
			tflitefb.Conv2DOptionsStart(b)
			tflitefb.Conv2DOptionsAddPadding(b, o.Padding())
			tflitefb.Conv2DOptionsAddStrideW(b, o.StrideW())
			tflitefb.Conv2DOptionsAddStrideH(b, o.StrideH())
			tflitefb.Conv2DOptionsAddDilationWFactor(b, o.DilationWFactor())
			tflitefb.Conv2DOptionsAddDilationHFactor(b, o.DilationHFactor())
			tflitefb.Conv2DOptionsAddFusedActivationFunction(b, o.FusedActivationFunction())
			opts = tflitefb.Conv2DOptionsEnd(b)
		case typ == tflitefb.BuiltinOptionsDepthwiseConv2DOptions:
			var o tflitefb.DepthwiseConv2DOptions
			o.Init(tab.Bytes, tab.Pos)
			tflitefb.DepthwiseConv2DOptionsStart(b)
			tflitefb.DepthwiseConv2DOptionsAddPadding(b, o.Padding())
			tflitefb.DepthwiseConv2DOptionsAddStrideW(b, o.StrideW())
			tflitefb.DepthwiseConv2DOptionsAddStrideH(b, o.StrideH())
			tflitefb.DepthwiseConv2DOptionsAddDepthMultiplier(b, o.DepthMultiplier())
			tflitefb.DepthwiseConv2DOptionsAddDilationWFactor(b, o.DilationWFactor())
			tflitefb.DepthwiseConv2DOptionsAddDilationHFactor(b, o.DilationHFactor())
			tflitefb.DepthwiseConv2DOptionsAddFusedActivationFunction(b, o.FusedActivationFunction())
			opts = tflitefb.DepthwiseConv2DOptionsEnd(b)
		case typ == tflitefb.BuiltinOptionsPool2DOptions:
			var o tflitefb.Pool2DOptions
			o.Init(tab.Bytes, tab.Pos)
			tflitefb.Pool2DOptionsStart(b)
			tflitefb.Pool2DOptionsAddPadding(b, o.Padding())
			tflitefb.Pool2DOptionsAddStrideW(b, o.StrideW())
			tflitefb.Pool2DOptionsAddStrideH(b, o.StrideH())
			tflitefb.Pool2DOptionsAddFilterWidth(b, o.FilterWidth())
			tflitefb.Pool2DOptionsAddFilterHeight(b, o.FilterHeight())
			tflitefb.Pool2DOptionsAddFusedActivationFunction(b, o.FusedActivationFunction())
			opts = tflitefb.Pool2DOptionsEnd(b)
		case typ == tflitefb.BuiltinOptionsReshapeOptions:
			var o tflitefb.ReshapeOptions
			o.Init(tab.Bytes, tab.Pos)
			var ns []int32
			for k := 0; k < o.NewShapeLength(); k++ {
				ns = append(ns, o.NewShape(k))
			}
			nv := ints(tflitefb.ReshapeOptionsStartNewShapeVector, ns)
			tflitefb.ReshapeOptionsStart(b)
			tflitefb.ReshapeOptionsAddNewShape(b, nv)
			opts = tflitefb.ReshapeOptionsEnd(b)
		case typ == tflitefb.BuiltinOptionsSoftmaxOptions:
			var o tflitefb.SoftmaxOptions
			o.Init(tab.Bytes, tab.Pos)
			tflitefb.SoftmaxOptionsStart(b)
			tflitefb.SoftmaxOptionsAddBeta(b, o.Beta())
			opts = tflitefb.SoftmaxOptionsEnd(b)
		default:
			t.Fatalf("operator %d: options %s not handled", i, tflitefb.EnumNamesBuiltinOptions[typ])
		}
		tflitefb.OperatorStart(b)
		tflitefb.OperatorAddOpcodeIndex(b, op.OpcodeIndex())
		tflitefb.OperatorAddInputs(b, iv)
		tflitefb.OperatorAddOutputs(b, ov)
		if has {
			tflitefb.OperatorAddBuiltinOptionsType(b, op.BuiltinOptionsType())
			tflitefb.OperatorAddBuiltinOptions(b, opts)
		}
		opOffs = append(opOffs, tflitefb.OperatorEnd(b))
	}
	var codeOffs []flatbuffers.UOffsetT
	for i := 0; i < m.OperatorCodesLength(); i++ {
		var oc tflitefb.OperatorCode
		m.OperatorCodes(&oc, i)
		tflitefb.OperatorCodeStart(b)
		tflitefb.OperatorCodeAddDeprecatedBuiltinCode(b, oc.DeprecatedBuiltinCode())
		tflitefb.OperatorCodeAddBuiltinCode(b, oc.BuiltinCode())
		tflitefb.OperatorCodeAddVersion(b, 1)
		codeOffs = append(codeOffs, tflitefb.OperatorCodeEnd(b))
	}
	tables := func(start func(*flatbuffers.Builder, int) flatbuffers.UOffsetT, v []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
		start(b, len(v))
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependUOffsetT(v[i])
		}
		return b.EndVector(len(v))
	}
	tv := tables(tflitefb.SubGraphStartTensorsVector, tensorOffs)
	opv := tables(tflitefb.SubGraphStartOperatorsVector, opOffs)
	var gin, gout []int32
	for k := 0; k < sg.InputsLength(); k++ {
		gin = append(gin, sg.Inputs(k))
	}
	for k := 0; k < sg.OutputsLength(); k++ {
		gout = append(gout, sg.Outputs(k))
	}
	inv := ints(tflitefb.SubGraphStartInputsVector, gin)
	outv := ints(tflitefb.SubGraphStartOutputsVector, gout)
	tflitefb.SubGraphStart(b)
	tflitefb.SubGraphAddTensors(b, tv)
	tflitefb.SubGraphAddOperators(b, opv)
	tflitefb.SubGraphAddInputs(b, inv)
	tflitefb.SubGraphAddOutputs(b, outv)
	sub := tflitefb.SubGraphEnd(b)
	sgv := tables(tflitefb.ModelStartSubgraphsVector, []flatbuffers.UOffsetT{sub})
	cv := tables(tflitefb.ModelStartOperatorCodesVector, codeOffs)
	bv := tables(tflitefb.ModelStartBuffersVector, bufOffs)
	desc := b.CreateString("float32 copy with dequantized weights")
	tflitefb.ModelStart(b)
	tflitefb.ModelAddVersion(b, 3)
	tflitefb.ModelAddOperatorCodes(b, cv)
	tflitefb.ModelAddSubgraphs(b, sgv)
	tflitefb.ModelAddBuffers(b, bv)
	tflitefb.ModelAddDescription(b, desc)
	b.FinishWithFileIdentifier(tflitefb.ModelEnd(b), []byte("TFL3"))
	return b.FinishedBytes()
}

// TestTFLitePersonDetectFloatAgainstArmNN checks the importer's float
// convolution, depthwise (1HWO), pooling, reshape and softmax paths and
// their NHWC -> NCHW moves against Arm NN on a float32 copy of
// person_detect (weights dequantized), and the int8 model's output (exact
// TFLite integer arithmetic) against that float model.
func TestTFLitePersonDetectFloatAgainstArmNN(t *testing.T) {
	path := tfliteFixture(t, "person_detect.tflite")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	floatPath := filepath.Join(t.TempDir(), "person_detect_float.tflite")
	if err := os.WriteFile(floatPath, floatizeTFLite(t, src), 0o644); err != nil {
		t.Fatal(err)
	}
	gf := load(t, floatPath, "", formats.ReadOptions{})
	gq := load(t, path, "", formats.ReadOptions{})
	for seed := int64(1); seed <= 2; seed++ {
		rng := rand.New(rand.NewSource(seed))
		q := make([]byte, 96*96)
		f := make([]float32, 96*96)
		for i := range q {
			v := int8(rng.Intn(256) - 128)
			q[i] = byte(v)
			f[i] = float32(float64(int64(v)+1) * 0.007843137718737125) // the input's scale and zero point -1
		}
		fin := canon.NewFloat32Tensor(gf.Inputs[0].Name, []int64{1, 96, 96, 1}, f)
		qin := &canon.Tensor{Name: gq.Inputs[0].Name, DType: canon.Int8, Shape: []int64{1, 96, 96, 1}, Data: q}
		fo, err := interp.Run(gf, map[string]*canon.Tensor{fin.Name: fin})
		if err != nil {
			t.Fatal(err)
		}
		qo, err := interp.Run(gq, map[string]*canon.Tensor{qin.Name: qin})
		if err != nil {
			t.Fatal(err)
		}
		mine := fo[gf.Outputs[0].Name]
		arm := runArmNN(t, floatPath, []*canon.Tensor{fin})[0]
		d := maxAbsDiff(t, mine, arm)
		mv, _ := mine.Float64s()
		av, _ := arm.Float64s()
		qv := qo[gq.Outputs[0].Name].Data
		deq := []float64{(float64(int8(qv[0])) + 128) / 256, (float64(int8(qv[1])) + 128) / 256}
		t.Logf("seed %d: float model interpreter %.6f, Arm NN %.6f (max diff %.2g); int8 model %.4f", seed, mv, av, d, deq)
		if d > 1e-4 {
			t.Errorf("seed %d: the float model differs from Arm NN by %g", seed, d)
		}
		if e := math.Abs(deq[0] - mv[0]); e > 0.05 {
			t.Errorf("seed %d: the int8 model gives %.4f, the float model %.4f", seed, deq, mv)
		}
	}
}
