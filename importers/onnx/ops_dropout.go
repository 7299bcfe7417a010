package onnximport

import "github.com/modelbridge/modelbridge/canon"

// convDropoutRunTimeMode reads a Dropout whose training_mode is computed
// at run time: the node keeps its ratio and training_mode inputs, and a
// run with training on and a ratio other than 0 (random) is refused when
// it runs; every other run is the identity with an all-true mask.
func convDropoutRunTimeMode(c *nodeCtx, op *canon.Dropout) error {
	outs := append([]string{}, c.n.Output...)
	for len(outs) > 0 && outs[len(outs)-1] == "" {
		outs = outs[:len(outs)-1]
	}
	if len(outs) == 0 || len(outs) > 2 || outs[0] == "" {
		return c.errf("Dropout has outputs %q; want the output and an optional mask", c.n.Output)
	}
	return c.emit(op, []string{c.in(0), c.in(1), c.in(2)}, outs)
}
