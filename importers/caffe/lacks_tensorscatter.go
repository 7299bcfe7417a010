package caffeimport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"TensorScatter": "BVLC Caffe has no cache-update layer",
	})
}
