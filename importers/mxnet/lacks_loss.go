package mxnetimport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"NegativeLogLikelihoodLoss": "MXNet 1.x has no negative log-likelihood operator (its losses are training outputs)",
	})
}
