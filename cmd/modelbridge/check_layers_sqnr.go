package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/optimize/quantize"
)

// layerSQNRs is the part of check --layers that judges a float model
// against its quantized form by signal-to-quantization-noise ratio.
type layerSQNRs struct {
	// SQNRThreshold (dB) is --layer-sqnr; FirstBelow indexes Layers: the
	// first layer whose SQNR is below it while its inputs' are not (-1:
	// none, or no threshold).
	SQNRThreshold float64 `json:"sqnr_threshold_db,omitempty"`
	FirstBelow    int     `json:"first_below_sqnr"`
}

func registerLayerSQNR(cmd *cobra.Command, min *float64) {
	cmd.Flags().Float64Var(min, "layer-sqnr", 0, "with --layers: name the first layer whose SQNR (dB, B against A) falls below this while its inputs' do not, e.g. 30 for a float model against its quantized form")
}

// layerSQNR is B's value against A's in dB; nil when they are equal or
// not float32 of the same size.
func layerSQNR(a, b *canon.Tensor) *float64 {
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
	db := quantize.SQNR(sig, noise)
	if math.IsInf(db, 0) || math.IsNaN(db) {
		return nil
	}
	return &db
}

func sqnrText(db *float64) string {
	if db == nil {
		return "exact"
	}
	return fmt.Sprintf("%.1f", *db)
}

// markSQNRLoss finds the first layer below the threshold whose matched
// inputs are at or above it: where the loss starts.
func (r *layersReport) markSQNRLoss(threshold float64) {
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

func printSQNRLoss(w io.Writer, r *layersReport) {
	if r.SQNRThreshold <= 0 {
		return
	}
	if r.FirstBelow < 0 {
		fmt.Fprintf(w, "every matched layer keeps SQNR >= %.1f dB\n", r.SQNRThreshold)
		return
	}
	l := r.Layers[r.FirstBelow]
	fmt.Fprintf(w, "first layer below %.1f dB SQNR: node %q (%s) in A, %q (%s) in B: %s dB, its inputs above it\n",
		r.SQNRThreshold, l.NodeA, l.OpA, l.NodeB, l.OpB, sqnrText(l.SQNR))
}
