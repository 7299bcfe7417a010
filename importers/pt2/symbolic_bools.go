package pt2

import "fmt"

// symBoolDef is a comparison of sizes whose symbolic bool result nothing
// has read yet. Most feed only run-time assertions, which are skipped;
// one read as a predicate (torch.cond on x.shape[0] > 4) is computed then.
type symBoolDef struct {
	node *node
	// value is the result once computed: a bool, or a 0-d bool tensor.
	value any
}

// symCompareOps are the comparisons a predicate can be computed from.
var symCompareOps = map[string]string{
	"_operator.gt": ">", "_operator.ge": ">=", "_operator.lt": "<", "_operator.le": "<=",
	"_operator.eq": "==", "_operator.ne": "!=",
}

// deferSymBool records a comparison of sizes, counted as a skipped
// assertion until a predicate reads it.
func (im *importer) deferSymBool(n *node) {
	im.skippedAsserts++
	if name := n.Outputs[0].AsSymBool.AsName; name != nil {
		if im.symBools == nil {
			im.symBools = map[string]*symBoolDef{}
		}
		im.symBools[*name] = &symBoolDef{node: n}
	}
}

// symBool is the value of a symbolic bool argument: a bool known at
// import, or a 0-d bool tensor computed at run time.
func (im *importer) symBool(a *symBoolArgument) (any, error) {
	switch {
	case a.AsBool != nil:
		return *a.AsBool, nil
	case a.AsName == nil:
		return nil, fmt.Errorf("empty symbolic bool")
	}
	def, ok := im.symBools[*a.AsName]
	if !ok {
		return nil, fmt.Errorf("symbolic bool %s is used before it is defined", *a.AsName)
	}
	if def.value != nil {
		return def.value, nil
	}
	n := def.node
	op, ok := symCompareOps[n.Target]
	if !ok {
		return nil, fmt.Errorf("symbolic bool %s comes from %s; only comparisons of two sizes (< <= > >= == !=) are computed", *a.AsName, n.Target)
	}
	if len(n.Inputs) != 2 {
		return nil, fmt.Errorf("symbolic bool %s: %s takes two operands, the node passes %d", *a.AsName, n.Target, len(n.Inputs))
	}
	var operands [2]any
	for i := range operands {
		v, err := im.value(&n.Inputs[i].Arg)
		if err != nil {
			return nil, fmt.Errorf("symbolic bool %s: operand %d: %w", *a.AsName, i, err)
		}
		operands[i] = v
	}
	v, err := im.prog.SymCompare(op, operands[0], operands[1])
	if err != nil {
		return nil, fmt.Errorf("symbolic bool %s: %w", *a.AsName, err)
	}
	def.value = v
	im.skippedAsserts-- // a computed predicate, not an assertion
	return v, nil
}
