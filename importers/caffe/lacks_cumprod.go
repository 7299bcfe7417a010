package caffeimport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"CumProd": "BVLC Caffe has no cumulative product layer",
	})
}
