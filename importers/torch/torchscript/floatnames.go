package torchscript

import "math"

// floatNames are the float constants TorchScript's serializer writes as
// bare names: float("inf") is printed as inf (and -inf as -inf, a negated
// name), float("nan") as nan.
var floatNames = map[string]float64{
	"inf": math.Inf(1),
	"nan": math.NaN(),
}
