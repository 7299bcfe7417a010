package torchexport

import "github.com/modelbridge/modelbridge/canon"

// A Dropout whose training mode arrives at run time is written as the
// identity (with torch.ones_like for the mask) behind a check that raises
// when a run has training on and a ratio other than 0, which would drop
// elements at random.

func init() {
	paramWriters["Dropout"] = writeDropoutParam
}

func writeDropoutParam(gen *generator, n *canon.Node) error {
	ratio := pyFloat(n.Op.(*canon.Dropout).Ratio)
	if gen.hasIn(1) {
		r, err := gen.in(1)
		if err != nil {
			return err
		}
		ratio = "float(" + r + ")"
	}
	if gen.hasIn(2) {
		t, err := gen.in(2)
		if err != nil {
			return err
		}
		gen.forward = append(gen.forward,
			"if bool("+t+") and "+ratio+" != 0:",
			"    raise RuntimeError("+pyString("Dropout "+n.Name+" in training mode with a nonzero ratio drops elements at random")+")")
	}
	return writeDropout(gen, n)
}
