package optimize

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	r := costRule{detail: "per direction and step: 2·gates·H·(input + H) FLOPs for the two products, ~8 per gate element for activations and the state update",
		work: recurrentCost}
	optable.Add(&costTable, map[string]costRule{"LSTM": r, "GRU": r, "RNN": r})
}

func recurrentCost(x costArgs, c *NodeCost) {
	op, ok := x.n.Op.(canon.RecurrentOp)
	if !ok {
		return
	}
	r := op.Rec()
	in := x.input(canon.RecX)
	i := dimOf(in, 2)
	if i <= 0 {
		return
	}
	steps := numelOf(in) / i // seq·batch
	gh := float64(len(op.Gates())) * float64(r.HiddenSize)
	c.FLOPs = float64(r.Direction.NumDirections()) * steps * (2*gh*(i+float64(r.HiddenSize)) + 8*gh)
}
