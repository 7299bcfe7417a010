package optimize

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// A weight read by two Convs, the first followed by a BatchNorm: folding
// gives that Conv its own copy (the other still needs the original), says
// so, and the parameter count shows the copy. Read under one name or under
// two names of one tensor, the result is the same; without the second
// reader nothing is copied.
func TestFoldBNSharedWeight(t *testing.T) {
	for _, tc := range []struct {
		name   string
		second string // how the second Conv names the weight: "same", "alias" or "" (no second Conv)
	}{{"one name", "same"}, {"two names", "alias"}, {"not shared", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(79)
			x := b.input("x", 1, 3, 5, 5)
			w := b.randW("OIHW", -0.5, 0.5, 4, 3, 3, 3)
			conv := &canon.Conv{Strides: spatial(1, 2), Dilations: spatial(1, 2), PadsBegin: spatial(1, 2), PadsEnd: spatial(1, 2), Group: 1}
			outs := []string{b.relu(b.bn(b.node(conv, x, w), 4, 1e-5))}
			if tc.second != "" {
				w2 := w
				if tc.second == "alias" {
					tied := *b.g.Initializers[0]
					tied.Name = "tied"
					b.g.Initializers = append(b.g.Initializers, &tied)
					w2 = tied.Name
				}
				outs = append(outs, b.relu(b.node(conv, x, w2)))
			}
			g := b.output(outs...)
			before := ParamCount(g)
			opt := runPasses(t, g, "fold_bn")
			wantOps(t, opt, map[string]int{"BatchNormalization": 0})
			after := ParamCount(opt)
			notes := strings.Join(opt.Meta.Notes, "\n")
			if tc.second == "" {
				// The weight is rewritten in place of the old one; the
				// BatchNorm's 4×4 statistics become a 4-value bias.
				if after != before-16+4 || notes != "" {
					t.Fatalf("params %d -> %d, notes %q; want %d and no note", before, after, notes, before-12)
				}
				return
			}
			// One copy of the 108-value weight more, the statistics gone.
			if after != before+108-16+4 {
				t.Errorf("params %d -> %d, want %d", before, after, before+108-12)
			}
			if !strings.Contains(notes, "fold_bn: weight") || !strings.Contains(notes, "is shared with node") {
				t.Errorf("notes %q, want one saying the shared weight was copied", notes)
			}
		})
	}
}

// Folding a per-channel Add into one of two Convs that share a weight
// changes only that Conv's bias: the weight stays shared, nothing is
// copied.
func TestFuseBiasKeepsSharedWeight(t *testing.T) {
	b := newGB(83)
	x := b.input("x", 1, 3, 5, 5)
	w := b.randW("OIHW", -0.5, 0.5, 4, 3, 3, 3)
	conv := &canon.Conv{Strides: spatial(1, 2), Dilations: spatial(1, 2), PadsBegin: spatial(1, 2), PadsEnd: spatial(1, 2), Group: 1}
	shift := b.randW("", -1, 1, 1, 4, 1, 1)
	y1 := b.relu(b.node(&canon.Binary{Fn: canon.Add}, b.node(conv, x, w), shift))
	y2 := b.relu(b.node(conv, x, w))
	g := b.output(y1, y2)
	before := ParamCount(g)
	opt := runPasses(t, g, "fuse_bias_add")
	wantOps(t, opt, map[string]int{"Add": 0})
	if after := ParamCount(opt); after != before {
		t.Errorf("params %d -> %d, want the same (the shift becomes the bias, the weight stays shared)", before, after)
	}
	if len(opt.Meta.Notes) != 0 {
		t.Errorf("notes %q, want none", opt.Meta.Notes)
	}
}
