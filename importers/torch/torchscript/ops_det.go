package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Determinants: linalg_det and det are canon's Det; logdet and slogdet take
// the logarithm of a Det computed in float64, whose range holds the
// determinants of matrices whose float32 determinant would overflow while
// its logarithm is finite.
func init() {
	optable.Add(&opTable, map[string]opEntry{
		"torch.linalg_det":     entry(opDet, "Det"),
		"torch.det":            entry(opDet, "Det"),
		"torch.logdet":         entry(opLogDet, "Cast", "Det", "Log"),
		"torch.slogdet":        entry(opSlogDet, "Cast", "Det", "Sign", "Abs", "Log"),
		"torch.linalg_slogdet": entry(opSlogDet, "Cast", "Det", "Sign", "Abs", "Log"),
	})
}

// detInput binds the matrices and checks they are floating point.
func detInput(c *opCall) (*tensorVal, *expander, error) {
	x, err := c.bindInput("input")
	if err != nil {
		return nil, nil, err
	}
	e := newExpander(c, x)
	if !e.dt.IsFloat() {
		return nil, nil, c.errf("the input is %s; determinants are of floating-point matrices", e.dt)
	}
	return x, e, nil
}

func opDet(c *opCall) (value, error) {
	x, _, err := detInput(c)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Det{}, x)
}

// wideDet is Det of x computed (and kept) in float64.
func wideDet(e *expander, x *tensorVal) *tensorVal {
	return e.emit(&canon.Det{}, e.cast(x, canon.Float64))
}

// opLogDet: log(det(x)), NaN where the determinant is negative and -inf
// where it is 0, as torch.logdet.
func opLogDet(c *opCall) (value, error) {
	x, e, err := detInput(c)
	if err != nil {
		return nil, err
	}
	out := e.cast(e.log(wideDet(e, x)), e.dt)
	return out, e.err
}

// opSlogDet: (sign(det(x)), log|det(x)|), sign 0 and -inf for a singular
// matrix, as torch.slogdet.
func opSlogDet(c *opCall) (value, error) {
	x, e, err := detInput(c)
	if err != nil {
		return nil, err
	}
	d := wideDet(e, x)
	sign := e.cast(e.math(canon.MathSign, d), e.dt)
	logAbs := e.cast(e.log(e.abs(d)), e.dt)
	if e.err != nil {
		return nil, e.err
	}
	return &tupleVal{items: []value{sign, logAbs}}, nil
}
