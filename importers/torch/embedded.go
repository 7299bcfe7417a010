package torchimport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/panicerr"
)

// ReadEmbedded reads a torch.save file held in memory, such as the
// serialized_state_dict.pt entry of a torch.export archive, as a
// weights-only graph; name labels errors. Its tensors may point into data,
// which the caller keeps valid while the graph is used. The same safe
// unpickler and bounds apply as for a file.
func ReadEmbedded(name string, data []byte) (g *canon.Graph, err error) {
	defer panicerr.Recover(name, &err)
	return read(name, &mmapfile.Mapping{Data: data}, formats.ReadOptions{})
}
