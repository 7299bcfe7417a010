package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

// The ai.onnx.ml ops: one comparison, copy or table lookup per element.
func init() {
	optable.Add(&costTable, map[string]costRule{
		"Binarizer":             perOutput(1, "one comparison per element"),
		"ArrayFeatureExtractor": perOutput(1, "one copy per selected element"),
		"LabelEncoder":          perInput("one table lookup per element"),
	})
}
