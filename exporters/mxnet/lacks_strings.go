package mxnetexport

func init() {
	const why = "MXNet 1.x NDArrays hold numbers only: it has no string ops"
	for _, k := range []string{"StringNormalizer", "RegexFullMatch", "StringConcat", "StringSplit"} {
		lacks[k] = why
	}
	lacks["TfIdfVectorizer"] = "MXNet 1.x has no n-gram counting op"
}
