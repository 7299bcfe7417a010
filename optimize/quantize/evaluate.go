package quantize

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/interp"
)

// OutputError is how far one output of the quantized model is from the
// float model's over the evaluation inputs.
type OutputError struct {
	Name string `json:"name"`
	// SQNR is the signal-to-quantization-noise ratio in dB:
	// 10·log10(Σ ref² / Σ (ref - quantized)²) over every element of every
	// sample (+Inf when they are equal).
	SQNR     float64 `json:"sqnr_db"`
	MaxAbs   float64 `json:"max_abs_error"`
	Elements int64   `json:"elements"`
	Samples  int     `json:"samples"`
	// Drawn: the output is computed from random draws, which the two
	// models sample independently; no error is measured (SQNR stays +Inf).
	Drawn bool `json:"drawn,omitempty"`
}

// Evaluate runs both graphs in the interpreter on every sample and
// compares their float outputs, matched by position.
func Evaluate(float, quant *canon.Graph, src Samples, progress func(done, total int64)) ([]OutputError, error) {
	if len(float.Outputs) != len(quant.Outputs) {
		return nil, fmt.Errorf("the float model has %d outputs, the quantized one %d", len(float.Outputs), len(quant.Outputs))
	}
	pf, err := interp.New(float)
	if err != nil {
		return nil, err
	}
	pq, err := interp.New(quant)
	if err != nil {
		return nil, err
	}
	signal := make([]float64, len(float.Outputs))
	noise := make([]float64, len(float.Outputs))
	res := make([]OutputError, len(float.Outputs))
	drawn := canon.DrawnOutputs(float)
	for i, o := range float.Outputs {
		res[i].Name = o.Name
		res[i].Drawn = drawn[i]
	}
	// Each sample's outputs overwrite the last's (compared before the next run).
	of, oq := map[string]*canon.Tensor{}, map[string]*canon.Tensor{}
	for s := 0; s < src.Len(); s++ {
		in, err := src.Sample(s)
		if err != nil {
			return nil, err
		}
		if err := pf.RunInto(in, of); err != nil {
			return nil, fmt.Errorf("float model, input %d: %w", s, err)
		}
		if err := pq.RunInto(in, oq); err != nil {
			return nil, fmt.Errorf("quantized model, input %d: %w", s, err)
		}
		for i := range float.Outputs {
			a, b := of[float.Outputs[i].Name], oq[quant.Outputs[i].Name]
			if a == nil || b == nil || a.DType != canon.Float32 || b.DType != canon.Float32 || len(a.Data) != len(b.Data) || drawn[i] {
				continue
			}
			for k := 0; k < len(a.Data)/4; k++ {
				x, y := f32At(a.Data, k), f32At(b.Data, k)
				signal[i] += x * x
				noise[i] += (x - y) * (x - y)
				res[i].MaxAbs = max(res[i].MaxAbs, math.Abs(x-y))
			}
			res[i].Elements += int64(len(a.Data) / 4)
			res[i].Samples++
		}
		if progress != nil {
			progress(int64(s+1), int64(src.Len()))
		}
	}
	for i := range res {
		res[i].SQNR = SQNR(signal[i], noise[i])
	}
	return res, nil
}

// SQNR is 10·log10(signal/noise) from sums of squares.
func SQNR(signal, noise float64) float64 { return compare.SQNR(signal, noise) }
