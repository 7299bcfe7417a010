package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The ops on string tensors (StringNormalizer-10, RegexFullMatch-20,
// StringConcat-20, StringSplit-20) and TfIdfVectorizer-9. Equal on
// strings is Equal (its opset 19 form added the type).

func init() {
	optable.Add(&ops, map[string]opEntry{
		"StringNormalizer": {convStringNormalizer, 10, []string{"StringNormalizer"}},
		"RegexFullMatch": {func(c *nodeCtx) error {
			if !c.has("pattern") {
				c.fail("has no pattern attribute")
			}
			return c.emit(&canon.RegexFullMatch{Pattern: c.str("pattern", "")}, []string{c.in(0)}, c.out1())
		}, 20, []string{"RegexFullMatch"}},
		"StringConcat": {func(c *nodeCtx) error {
			return c.emit(&canon.StringConcat{}, []string{c.in(0), c.in(1)}, c.out1())
		}, 20, []string{"StringConcat"}},
		"StringSplit": {func(c *nodeCtx) error {
			op := &canon.StringSplit{Delimiter: c.str("delimiter", ""), MaxSplit: c.int("maxsplit", -1)}
			if c.has("maxsplit") && op.MaxSplit < 0 {
				c.fail("maxsplit %d must not be negative", op.MaxSplit)
			}
			return c.emit(op, []string{c.in(0)}, c.outputs(2, "StringSplit has two outputs"))
		}, 20, []string{"StringSplit"}},
		"TfIdfVectorizer": {convTfIdf, 9, []string{"TfIdfVectorizer"}},
	})
}

// strs returns a list-of-strings attribute (each as its bytes), or nil
// when absent.
func (c *nodeCtx) strs(name string) []string {
	a := c.attr(name, onnxpb.AttributeProto_STRINGS)
	if a == nil {
		return nil
	}
	out := make([]string, len(a.Strings))
	for i, s := range a.Strings {
		out[i] = string(s)
	}
	return out
}

func convStringNormalizer(c *nodeCtx) error {
	op := &canon.StringNormalizer{
		CaseSensitive: c.int("is_case_sensitive", 0) != 0,
		Stopwords:     c.strs("stopwords"),
		Locale:        c.str("locale", ""),
	}
	switch a := c.str("case_change_action", "NONE"); a {
	case "NONE":
	case "LOWER":
		op.CaseChange = canon.CaseLower
	case "UPPER":
		op.CaseChange = canon.CaseUpper
	default:
		c.fail("case_change_action %q is not NONE, LOWER or UPPER", a)
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}

func convTfIdf(c *nodeCtx) error {
	op := &canon.TfIdfVectorizer{
		MinGram:      c.int("min_gram_length", 0),
		MaxGram:      c.int("max_gram_length", 0),
		MaxSkip:      c.int("max_skip_count", 0),
		NgramCounts:  c.ints("ngram_counts"),
		NgramIndexes: c.ints("ngram_indexes"),
		Weights:      c.floats("weights"),
	}
	for _, need := range []string{"mode", "min_gram_length", "max_gram_length", "max_skip_count", "ngram_counts", "ngram_indexes"} {
		if !c.has(need) {
			c.fail("has no %s attribute (ONNX requires it)", need)
		}
	}
	switch m := c.str("mode", ""); m {
	case "TF":
	case "IDF":
		op.Mode = canon.TfIdfIDF
	case "TFIDF":
		op.Mode = canon.TfIdfTFIDF
	default:
		c.fail("mode %q is not TF, IDF or TFIDF", m)
	}
	switch {
	case c.has("pool_strings") && c.has("pool_int64s"):
		c.fail("has both pool_strings and pool_int64s; give one")
	case c.has("pool_strings"):
		op.PoolStrings = c.strs("pool_strings")
		if op.PoolStrings == nil {
			op.PoolStrings = []string{}
		}
	default:
		op.PoolInts = c.ints("pool_int64s")
		if op.PoolInts == nil {
			op.PoolInts = []int64{}
		}
	}
	return c.emit(op, []string{c.in(0)}, c.out1())
}
