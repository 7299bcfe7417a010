package torchscript

func init() {
	opLacks["CumProd"] = "aten::cumprod is read as its exact expansion (a doubling scan of Slice, Pad and Mul)"
}
