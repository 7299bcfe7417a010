package caffeimport

import (
	"github.com/modelbridge/modelbridge/canon"
)

// mvn reads Caffe's MVN layer: each (n, c) plane (or each n, with
// across_channels) less its mean and, with normalize_variance, divided by
// sqrt(var) + eps, the epsilon on the standard deviation as in ONNX's
// MeanVarianceNormalization. With Caffe's default eps (1e-9) that is the
// canonical op; another eps, or the mean alone, is spelled out.
func mvn(c *layerCtx) ([]string, error) {
	p := c.l.GetMvnParam()
	xs, err := c.shape(0, "MVN")
	if err != nil {
		return nil, err
	}
	from := 2
	if p.GetAcrossChannels() {
		from = 1
	}
	if len(xs) <= from {
		return nil, c.errf("MVN needs an input of rank %d or more, the input has rank %d", from+1, len(xs))
	}
	axes := canon.NormalizedAxes(from, len(xs))
	if p.GetNormalizeVariance() && p.GetEps() == float32(canon.MeanVarNormEpsilon) {
		return c.unary(&canon.MeanVarNorm{Axes: axes})
	}
	x := c.ins[0]
	name := c.l.GetName()
	mean := c.tmp("mean")
	if err := c.emit(name+"_mean", &canon.Reduce{Fn: canon.ReduceMean, Axes: axes, KeepDims: true}, []string{x}, mean); err != nil {
		return nil, err
	}
	if !p.GetNormalizeVariance() {
		return c.unary2(&canon.Binary{Fn: canon.Sub}, []string{x, mean})
	}
	dev := c.tmp("deviation")
	if err := c.emit(name+"_deviation", &canon.Binary{Fn: canon.Sub}, []string{x, mean}, dev); err != nil {
		return nil, err
	}
	sq := c.tmp("squared")
	if err := c.emit(name+"_squared", &canon.Binary{Fn: canon.Mul}, []string{dev, dev}, sq); err != nil {
		return nil, err
	}
	variance := c.tmp("variance")
	if err := c.emit(name+"_variance", &canon.Reduce{Fn: canon.ReduceMean, Axes: axes, KeepDims: true}, []string{sq}, variance); err != nil {
		return nil, err
	}
	std := c.tmp("std")
	if err := c.emit(name+"_std", &canon.Math{Fn: canon.MathSqrt}, []string{variance}, std); err != nil {
		return nil, err
	}
	eps, err := c.scalar("eps", p.GetEps())
	if err != nil {
		return nil, err
	}
	den := c.tmp("denominator")
	if err := c.emit(name+"_denominator", &canon.Binary{Fn: canon.Add}, []string{std, eps}, den); err != nil {
		return nil, err
	}
	return c.unary2(&canon.Binary{Fn: canon.Div}, []string{dev, den})
}
