package caffeimport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"NegativeLogLikelihoodLoss": "Caffe's loss layers (SoftmaxWithLoss, MultinomialLogisticLoss) are training layers, not read",
	})
}
