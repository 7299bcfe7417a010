package caffeimport

import "github.com/modelbridge/modelbridge/internal/optable"

// The attention and detection kinds: no BVLC Caffe layer reads as them.
func init() {
	optable.Add(&lacks, map[string]string{
		"Attention":         "BVLC Caffe has no attention layer",
		"RotaryEmbedding":   "BVLC Caffe has no rotary embedding layer",
		"RoiAlign":          "BVLC Caffe has no RoIAlign layer",
		"MaxRoiPool":        "BVLC Caffe has no ROI pooling layer (Fast R-CNN's ROIPooling is a fork's addition)",
		"NonMaxSuppression": "BVLC Caffe has no NMS layer (Faster R-CNN's proposal layer is Python in a fork)",
	})
}
