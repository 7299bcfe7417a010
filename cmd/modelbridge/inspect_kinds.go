package main

// kindShapeString is a value's shape, said of its tensors for a sequence
// or an optional: "[2 3]", "sequence of [N]", "optional sequence of [?]".
func kindShapeString(v valueReport) string {
	if v.Kind == "" {
		return shapeString(v.Shape)
	}
	return v.Kind + " of " + shapeString(v.Shape)
}
