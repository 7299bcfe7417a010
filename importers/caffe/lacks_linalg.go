package caffeimport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"Det": "BVLC Caffe has no linear-algebra layer",
	})
}
