package optimize

import "github.com/modelbridge/modelbridge/canon"

// fuseScaleMul folds y * c into the weights and bias of y's producer (Conv,
// ConvTranspose group by group, Linear) when c is a constant that varies
// only along the output-channel axis.
func fuseScaleMul(g *canon.Graph) (bool, error) {
	return fuseChannelConst(g, true)
}
