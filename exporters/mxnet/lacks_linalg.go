package mxnetexport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&lacks, map[string]string{
		"Det": "MXNet 1.x's determinant (_linalg_det) is not written yet",
	})
}
