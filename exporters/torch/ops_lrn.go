package torchexport

import (
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"LRN": {write: writeLRN, floatOnly: "local response normalization",
			detail: "F.local_response_norm; odd sizes only (torch centres an even window one channel earlier than ONNX)"},
	})
}

func writeLRN(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.LRN)
	if op.Size%2 == 0 {
		return gen.fail("size %d is even: torch's window for an even size starts one channel earlier than ONNX's", op.Size)
	}
	return gen.call("F.local_response_norm(%s, "+strconv.FormatInt(op.Size, 10)+", alpha="+pyFloat(op.Alpha)+
		", beta="+pyFloat(op.Beta)+", k="+pyFloat(op.Bias)+")", 0)
}
