package mxnetimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// MXNet's samplers: _random_uniform and _random_normal (shape and dtype
// attributes) and their _like forms. Their draws are MXNet's own; canon's
// kinds keep the distribution (see canon's defs_random.go).

func init() {
	optable.Add(&converters, map[string]mxOp{
		"_random_uniform":      {convRandom(false, false), []string{"RandomUniform"}},
		"_random_normal":       {convRandom(true, false), []string{"RandomNormal"}},
		"_random_uniform_like": {convRandom(false, true), []string{"RandomUniformLike"}},
		"_random_normal_like":  {convRandom(true, true), []string{"RandomNormalLike"}},
	})
	optable.Add(&lacks, map[string]string{
		"Bernoulli":   "MXNet 1.x's symbol API has no Bernoulli sampler (only the numpy interface's _npi_bernoulli, not read)",
		"Multinomial": "MXNet's _sample_multinomial takes probabilities and int32 output, not read yet",
	})
}

func convRandom(normal, like bool) converter {
	return func(b *builder, c *nodeCtx) ([]string, error) {
		dt, err := genDType(c)
		if err != nil {
			return nil, err
		}
		if !dt.IsFloat() {
			return nil, c.errf("draws of dtype %s: MXNet samples float tensors", dt)
		}
		lo, hi := "low", "high"
		dlo, dhi := 0.0, 1.0
		if normal {
			lo, hi = "loc", "scale"
		}
		a, err := c.a.float(lo, dlo)
		if err != nil {
			return nil, err
		}
		z, err := c.a.float(hi, dhi)
		if err != nil {
			return nil, err
		}
		var op canon.Op
		var ins []string
		if like {
			x, err := b.in(c, 0)
			if err != nil {
				return nil, err
			}
			ins = []string{x}
			if normal {
				op = &canon.RandomNormalLike{Mean: float32(a), Scale: float32(z), DType: dt}
			} else {
				op = &canon.RandomUniformLike{Low: float32(a), High: float32(z), DType: dt}
			}
		} else {
			shape, err := c.a.ints("shape", []int64{})
			if err != nil {
				return nil, err
			}
			if normal {
				op = &canon.RandomNormal{Mean: float32(a), Scale: float32(z), DType: dt, Shape: shape}
			} else {
				op = &canon.RandomUniform{Low: float32(a), High: float32(z), DType: dt, Shape: shape}
			}
		}
		out := b.fresh(c.n.Name)
		return []string{out}, b.emit(out, op, ins, out)
	}
}
