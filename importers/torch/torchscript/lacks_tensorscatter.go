package torchscript

func init() {
	opLacks["TensorScatter"] = "traced cache updates are read as the index_copy or slice assignments they are written with"
}
