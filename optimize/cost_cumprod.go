package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&costTable, map[string]costRule{
		"CumProd": perInput("one multiply per input element"),
	})
}
