package pt2

// symComparisons are the Python comparisons torch.export records on
// symbolic sizes, such as u0 >= 0 for the length of a boolean-mask
// selection. Their symbolic bool results feed only run-time assertions
// (_assert_scalar), which are skipped, so they are skipped with them; a
// node that used such a bool otherwise is refused where it reads it.
var symComparisons = map[string]bool{
	"_operator.ge": true, "_operator.gt": true, "_operator.le": true, "_operator.lt": true,
	"_operator.eq": true, "_operator.ne": true, "_operator.not_": true,
	"_operator.and_": true, "_operator.or_": true,
}

// isSymCheck reports whether n is a comparison of symbolic sizes whose only
// result is a symbolic bool.
func isSymCheck(n *node) bool {
	if !symComparisons[n.Target] || len(n.Outputs) != 1 {
		return false
	}
	return n.Outputs[0].AsSymBool != nil
}
