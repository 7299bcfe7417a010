package onnxexport

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// withIOLayout applies WriteOptions.IOLayout: with "nhwc" the 4-D inputs
// and outputs are declared channels-last, each read or written through one
// Transpose, so that channels-last callers feed the model as it is.
func withIOLayout(g *canon.Graph, opts formats.WriteOptions) (*canon.Graph, error) {
	switch strings.ToLower(opts.IOLayout) {
	case "", "nchw":
		return g, nil
	case "nhwc":
	default:
		return nil, fmt.Errorf("io layout %q: want nchw or nhwc", opts.IOLayout)
	}
	if g == nil {
		return nil, fmt.Errorf("no graph to write")
	}
	out, added, err := canon.ChannelsLastIO(g)
	if err != nil {
		return nil, fmt.Errorf("io layout nhwc: %w", err)
	}
	if opts.Verbose != nil {
		fmt.Fprintf(opts.Verbose, "io layout nhwc: 4-D inputs and outputs are channels-last, through %d Transpose nodes at the edges\n", added)
	}
	return out, nil
}
