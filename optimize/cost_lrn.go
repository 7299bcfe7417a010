package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&costTable, map[string]costRule{
		// A running window sum makes the channel sum O(1) per element; the
		// power costs several operations.
		"LRN": perOutput(8, "a square, a window sum and a power per element"),
	})
}
