package caffeimport

import (
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestCaffeMVN: each plane less its mean, over sqrt(var) + eps (Caffe adds
// eps to the standard deviation); across_channels pools the planes of one
// item; normalize_variance false only subtracts the mean.
func TestCaffeMVN(t *testing.T) {
	x := canon.NewFloat32Tensor("data", []int64{1, 2, 1, 2}, []float32{1, 3, 5, 9})
	net := func(param string) string {
		return `input: "data"
input_dim: 1 input_dim: 2 input_dim: 1 input_dim: 2
layer { name: "mvn" type: "MVN" bottom: "data" top: "y" ` + param + ` }
`
	}
	expect(t, runNet(t, netFiles(t, net(""), nil), x, "y"), []int64{1, 2, 1, 2}, []float64{-1, 1, -1, 1}, 1e-6)
	// eps 0.5: plane stds 1 and 2.
	expect(t, runNet(t, netFiles(t, net("mvn_param { eps: 0.5 }"), nil), x, "y"), []int64{1, 2, 1, 2},
		[]float64{-1 / 1.5, 1 / 1.5, -2 / 2.5, 2 / 2.5}, 1e-6)
	expect(t, runNet(t, netFiles(t, net("mvn_param { normalize_variance: false }"), nil), x, "y"), []int64{1, 2, 1, 2},
		[]float64{-1, 1, -2, 2}, 1e-6)
	// Across channels: mean 4.5, variance (12.25+2.25+0.25+20.25)/4 = 8.75.
	s := math.Sqrt(8.75)
	expect(t, runNet(t, netFiles(t, net("mvn_param { across_channels: true }"), nil), x, "y"), []int64{1, 2, 1, 2},
		[]float64{-3.5 / s, -1.5 / s, 0.5 / s, 4.5 / s}, 1e-6)
}
