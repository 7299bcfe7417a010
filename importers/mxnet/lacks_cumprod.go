package mxnetimport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"CumProd": "MXNet 1.x has no cumulative product operator",
	})
}
