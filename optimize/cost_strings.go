package optimize

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The string ops are priced per element: their work grows with the
// strings' lengths, which types do not tell, so one element is one
// operation (a scan of a short string).
func init() {
	optable.Add(&costTable, map[string]costRule{
		"StringNormalizer": perInput("a stopword lookup and a case change per string"),
		"RegexFullMatch":   perOutput(1, "one match per string"),
		"StringConcat":     perOutput(1, "one concatenation per string"),
		"StringSplit":      perInput("one scan per string"),
		// Each row position starts up to (MaxSkip+1)·MaxGram lookups.
		"TfIdfVectorizer": {detail: "per token, one lookup per n-gram size and skip",
			work: func(x costArgs, c *NodeCost) {
				op := x.n.Op.(*canon.TfIdfVectorizer)
				c.FLOPs = numelOf(x.input(0)) * float64(op.MaxGram) * float64(min(op.MaxSkip+1, 64))
			}},
	})
}

// elemBytes is the bytes one element moves: a string is priced as its
// header (its text's length is unknown before run time).
func elemBytes(dt canon.DType) int {
	if dt == canon.String {
		return 16
	}
	return dt.Size()
}
