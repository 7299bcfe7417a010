package e2e

import (
	"bytes"
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestTFLiteLSTMInt8 reads trained_lstm_int8 (TFLite's 8x8_16 integer
// LSTM written as exact integer ops) and checks it against the float
// model trained_lstm on the same inputs, at the LSTM layer and at the
// softmax, then its ONNX export in ONNX Runtime against the interpreter,
// bit for bit.
func TestTFLiteLSTMInt8(t *testing.T) {
	gi := load(t, tfliteFixture(t, "trained_lstm_int8.tflite"), "", formats.ReadOptions{})
	gf := load(t, tfliteFixture(t, "trained_lstm.tflite"), "", formats.ReadOptions{})
	const lstmOut = "tfl.unidirectional_sequence_lstm"
	const xScale, xZP, hScale, yScale, yZP = 0.003921569, -128, 0.0078167925, 1.0 / 256, -128
	rt := testfix.ORT(t)
	subI, subF := *gi, *gf
	subI.Outputs = append([]canon.ValueInfo{{Name: lstmOut}}, gi.Outputs...)
	subF.Outputs = append([]canon.ValueInfo{{Name: lstmOut}}, gf.Outputs...)
	var worstH, worstP float64
	for seed := int64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewSource(seed))
		q := make([]byte, 28*28)
		fv := make([]float32, 28*28)
		for i := range q {
			v := int8(rng.Intn(256) - 128)
			if rng.Intn(3) == 0 {
				v = -128 // blank pixels, as in MNIST
			}
			q[i] = byte(v)
			fv[i] = float32((float64(v) - xZP) * xScale)
		}
		xi := &canon.Tensor{Name: gi.Inputs[0].Name, DType: canon.Int8, Shape: []int64{1, 28, 28}, Data: q}
		xf := canon.NewFloat32Tensor(gf.Inputs[0].Name, []int64{1, 28, 28}, fv)
		oi, err := interp.Run(&subI, map[string]*canon.Tensor{xi.Name: xi})
		if err != nil {
			t.Fatal(err)
		}
		of, err := interp.Run(&subF, map[string]*canon.Tensor{xf.Name: xf})
		if err != nil {
			t.Fatal(err)
		}
		hq, hf := oi[lstmOut], of[lstmOut]
		hfv, _ := hf.Float64s()
		for i, b := range hq.Data {
			worstH = math.Max(worstH, math.Abs(float64(int8(b))*hScale-hfv[i]))
		}
		pq, pf := oi[gi.Outputs[0].Name], of[gf.Outputs[0].Name]
		pfv, _ := pf.Float64s()
		for i, b := range pq.Data {
			worstP = math.Max(worstP, math.Abs((float64(int8(b))-yZP)*yScale-pfv[i]))
		}
		ort := runORT(t, rt, gi, map[string]*canon.Tensor{xi.Name: xi})[0]
		if !bytes.Equal(ort.Data, pq.Data) || ort.DType != pq.DType {
			t.Errorf("seed %d: ONNX Runtime %v and the interpreter %v differ", seed, int8s(ort.Data), int8s(pq.Data))
		}
	}
	t.Logf("int8 vs float model: LSTM output max abs diff %.4g (%.1f steps of %.4g), softmax max abs diff %.4g", worstH, worstH/hScale, hScale, worstP)
	if worstH > 8*hScale {
		t.Errorf("the int8 LSTM's output differs from the float model's by %g, more than 8 quantization steps", worstH)
	}
	if worstP > 0.05 {
		t.Errorf("the int8 model's probabilities differ from the float model's by %g", worstP)
	}
}
