package caffeimport

import "github.com/modelbridge/modelbridge/internal/optable"

// The string ops and TfIdfVectorizer: Caffe blobs hold numbers only.
func init() {
	const why = "BVLC Caffe has no string blobs and no text layer"
	optable.Add(&lacks, map[string]string{
		"StringNormalizer": why, "RegexFullMatch": why, "StringConcat": why, "StringSplit": why,
		"TfIdfVectorizer": "BVLC Caffe has no n-gram counting layer",
	})
}
