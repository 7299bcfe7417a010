package torchscript

import (
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Other names of math operators. TorchScript's serializer writes the
// canonical name (torch.clamp for torch.clip), but a .pt2 program may
// name the alias (aten.clip, aten.absolute). Each alias calls its
// operator's handler, looked up when called since other files' init
// functions fill the table; kinds repeats that entry's kinds.
var mathAliases = map[string]inPlaceForm{
	"torch.clip":                 {"torch.clamp", []string{"Clip", "Max", "Min", "Cast", "Reshape"}},
	"torch.clip_":                {"torch.clamp_", []string{"Clip", "Max", "Min", "Cast", "Reshape"}},
	"torch.absolute":             {"torch.abs", []string{"Abs"}},
	"torch.absolute_":            {"torch.abs_", []string{"Abs"}},
	"torch.negative":             {"torch.neg", []string{"Neg"}},
	"torch.negative_":            {"torch.neg_", []string{"Neg"}},
	"torch.arccos":               {"torch.acos", []string{"Acos"}},
	"torch.arcsin":               {"torch.asin", []string{"Asin"}},
	"torch.arctan":               {"torch.atan", []string{"Atan"}},
	"torch.arccosh":              {"torch.acosh", []string{"Acosh"}},
	"torch.arcsinh":              {"torch.asinh", []string{"Asinh"}},
	"torch.arctanh":              {"torch.atanh", []string{"Atanh"}},
	"torch.multiply":             {"torch.mul", []string{"Mul", "Cast"}},
	"torch.multiply_":            {"torch.mul_", []string{"Mul", "Cast"}},
	"torch.subtract":             {"torch.sub", []string{"Sub", "Mul", "Cast"}},
	"torch.subtract_":            {"torch.sub_", []string{"Sub", "Mul", "Cast"}},
	"torch.divide":               {"torch.div", divideKinds},
	"torch.divide_":              {"torch.div_", divideKinds},
	"torch.special_erf":          {"torch.erf", []string{"Erf"}},
	"torch.special_gammaln":      {"torch.lgamma", nil},
	"torch.special_psi":          {"torch.digamma", nil},
	"torch.special_digamma":      {"torch.digamma", nil},
	"torch.special_polygamma":    {"torch.polygamma", nil},
	"torch.special_multigammaln": {"torch.mvlgamma", nil},
	"torch.special_i0":           {"torch.i0", nil},
}

func init() {
	entries := map[string]opEntry{}
	for name, a := range mathAliases {
		of := a.of
		entries[name] = entry(func(c *opCall) (value, error) { return opTable[of].handler(c) }, a.kinds...)
	}
	optable.Add(&opTable, entries)
}
