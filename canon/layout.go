package canon

import (
	"fmt"
	"strconv"
	"strings"
)

// Layout names the axes of a weight tensor with one letter each:
// O = output channels, I = input channels, C = channels of a per-channel
// vector, D/H/W = spatial axes (depth, height, width). The empty layout means
// the tensor is plain data with no channel semantics.
type Layout string

// Role is what a node input is used for, which decides the layout it needs.
type Role uint8

const (
	RoleData         Role = iota // activations or plain data: no layout
	RoleConvWeight               // O, I, spatial...
	RoleDeconvWeight             // I, O, spatial...
	RoleLinearWeight             // O, I
	RoleChannel                  // per-channel vector of a BatchNorm: C
	RoleBias                     // per-output-channel bias: O
	RoleWeight                   // a learned tensor with no channel layout (PRelu's slope)
	RoleGateWeight               // recurrent W or R: direction, gate rows (the op's gate order), input: DGI
	RoleGateVector               // recurrent bias or peephole: direction, gate rows: DG
)

// spatialLetters are the letters for 1, 2 and 3 spatial axes.
var spatialLetters = [...]string{1: "W", 2: "HW", 3: "DHW"}

// SpatialLetters returns the axis letters for n spatial axes, or "" when n
// is outside 1..3 (layouts of higher rank use S1, S2, ... implicitly and are
// reported as unlabelled).
func SpatialLetters(n int) string {
	if n >= 1 && n <= 3 {
		return spatialLetters[n]
	}
	return ""
}

// LayoutFor returns the layout a tensor of the given rank must have when used
// in role r, and false when the role carries no layout.
func LayoutFor(r Role, rank int) (Layout, bool) {
	switch r {
	case RoleConvWeight:
		return Layout("OI" + SpatialLetters(rank-2)), true
	case RoleDeconvWeight:
		return Layout("IO" + SpatialLetters(rank-2)), true
	case RoleLinearWeight:
		return "OI", true
	case RoleChannel:
		return "C", true
	case RoleBias:
		return "O", true
	case RoleGateWeight:
		return "DGI", true
	case RoleGateVector:
		return "DG", true
	}
	return "", false
}

// Permutation returns perm such that a tensor in layout from, transposed with
// perm (out axis i = in axis perm[i]), is in layout to. Both layouts must hold
// the same letters exactly once each.
func Permutation(from, to Layout) ([]int, error) {
	if len(from) != len(to) {
		return nil, fmt.Errorf("layouts %s and %s have different ranks", from, to)
	}
	perm := make([]int, len(to))
	for i, c := range to {
		j := strings.IndexRune(string(from), c)
		if j < 0 || strings.Count(string(from), string(c)) != 1 || strings.Count(string(to), string(c)) != 1 {
			return nil, fmt.Errorf("layout %s cannot be permuted into %s: axis letter %c", from, to, c)
		}
		perm[i] = j
	}
	return perm, nil
}

// LayoutFits reports whether a tensor of the given rank can carry role r's
// layout; a tensor that cannot is left unlabelled and validation reports
// the misuse.
func LayoutFits(r Role, rank int) bool {
	switch r {
	case RoleConvWeight, RoleDeconvWeight:
		return rank >= 3 && rank <= 5
	case RoleLinearWeight:
		return rank == 2
	case RoleChannel, RoleBias:
		return rank == 1
	case RoleGateWeight:
		return rank == 3
	case RoleGateVector:
		return rank == 2
	}
	return false
}

// OutputChannelAxis is the axis of a weight in role r that indexes output
// channels, the axis along which per-output-channel scales and biases
// apply. For a ConvTranspose weight (IO...) it is axis 1 and covers only
// the channels of one group: output channel g·(C_out/Group)+j is row j of
// group g's slice of axis 0. It returns false for roles without output
// channels.
func OutputChannelAxis(r Role) (axis int, perGroup bool, ok bool) {
	switch r {
	case RoleConvWeight, RoleLinearWeight, RoleBias, RoleChannel:
		return 0, false, true
	case RoleDeconvWeight:
		return 1, true, true
	}
	return 0, false, false
}

// AssignLayouts gives every constant weight (an initializer, or a Constant
// node's value) the layout its consumer's role needs. A weight already
// labelled with another layout, because another consumer reads it in
// another role, is copied under a fresh name for this consumer, so each
// tensor has one layout. Importers and passes that create weights call it
// instead of labelling by hand.
func AssignLayouts(g *Graph) {
	inits := g.InitializerIndex()
	consts := map[string]*Tensor{}
	for _, n := range g.Nodes {
		if k, ok := n.Op.(*Constant); ok && len(n.Outputs) == 1 && k.Value != nil {
			consts[n.Outputs[0]] = k.Value
		}
	}
	// taken, every name in use, is made when a first copy needs a name:
	// most graphs need none, and it is an entry per value.
	var taken map[string]bool
	isTaken := func(name string) bool {
		if taken == nil {
			taken = map[string]bool{}
			for _, v := range g.Inputs {
				taken[v.Name] = true
			}
			for name := range inits {
				taken[name] = true
			}
			for _, n := range g.Nodes {
				for _, o := range n.Outputs {
					taken[o] = true
				}
			}
		}
		return taken[name]
	}
	copies := map[string]string{}
	for _, n := range g.Nodes {
		specs := n.Op.Signature().Inputs
		for i, in := range n.Inputs {
			if in == "" || len(specs) == 0 {
				continue
			}
			spec := specs[min(i, len(specs)-1)]
			if i >= len(specs) && !spec.Variadic {
				continue
			}
			t := inits[in]
			if t == nil {
				// A Constant node's value has no second name to copy it
				// under: it is only labelled when unlabelled.
				if k := consts[in]; k != nil && k.Layout == "" {
					if want, ok := LayoutFor(spec.Role, len(k.Shape)); ok && LayoutFits(spec.Role, len(k.Shape)) {
						k.Layout = want
					}
				}
				continue
			}
			want, ok := LayoutFor(spec.Role, len(t.Shape))
			if !ok || !LayoutFits(spec.Role, len(t.Shape)) {
				continue
			}
			switch {
			case t.Layout == "":
				t.Layout = want
			case t.Layout != want:
				key := in + "\x00" + string(want)
				name, ok := copies[key]
				if !ok {
					name = in + "_" + string(want)
					for k := 1; isTaken(name); k++ {
						name = in + "_" + string(want) + "_" + strconv.Itoa(k)
					}
					taken[name] = true
					c := *t
					c.Name, c.Layout = name, want
					g.Initializers = append(g.Initializers, &c)
					inits[name] = &c
					copies[key] = name
				}
				n.Inputs[i] = name
			}
		}
	}
}

// CheckKernelLayout accepts a kernel layout made of O, I and one spatial
// letter set (W, HW or DHW), each letter once.
func CheckKernelLayout(l string) error {
	letters := strings.Split(l, "")
	seen := map[string]bool{}
	for _, c := range letters {
		if !strings.Contains("OIDHW", c) {
			return fmt.Errorf("unknown axis letter %q (use O, I and the spatial letters D, H, W)", c)
		}
		if seen[c] {
			return fmt.Errorf("axis letter %q appears twice", c)
		}
		seen[c] = true
	}
	if !seen["O"] || !seen["I"] {
		return fmt.Errorf("a kernel layout needs both O and I")
	}
	spatial := strings.NewReplacer("O", "", "I", "").Replace(l)
	if want := SpatialLetters(len(spatial)); want == "" || !sameLetters(spatial, want) {
		return fmt.Errorf("spatial letters must be W, HW or DHW")
	}
	return nil
}

func sameLetters(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, c := range a {
		if !strings.ContainsRune(b, c) {
			return false
		}
	}
	return true
}
