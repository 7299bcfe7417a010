package mxnetimport

func init() {
	for kind, why := range map[string]string{
		"DFT":             "MXNet 1.x's contrib fft/ifft are GPU-only and are not read",
		"STFT":            "MXNet 1.x has no short-time Fourier transform",
		"HannWindow":      "MXNet 1.x has no window generator ops",
		"HammingWindow":   "MXNet 1.x has no window generator ops",
		"BlackmanWindow":  "MXNet 1.x has no window generator ops",
		"MelWeightMatrix": "MXNet 1.x has no mel filter bank op",
		"DeformConv":      "_contrib_DeformableConvolution is not read yet",
	} {
		lacks[kind] = why
	}
}
