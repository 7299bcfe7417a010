package tfliteexport

func init() {
	lacks["CumProd"] = "TFLite has no cumulative product builtin"
}
