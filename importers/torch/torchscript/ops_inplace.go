package torchscript

import (
	"github.com/modelbridge/modelbridge/internal/optable"
)

// inPlaceForm is the in-place form (name_, or the augmented assignment
// __iX__) of an operator: inPlace writes the operator's result into the
// first argument. The operator is looked up when called, since other
// files' init functions fill the table; kinds repeats its entry's kinds.
type inPlaceForm struct {
	of    string
	kinds []string
}

var shiftKinds = []string{"BitShift", "Cast", "Mul", "Mod", "Sub", "Div", "Less", "Where", "Pow", "Max", "Min", "Or", "Equal", "GreaterOrEqual"}

var inPlaceForms = map[string]inPlaceForm{
	"torch.relu6_":               {"torch.relu6", []string{"Clip", "Max", "Min", "Cast", "Reshape"}},
	"torch.floor_divide_":        {"torch.floor_divide", divideKinds},
	"torch.clamp_min_":           {"torch.clamp_min", []string{"Clip", "Max", "Cast", "Reshape"}},
	"torch.clamp_max_":           {"torch.clamp_max", []string{"Clip", "Min", "Cast", "Reshape"}},
	"torch.pow_":                 {"torch.pow", []string{"Pow", "Cast"}},
	"torch.remainder_":           {"torch.remainder", []string{"Mod", "Cast"}},
	"torch.fmod_":                {"torch.fmod", []string{"Mod", "Cast"}},
	"torch.bitwise_and_":         {"torch.bitwise_and", []string{"And", "BitwiseAnd", "Cast"}},
	"torch.bitwise_or_":          {"torch.bitwise_or", []string{"Or", "BitwiseOr", "Cast"}},
	"torch.bitwise_xor_":         {"torch.bitwise_xor", []string{"Xor", "BitwiseXor", "Cast"}},
	"torch.__iand__":             {"torch.__and__", []string{"And", "BitwiseAnd", "Cast"}},
	"torch.__ior__":              {"torch.__or__", []string{"Or", "BitwiseOr", "Cast"}},
	"torch.__ixor__":             {"torch.__xor__", []string{"Xor", "BitwiseXor", "Cast"}},
	"torch.bitwise_not_":         {"torch.bitwise_not", []string{"BitwiseNot", "Not"}},
	"torch.__ilshift__":          {"torch.__lshift__", shiftKinds},
	"torch.__irshift__":          {"torch.__rshift__", shiftKinds},
	"torch.bitwise_left_shift_":  {"torch.bitwise_left_shift", shiftKinds},
	"torch.bitwise_right_shift_": {"torch.bitwise_right_shift", shiftKinds},
	"torch.logical_and_":         {"torch.logical_and", []string{"And", "Cast"}},
	"torch.logical_or_":          {"torch.logical_or", []string{"Or", "Cast"}},
	"torch.logical_xor_":         {"torch.logical_xor", []string{"Xor", "Cast"}},
	"torch.logical_not_":         {"torch.logical_not", []string{"Not", "Cast"}},
	"torch.cumsum_":              {"torch.cumsum", []string{"CumSum", "Cast"}},
}

func init() {
	entries := map[string]opEntry{}
	for name, f := range inPlaceForms {
		of := f.of
		entries[name] = entry(inPlace(func(c *opCall) (value, error) { return opTable[of].handler(c) }), f.kinds...)
	}
	// torch.fix is torch.trunc's other name.
	entries["torch.fix"] = entry(opUnaryExpansion(unaryExpansions["trunc"]), expansionKinds...)
	entries["torch.fix_"] = entry(inPlace(opUnaryExpansion(unaryExpansions["trunc"])), expansionKinds...)
	optable.Add(&opTable, entries)
}
