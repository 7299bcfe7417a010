package formats

import "github.com/modelbridge/modelbridge/canon"

// Cut names the part of a model that Importer.ReadCut reads: the values
// that become its inputs and outputs.
type Cut struct {
	// Inputs are the new graph inputs; a value the file declares no type
	// for needs DType and Shape here. None means the model's own inputs.
	Inputs  []canon.ValueInfo
	Outputs []string
}
