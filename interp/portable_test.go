package interp

import "testing"

// TestPortablePaths reruns the convolution, panel packing, pool, Linear
// and epilogue checks with the vector kernels off, as on machines without
// AVX2 and FMA.
func TestPortablePaths(t *testing.T) {
	defer setVectorLevel(false, false)()
	t.Run("conv", TestConvMatchesNaive)
	t.Run("randomConv", TestConvRandomMatchesNaive)
	t.Run("depthwiseInf", TestDepthwiseInfWeight)
	t.Run("pool", TestPool2DMatchesPointwise)
	t.Run("fusion", TestConvResidualFusion)
	t.Run("linear", TestLinearRowMatchesNaive)
	t.Run("linearByDots", TestLinearByDotsMatchesGemm)
	t.Run("im2colPanels", TestIm2colPanelsMatchesIm2col)
	t.Run("globalAveragePool", TestGlobalAveragePoolMatchesPlaneMean)
}
