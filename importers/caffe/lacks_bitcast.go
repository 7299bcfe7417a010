package caffeimport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"BitCast": "Caffe blobs are float only: it has no bit reinterpretation layer",
	})
}
