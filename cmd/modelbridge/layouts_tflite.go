package main

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// tfliteSpelling says how TensorFlow Lite stores a weight: its NHWC
// kernels put the input channels last (CONV_2D OHWI), a depthwise kernel
// is one (1, kH, kW, C_in·depth_multiplier) tensor, TRANSPOSE_CONV keeps
// OHWI with the output shape as an input.
func tfliteSpelling(t *canon.Tensor, u weightUse, role string, group int64) string {
	s := t.Shape
	switch role {
	case "conv_weight":
		if len(s) != 4 {
			return "-"
		}
		if group > 1 && s[1] == 1 && s[0]%group == 0 {
			return fmt.Sprintf("DEPTHWISE_CONV_2D filter 1HWO %v (O = C_in·depth_multiplier = %d·%d)", []int64{1, s[2], s[3], s[0]}, group, s[0]/group)
		}
		return fmt.Sprintf("CONV_2D filter OHWI %v", []int64{s[0], s[2], s[3], s[1]})
	case "deconv_weight":
		if len(s) != 4 || group != 1 {
			return "-"
		}
		return fmt.Sprintf("TRANSPOSE_CONV filter OHWI %v, with an output_shape input", []int64{s[1], s[2], s[3], s[0]})
	case "linear_weight":
		return "FULLY_CONNECTED weights (out, in)"
	case "bias":
		return u.node.Op.Kind() + " bias (C_out)"
	case "linear_bias":
		return "FULLY_CONNECTED bias (out)"
	case "channel":
		return "(folded into the convolution: TFLite has no batch norm)"
	}
	return "-"
}
