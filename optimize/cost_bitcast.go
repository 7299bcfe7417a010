package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&costTable, map[string]costRule{
		"BitCast": perInput("a copy of each input element's bytes"),
	})
}
