package caffeimport

import "github.com/modelbridge/modelbridge/internal/optable"

// The signal kinds and DeformConv: no BVLC Caffe layer reads as them.
func init() {
	optable.Add(&lacks, map[string]string{
		"DFT":             "BVLC Caffe has no Fourier transform layer",
		"STFT":            "BVLC Caffe has no Fourier transform layer",
		"HannWindow":      "BVLC Caffe has no window generator layer",
		"HammingWindow":   "BVLC Caffe has no window generator layer",
		"BlackmanWindow":  "BVLC Caffe has no window generator layer",
		"MelWeightMatrix": "BVLC Caffe has no mel filter bank layer",
		"DeformConv":      "BVLC Caffe has no deformable convolution layer",
	})
}
