package torchscript

// optionalLeftNone reports whether forward parameter p is an Optional of
// something other than tensors with the default None (the targets of a
// detection model, say): the graph is imported for calls that leave it at
// None, so it makes no input.
func optionalLeftNone(p param) bool {
	if c, ok := p.dflt.(*constLit); !ok || c.v != nil {
		return false
	}
	sub, ok := p.annotation.(*subscriptExpr)
	if !ok {
		return false
	}
	n, ok := sub.x.(*nameExpr)
	return ok && n.name == "Optional" && !isTensorAnnotation(sub.index)
}
