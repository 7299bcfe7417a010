package optimize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// splitNode adds a Split of x into len(sizes) pieces along axis.
func (b *gb) split(x string, axis int64, sizes ...int64) []string {
	outs := make([]string, len(sizes))
	for i := range outs {
		outs[i] = b.name("v")
	}
	b.g.Nodes = append(b.g.Nodes, &canon.Node{Name: b.name("n"), Op: &canon.Split{Axis: axis, Sizes: sizes}, Inputs: []string{x}, Outputs: outs})
	return outs
}

// Concat of a whole Split in order along its axis is the Split's input, and
// a Split of a Concat into its parts gives the parts back; a Concat in
// another order, along another axis or of some of the pieces stays, and so
// does a Split cutting elsewhere. Every case is verified by the
// interpreter (runPasses).
func TestEliminateSplitConcat(t *testing.T) {
	cases := []struct {
		name  string
		build func(b *gb, x string) []string
		left  map[string]int
	}{
		{"split+concat", func(b *gb, x string) []string {
			p := b.split(x, 1, 1, 2, 1)
			return []string{b.node(&canon.Concat{Axis: -3}, p...)}
		}, map[string]int{"Split": 0, "Concat": 0}},
		{"split+concat reordered", func(b *gb, x string) []string {
			p := b.split(x, 1, 2, 2)
			return []string{b.node(&canon.Concat{Axis: 1}, p[1], p[0])}
		}, map[string]int{"Split": 1, "Concat": 1}},
		{"split+concat other axis", func(b *gb, x string) []string {
			p := b.split(x, 1, 2, 2)
			return []string{b.node(&canon.Concat{Axis: 2}, p...)}
		}, map[string]int{"Split": 1, "Concat": 1}},
		{"concat+split", func(b *gb, x string) []string {
			y := b.relu(x)
			c := b.node(&canon.Concat{Axis: 1}, x, y)
			p := b.split(c, 1, 4, 4)
			return []string{b.node(&canon.Binary{Fn: canon.Sub}, p[0], p[1])}
		}, map[string]int{"Split": 0, "Concat": 0}},
		{"concat+split elsewhere", func(b *gb, x string) []string {
			y := b.relu(x)
			c := b.node(&canon.Concat{Axis: 1}, x, y)
			p := b.split(c, 1, 3, 5)
			return []string{b.relu(p[0]), b.relu(p[1])}
		}, map[string]int{"Split": 1, "Concat": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(73)
			x := b.input("x", 2, 4, 3, 3)
			outs := tc.build(b, x)
			for i, o := range outs {
				outs[i] = b.relu(o)
			}
			opt := runPasses(t, b.output(outs...), "eliminate_noop")
			wantOps(t, opt, tc.left)
		})
	}
}
