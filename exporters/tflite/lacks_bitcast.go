package tfliteexport

func init() {
	lacks["BitCast"] = "TFLite's BITCAST builtin is not written yet"
}
