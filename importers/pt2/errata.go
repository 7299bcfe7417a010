package pt2

import (
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
)

// lstmStateMisrecorded reports whether dims, recorded for the tensor
// name, is how PyTorch 2.6's meta kernel of aten.lstm.input describes the
// final hidden or cell state: (layers, directions or 1, batch, size) where
// the kernel itself, which the program runs, returns the rank-3
// (layers·directions, batch, size) the importer infers; that shape is
// kept.
func (im *importer) lstmStateMisrecorded(name string, t *torchscript.Tensor, dims []canon.Dim) bool {
	if !strings.HasPrefix(im.producerTarget(name), atenPrefix+"lstm.") {
		return false
	}
	inferred := im.prog.Info(t)
	if !inferred.RankKnown || len(inferred.Shape) != 3 || len(dims) != 4 {
		return false
	}
	states := inferred.Shape[0]
	if !states.Known() || !dims[0].Known() || !dims[1].Known() || dims[0].Size*dims[1].Size != states.Size {
		return false
	}
	for i, d := range inferred.Shape[1:] {
		if r := dims[i+2]; d.Known() && r.Known() && d.Size != r.Size {
			return false
		}
	}
	return true
}

// producerTarget is the target of the node that outputs the tensor name
// ("" for a graph input or weight).
func (im *importer) producerTarget(name string) string {
	for i := range im.gr.Nodes {
		n := &im.gr.Nodes[i]
		for _, o := range n.Outputs {
			if o.AsTensor != nil && o.AsTensor.Name == name {
				return n.Target
			}
			for _, ta := range o.AsTensors {
				if ta.Name == name {
					return n.Target
				}
			}
		}
	}
	return ""
}
