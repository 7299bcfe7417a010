package tfliteexport

func init() {
	lacks["Det"] = "TFLite has no determinant builtin"
}
