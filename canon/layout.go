package canon

import (
	"fmt"
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
