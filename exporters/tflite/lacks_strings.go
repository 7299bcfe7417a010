package tfliteexport

func init() {
	const why = "string tensors are not written to TFLite (its builtins compute on numbers)"
	for _, k := range []string{"StringNormalizer", "RegexFullMatch", "StringConcat", "StringSplit"} {
		lacks[k] = why
	}
	lacks["TfIdfVectorizer"] = "TFLite has no n-gram counting builtin"
}
