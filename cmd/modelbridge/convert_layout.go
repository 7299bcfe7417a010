package main

import (
	"strings"

	"github.com/modelbridge/modelbridge/formats"
)

// checkLayoutFlags refuses --io-layout values and formats it does not
// apply to, and the --fp16 companions TFLite's float16 weights ignore.
func checkLayoutFlags(exp *formats.Exporter, ioLayout string, hf *fp16Flags) error {
	switch strings.ToLower(ioLayout) {
	case "", "nchw":
	case "nhwc":
		if exp.Name != "tflite" && exp.Name != "onnx" {
			return usageErrorf("--io-layout nhwc is written by the tflite and onnx exporters only; %s models keep the NCHW inputs and outputs of the canonical graph", exp.Name)
		}
	default:
		return usageErrorf("--io-layout %q: want nchw or nhwc", ioLayout)
	}
	if exp.Name == "tflite" && hf.on && (hf.keepIO || len(hf.keep) > 0) {
		return usageErrorf("--keep-io-types and --fp32-ops do not apply to .tflite: with --fp16 its weights are float16 and every op computes in float32")
	}
	return nil
}
