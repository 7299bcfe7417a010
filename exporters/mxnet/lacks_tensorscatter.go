package mxnetexport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"TensorScatter": "MXNet 1.x has no cache-update operator",
	})
}
