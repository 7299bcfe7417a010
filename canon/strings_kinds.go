package canon

// stringKinds are the kinds that take string inputs: the string ops,
// TfIdfVectorizer, Equal, the views, Shape and Size (which read only the
// shape) and the kinds that only move elements. Any other kind given a
// string input is refused at inference, naming the node.
var stringKinds = map[string]bool{
	"StringNormalizer": true, "RegexFullMatch": true, "StringConcat": true, "StringSplit": true,
	"TfIdfVectorizer": true, "Equal": true,
	"Identity": true, "Reshape": true, "Flatten": true, "Squeeze": true, "Unsqueeze": true,
	"Shape": true, "Size": true, "LabelEncoder": true, "ArrayFeatureExtractor": true,
	"Concat": true, "Split": true, "Transpose": true, "Slice": true, "Gather": true,
	"GatherElements": true, "GatherND": true, "Where": true, "Expand": true, "Tile": true,
	"DepthToSpace": true, "SpaceToDepth": true, "ReverseSequence": true, "Compress": true,
}

// TakesStrings reports whether kind accepts string tensors as inputs.
func TakesStrings(kind string) bool { return stringKinds[kind] }

// refuseStrings fails when a kind that does not take strings is given one.
func (c *InferCtx) refuseStrings() error {
	if stringKinds[opKind(c.n.Op)] {
		return nil
	}
	for i, v := range c.in {
		if v.DType == String {
			return c.errf("%s %q is a string tensor; %s does not take strings", c.slot(i), c.n.Inputs[i], opKind(c.n.Op))
		}
	}
	return nil
}
