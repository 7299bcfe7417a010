package torchscript

// Det is listed here until aten::linalg_det is read as it.
func init() {
	opLacks["Det"] = "aten::linalg_det is not read as Det yet"
}
