package torchscript

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&opLacks, map[string]string{
		"HannWindow":      "torch's window functions of a constant length are computed at import",
		"HammingWindow":   "torch's window functions of a constant length are computed at import",
		"BlackmanWindow":  "torch's window functions of a constant length are computed at import",
		"MelWeightMatrix": "PyTorch has no mel filter bank operator (torchaudio's melscale_fbanks is Python over plain ops)",
	})
}
