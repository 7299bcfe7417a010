package mxnetexport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"DFT":             "MXNet 1.x has only contrib fft/ifft (GPU-only, interleaved layout, no length or one-sided form)",
		"STFT":            "MXNet 1.x has no short-time Fourier transform",
		"HannWindow":      "MXNet 1.x has no window generator ops",
		"HammingWindow":   "MXNet 1.x has no window generator ops",
		"BlackmanWindow":  "MXNet 1.x has no window generator ops",
		"MelWeightMatrix": "MXNet 1.x has no mel filter bank op",
		"DeformConv":      "MXNet's _contrib_DeformableConvolution has no modulation mask input and is GPU-only in stock builds",
	})
}
