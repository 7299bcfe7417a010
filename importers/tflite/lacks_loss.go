package tfliteimport

func init() {
	lacks["NegativeLogLikelihoodLoss"] = "TFLite has no loss builtin"
}
