package tfliteexport

func init() {
	lacks["NegativeLogLikelihoodLoss"] = "TFLite has no loss builtin (and NegativeLogLikelihoodLoss has no expansion yet)"
}
