package tfliteexport

func init() {
	for _, k := range []string{"RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike", "Bernoulli", "Multinomial"} {
		lacks[k] = "TFLite's sampling builtins (RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL, MULTINOMIAL) are not written yet"
	}
}
