package pt2

import "testing"

// TestKeywordOnlyPerOverload: the generated table decides per overload,
// including names that are keyword-only in one overload and positional in
// another; names it lacks fall back to the hand list.
func TestKeywordOnlyPerOverload(t *testing.T) {
	for _, c := range []struct {
		target, name string
		want         bool
	}{
		{"torch.ops.aten.add.Tensor", "alpha", true},
		{"torch.ops.aten.add.Tensor", "other", false},
		{"torch.ops.aten.sum.dim_IntList", "dtype", true},
		{"torch.ops.aten.to.dtype", "dtype", false},
		{"torch.ops.aten.div.Tensor_mode", "rounding_mode", true},
		{"torch.ops.aten.var.correction", "correction", true},
		{"torch.ops.aten.var.correction", "dim", false},
		{"torch.ops.aten.scaled_dot_product_attention.default", "enable_gqa", true}, // new in 2.x: the hand list
		{"torch.ops.aten.no_such_op.default", "x", false},
	} {
		if got := isKeywordOnly(c.target, c.name); got != c.want {
			t.Errorf("%s %s: keyword-only %v, want %v", c.target, c.name, got, c.want)
		}
	}
	if len(overloadArgs) < 1000 {
		t.Errorf("the table holds %d overloads; PyTorch 1.13 has over 1000 without out variants", len(overloadArgs))
	}
}
