package tfliteimport

func init() {
	const why = "TFLite's string tensors feed only its hashtable and custom ops, which are not read"
	for _, k := range []string{"StringNormalizer", "RegexFullMatch", "StringConcat", "StringSplit"} {
		lacks[k] = why
	}
	lacks["TfIdfVectorizer"] = "TFLite has no n-gram counting builtin"
}
