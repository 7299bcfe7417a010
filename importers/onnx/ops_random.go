package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The random family: RandomUniform, RandomNormal, their Like forms,
// Bernoulli and Multinomial. ONNX's optional seed attribute is kept as
// Seed/Seeded; the draws are the runtime's own (see canon's defs_random.go).

func init() {
	optable.Add(&ops, map[string]opEntry{
		"RandomUniform":     {convRandomUniform, 1, []string{"RandomUniform"}},
		"RandomNormal":      {convRandomNormal, 1, []string{"RandomNormal"}},
		"RandomUniformLike": {convRandomUniformLike, 1, []string{"RandomUniformLike"}},
		"RandomNormalLike":  {convRandomNormalLike, 1, []string{"RandomNormalLike"}},
		"Bernoulli":         {convBernoulli, 15, []string{"Bernoulli"}},
		"Multinomial":       {convMultinomial, 7, []string{"Multinomial"}},
	})
}

// seed reads the optional seed attribute.
func (c *nodeCtx) seed() (float32, bool) {
	if !c.has("seed") {
		return 0, false
	}
	return c.float("seed", 0), true
}

// drawDType is the dtype attribute, or def when absent (Undefined when the
// default is the input's dtype and that is unknown: an error).
func (c *nodeCtx) drawDType(def canon.DType) canon.DType {
	if c.has("dtype") {
		t, err := onnxtensor.DType(int32(c.int("dtype", 0)))
		if err != nil {
			c.fail("dtype: %v", err)
		}
		return t
	}
	if def == canon.Undefined {
		c.fail("the output dtype is unknown: the input's dtype is not known and there is no dtype attribute")
	}
	return def
}

// drawShape is the required shape attribute of RandomUniform and RandomNormal.
func (c *nodeCtx) drawShape() []int64 {
	if !c.has("shape") {
		c.fail("the shape attribute is required")
	}
	s := c.ints("shape")
	if s == nil {
		s = []int64{}
	}
	return s
}

func convRandomUniform(c *nodeCtx) error {
	op := &canon.RandomUniform{Low: c.float("low", 0), High: c.float("high", 1), DType: c.drawDType(canon.Float32), Shape: c.drawShape()}
	op.Seed, op.Seeded = c.seed()
	return c.emit(op, nil, c.out1())
}

func convRandomNormal(c *nodeCtx) error {
	op := &canon.RandomNormal{Mean: c.float("mean", 0), Scale: c.float("scale", 1), DType: c.drawDType(canon.Float32), Shape: c.drawShape()}
	op.Seed, op.Seeded = c.seed()
	return c.emit(op, nil, c.out1())
}

func convRandomUniformLike(c *nodeCtx) error {
	op := &canon.RandomUniformLike{Low: c.float("low", 0), High: c.float("high", 1), DType: c.drawDType(c.info(0).DType)}
	op.Seed, op.Seeded = c.seed()
	return c.emit(op, []string{c.in(0)}, c.out1())
}

func convRandomNormalLike(c *nodeCtx) error {
	op := &canon.RandomNormalLike{Mean: c.float("mean", 0), Scale: c.float("scale", 1), DType: c.drawDType(c.info(0).DType)}
	op.Seed, op.Seeded = c.seed()
	return c.emit(op, []string{c.in(0)}, c.out1())
}

func convBernoulli(c *nodeCtx) error {
	op := &canon.Bernoulli{DType: c.drawDType(c.info(0).DType)}
	op.Seed, op.Seeded = c.seed()
	return c.emit(op, []string{c.in(0)}, c.out1())
}

func convMultinomial(c *nodeCtx) error {
	op := &canon.Multinomial{SampleSize: c.int("sample_size", 1), DType: c.drawDType(canon.Int32)}
	op.Seed, op.Seeded = c.seed()
	return c.emit(op, []string{c.in(0)}, c.out1())
}
