package torchexport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&opLacks, map[string]string{
		"DFT":            "model.py does not write Fourier transforms yet",
		"STFT":           "model.py does not write Fourier transforms yet",
		"HannWindow":     "model.py does not write window generators yet",
		"HammingWindow":  "model.py does not write window generators yet",
		"BlackmanWindow": "model.py does not write window generators yet",
		"DeformConv":     "model.py does not write deformable convolutions yet (torchvision.ops.deform_conv2d would need torchvision)",
	})
}
