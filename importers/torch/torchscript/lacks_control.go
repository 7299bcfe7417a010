package torchscript

func init() {
	opLacks["Scan"] = "TorchScript has no scan operator (a scripted loop is prim::Loop)"
}
