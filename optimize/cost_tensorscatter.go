package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&costTable, map[string]costRule{
		"TensorScatter": perInput("a copy of the cache and of the update"),
	})
}
