package tfliteimport

func init() {
	const why = "TFLite's IF and WHILE builtins (which name subgraphs of the model) are not read yet (refused by name)"
	for _, k := range []string{"If", "Loop", "Scan"} {
		lacks[k] = why
	}
}
