package torchscript

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&opLacks, map[string]string{
		"LRN": "F.local_response_norm is Python code that traces into pad, avg_pool and pow ops, not one call",
	})
}
