package torchscript

func init() {
	opLacks["BitCast"] = "aten::view with a dtype argument is not mapped yet"
}
