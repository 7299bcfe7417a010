package mxnetimport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"Attention":       "MXNet 1.x has no attention op: its _contrib_interleaved_matmul_selfatt_* ops are the two products of one, with heads packed in its own interleaved layout",
		"RotaryEmbedding": "MXNet 1.x has no rotary position embedding op",
	})
}
