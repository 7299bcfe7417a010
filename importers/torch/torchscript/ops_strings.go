package torchscript

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	const why = "PyTorch has no string tensors (TorchScript strings are Python values, not tensors)"
	optable.Add(&opLacks, map[string]string{
		"StringNormalizer": why, "RegexFullMatch": why, "StringConcat": why, "StringSplit": why,
		"TfIdfVectorizer": "PyTorch has no n-gram counting operator",
	})
}
