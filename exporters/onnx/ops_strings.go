package onnxexport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The string ops and TfIdfVectorizer, each as the ONNX op of the same
// name; below its opset the export is refused (no other ONNX op computes
// on strings).

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"StringNormalizer": {onnx: "StringNormalizer", native: 10, write: writeStringNormalizer},
		"RegexFullMatch": {onnx: "RegexFullMatch", native: 20, write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "RegexFullMatch", n.Inputs, n.Outputs, attrString("pattern", n.Op.(*canon.RegexFullMatch).Pattern))
			return nil
		}},
		"StringConcat": {onnx: "StringConcat", native: 20, write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "StringConcat", n.Inputs, n.Outputs)
			return nil
		}},
		"StringSplit":     {onnx: "StringSplit", native: 20, write: writeStringSplit},
		"TfIdfVectorizer": {onnx: "TfIdfVectorizer", native: 9, write: writeTfIdf},
	})
}

// equalTypes: Equal-13 takes bfloat16, Equal-19 strings.
func equalTypes(_ canon.Op, dt canon.DType) int {
	switch dt {
	case canon.BFloat16:
		return 13
	case canon.String:
		return 19
	}
	return 0
}

func writeStringNormalizer(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.StringNormalizer)
	attrs := []*onnxpb.AttributeProto{
		attrString("case_change_action", op.CaseChange.String()),
		attrBool("is_case_sensitive", op.CaseSensitive),
	}
	if len(op.Stopwords) > 0 {
		attrs = append(attrs, attrStrings("stopwords", op.Stopwords))
	}
	if op.Locale != "" {
		attrs = append(attrs, attrString("locale", op.Locale))
	}
	b.emit(n.Name, "StringNormalizer", n.Inputs, n.Outputs, attrs...)
	return nil
}

func writeStringSplit(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.StringSplit)
	var attrs []*onnxpb.AttributeProto
	if op.Delimiter != "" {
		attrs = append(attrs, attrString("delimiter", op.Delimiter))
	}
	if op.MaxSplit >= 0 {
		attrs = append(attrs, attrInt("maxsplit", op.MaxSplit))
	}
	b.emit(n.Name, "StringSplit", n.Inputs, n.Outputs, attrs...)
	return nil
}

func writeTfIdf(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.TfIdfVectorizer)
	attrs := []*onnxpb.AttributeProto{
		attrString("mode", op.Mode.String()),
		attrInt("min_gram_length", op.MinGram),
		attrInt("max_gram_length", op.MaxGram),
		attrInt("max_skip_count", op.MaxSkip),
		attrInts("ngram_counts", op.NgramCounts),
		attrInts("ngram_indexes", op.NgramIndexes),
	}
	if op.PoolStrings != nil {
		attrs = append(attrs, attrStrings("pool_strings", op.PoolStrings))
	} else {
		attrs = append(attrs, attrInts("pool_int64s", op.PoolInts))
	}
	if op.Weights != nil {
		attrs = append(attrs, attrFloats("weights", op.Weights))
	}
	b.emit(n.Name, "TfIdfVectorizer", n.Inputs, n.Outputs, attrs...)
	return nil
}
