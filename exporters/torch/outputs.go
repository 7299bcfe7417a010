package torchexport

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// outputExpr is the expression forward returns for graph output name. An
// output no node computes is a weight or a value known before running
// (constant folding at import leaves such outputs); it is returned as a
// copy, so callers cannot change the module's own tensors through it.
func (gen *generator) outputExpr(name string) (string, error) {
	if e, ok := gen.expr[name]; ok {
		if strings.HasPrefix(e, "self.") || strings.HasPrefix(e, "getattr(self,") {
			return e + ".clone()", nil // a Constant's buffer
		}
		return e, nil
	}
	if _, ok := gen.inits[name]; ok {
		return gen.tensorRef(name) + ".clone()", nil
	}
	v, ok := gen.g.Values.Lookup(name)
	if !ok || v.Const == nil {
		return "", fmt.Errorf("graph output %q is not computed by any node and is not a known constant", name)
	}
	t := v.Const
	if _, ok := torchDTypes[t.DType]; !ok {
		return "", fmt.Errorf("graph output %q is a constant of dtype %s, which torch has no dtype for", name, t.DType)
	}
	if t.NumElements() <= 64 && (t.DType.IsInt() || t.DType == canon.Bool) {
		ints, err := t.Int64s()
		if err != nil {
			return "", fmt.Errorf("graph output %q: %w", name, err)
		}
		return fmt.Sprintf("torch.tensor(%s, dtype=%s).reshape(%s)", pyInts(ints, false), torchDTypes[t.DType], pyInts(t.Shape, true)), nil
	}
	// Larger or floating-point constants travel in the state dict.
	key := gen.claimPath(nil, name, "const")
	gen.register(key, fmt.Sprintf("torch.empty(%s, dtype=%s)", pyInts(t.Shape, true), torchDTypes[t.DType]), true)
	tt := *t
	gen.addEntry(key, "", &tt)
	return gen.access(key) + ".clone()", nil
}

// isGraphOutput reports whether any of names is a graph output.
func (gen *generator) isGraphOutput(names ...string) bool {
	for _, o := range gen.g.Outputs {
		for _, n := range names {
			if n != "" && o.Name == n {
				return true
			}
		}
	}
	return false
}
