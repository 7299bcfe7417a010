package compare

import (
	"encoding/binary"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// SQNR is the signal-to-quantization-noise ratio in dB: +Inf when there is
// no noise, -Inf when there is no signal.
func SQNR(signal, noise float64) float64 {
	if noise == 0 {
		return math.Inf(1)
	}
	if signal == 0 {
		return math.Inf(-1)
	}
	return 10 * math.Log10(signal/noise)
}

// LayerSQNR is b's SQNR against a in dB; nil when they are equal or not
// float32 tensors of the same size.
func LayerSQNR(a, b *canon.Tensor) *float64 {
	if a == nil || b == nil || a.DType != canon.Float32 || b.DType != canon.Float32 || len(a.Data) != len(b.Data) {
		return nil
	}
	var sig, noise float64
	for k := 0; k+4 <= len(a.Data); k += 4 {
		x := float64(math.Float32frombits(binary.LittleEndian.Uint32(a.Data[k:])))
		y := float64(math.Float32frombits(binary.LittleEndian.Uint32(b.Data[k:])))
		sig += x * x
		noise += (x - y) * (x - y)
	}
	db := SQNR(sig, noise)
	if math.IsInf(db, 0) || math.IsNaN(db) {
		return nil
	}
	return &db
}

// MarkSQNRLoss finds the first layer below threshold (dB) whose matched
// inputs are at or above it: where a quantized model's loss starts.
func (r *LayersReport) MarkSQNRLoss(threshold float64) {
	if r == nil {
		return
	}
	r.FirstBelow = -1
	r.SQNRThreshold = threshold
	if threshold <= 0 {
		return
	}
	below := func(db *float64) bool { return db != nil && *db < threshold }
	byValue := map[string]*float64{}
	for i, l := range r.Layers {
		byValue[l.ValueA] = l.SQNR
		if !below(l.SQNR) {
			continue
		}
		inputsAbove := true
		for _, in := range l.Inputs {
			if db, ok := byValue[in.Name]; ok && below(db) {
				inputsAbove = false
			}
		}
		if inputsAbove {
			r.FirstBelow = i
			return
		}
	}
}
