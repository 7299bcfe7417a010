package tfliteimport

func init() {
	lacks["TensorScatter"] = "TFLite has no cache-update builtin"
}
