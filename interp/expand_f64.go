package interp

import "github.com/modelbridge/modelbridge/canon"

// expandForFloat64 returns g with every node that a float32-only kernel
// would be given float64 data for replaced by the op's expansion (canon's
// Decompose), whose ops compute in float64: such an op then runs in
// float64 instead of being refused. g itself is returned when no node
// needs it, when g's value types are not inferred, or when an expansion
// does not cover a node (the kernel then refuses the float64 data).
func expandForFloat64(g *canon.Graph) *canon.Graph {
	if g.Values == nil {
		return g
	}
	x, n, err := canon.Decompose(g, func(n *canon.Node, types func(string) canon.ValueInfo) bool {
		return !needsFloat64Expansion(n, types)
	})
	if err != nil || n == 0 {
		return g
	}
	return x
}

// needsFloat64Expansion reports a node whose kernel refuses float64, that
// reads float64 data, and whose op canon can expand.
func needsFloat64Expansion(n *canon.Node, types func(string) canon.ValueInfo) bool {
	e, ok := kernels[n.Op.Kind()]
	if !ok || e.f64 != f64Refused {
		return false
	}
	d := canon.DefOf(n.Op)
	if d == nil || d.Decompose == nil {
		return false
	}
	for _, in := range n.Inputs {
		if in != "" && types(in).DType == canon.Float64 {
			return true
		}
	}
	return false
}
