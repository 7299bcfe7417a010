package torchscript

import "github.com/modelbridge/modelbridge/internal/optable"

// The generate family is not read from TorchScript yet: each kind says
// which aten:: call a traced model writes for it.

func init() {
	optable.Add(&opLacks, map[string]string{
		"NonZero":         "aten::nonzero (followed by aten::numpy_T) is not mapped yet",
		"Unique":          "aten::_unique2 and aten::unique_dim are not mapped yet",
		"Range":           "aten::arange is not mapped yet",
		"ConstantOfShape": "aten::full, aten::zeros and aten::ones are not mapped yet",
		"EyeLike":         "aten::eye is not mapped yet",
		"DepthToSpace":    "aten::pixel_shuffle is not mapped yet",
		"SpaceToDepth":    "aten::pixel_unshuffle (CRD order; SpaceToDepth is DCR) is not mapped yet",
		"ReverseSequence": "TorchScript has no per-sequence reverse; aten::flip reverses whole axes",
	})
}
