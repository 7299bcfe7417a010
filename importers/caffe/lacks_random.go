package caffeimport

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	why := "BVLC Caffe has no sampling layers (its Dropout is read as the identity)"
	m := map[string]string{}
	for _, k := range []string{"RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike", "Bernoulli", "Multinomial"} {
		m[k] = why
	}
	optable.Add(&lacks, m)
}
