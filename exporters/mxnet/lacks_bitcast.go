package mxnetexport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"BitCast": "MXNet 1.x has no bit reinterpretation operator",
	})
}
