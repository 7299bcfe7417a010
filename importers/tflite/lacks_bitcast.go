package tfliteimport

func init() {
	lacks["BitCast"] = "TFLite's BITCAST builtin is not read yet (refused by name)"
}
