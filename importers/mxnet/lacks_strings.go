package mxnetimport

func init() {
	const why = "MXNet 1.x NDArrays hold numbers only: it has no string ops"
	for kind, reason := range map[string]string{
		"StringNormalizer": why, "RegexFullMatch": why, "StringConcat": why, "StringSplit": why,
		"TfIdfVectorizer": "MXNet 1.x has no n-gram counting op",
	} {
		lacks[kind] = reason
	}
}
