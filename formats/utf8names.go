package formats

import (
	"fmt"
	"unicode/utf8"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/printname"
)

// refusingInvalidNames wraps an exporter's Write so that every exporter
// treats names that are not valid UTF-8 the same way: it refuses them,
// naming the first one (escaped). Written as they are, they break each
// format differently: JSON (safetensors headers, MXNet symbols) replaces
// the bad bytes with U+FFFD, so two names can become one key and an MXNet
// symbol stops matching its params file; protobuf readers reject them.
func refusingInvalidNames(write func(*canon.Graph, string, WriteOptions) error) func(*canon.Graph, string, WriteOptions) error {
	return func(g *canon.Graph, path string, opts WriteOptions) error {
		if err := CheckUTF8Names(g); err != nil {
			return fmt.Errorf("%s: %w (nothing written)", path, err)
		}
		return write(g, path, opts)
	}
}

// CheckUTF8Names returns an error naming the first name in g (graph,
// value, weight or node) that is not valid UTF-8.
func CheckUTF8Names(g *canon.Graph) error {
	bad := func(what, name string) error {
		if utf8.ValidString(name) {
			return nil
		}
		return fmt.Errorf("%s name \"%s\" is not valid UTF-8, which no output format can store faithfully; rename it in the source model", what, printname.Name(name))
	}
	if err := bad("graph", g.Name); err != nil {
		return err
	}
	for _, v := range append(append([]canon.ValueInfo(nil), g.Inputs...), g.Outputs...) {
		if err := bad("input or output", v.Name); err != nil {
			return err
		}
	}
	for _, t := range g.Initializers {
		if err := bad("weight", t.Name); err != nil {
			return err
		}
	}
	for _, n := range g.Nodes {
		if err := bad("node", n.Name); err != nil {
			return err
		}
		for _, v := range append(append([]string(nil), n.Inputs...), n.Outputs...) {
			if err := bad("value", v); err != nil {
				return err
			}
		}
	}
	return nil
}
