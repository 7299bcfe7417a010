package torchscript

// aten's nll_loss and cross_entropy_loss are read as their exact expansion
// (GatherElements, Where, ReduceSum...), which also covers torch's (C)
// unbatched form.
func init() {
	opLacks["NegativeLogLikelihoodLoss"] = "aten::nll_loss and cross_entropy_loss are read as their expansion into gathers, masks and sums"
}
