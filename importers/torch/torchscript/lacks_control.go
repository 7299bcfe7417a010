package torchscript

func init() {
	opLacks["If"] = "scripted modules' prim::If (and .pt2's torch.cond) are not read yet: trace the model, or export it to ONNX with torch.onnx.export"
	opLacks["Loop"] = "scripted modules' prim::Loop (and .pt2's torch.while_loop) are not read yet: trace the model, or export it to ONNX with torch.onnx.export"
	opLacks["Scan"] = "TorchScript has no scan operator (a scripted loop is prim::Loop); .pt2's map is not read yet"
}
