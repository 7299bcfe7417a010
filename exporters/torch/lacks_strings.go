package torchexport

func init() {
	const why = "PyTorch has no string tensors"
	for _, k := range []string{"StringNormalizer", "RegexFullMatch", "StringConcat", "StringSplit"} {
		opLacks[k] = why
	}
	opLacks["TfIdfVectorizer"] = "PyTorch has no n-gram counting operator (model.py would need a Python loop over the tokens)"
}
