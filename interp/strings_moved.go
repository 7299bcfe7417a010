package interp

import (
	"github.com/modelbridge/modelbridge/canon"
)

// Kernels that only move elements (Concat, Gather, Transpose...) run on
// strings through index tensors: each string input becomes an int64
// tensor of positions into one pool of all the step's string inputs, the
// kernel moves the positions, and every output of positions becomes
// strings again. A kernel that writes values of its own (Pad's constant,
// Trilu's zeros, OneHot, the Scatter reductions) is not among them.
var movesStrings = map[string]bool{
	"Concat": true, "Split": true, "Transpose": true, "Slice": true, "Gather": true,
	"GatherElements": true, "GatherND": true, "Where": true, "Expand": true, "Tile": true,
	"DepthToSpace": true, "SpaceToDepth": true, "ReverseSequence": true, "Compress": true,
}

// stringsToPositions replaces the step's string inputs by position
// tensors (dtype String, storage i) and returns the pool they index, or
// nil when the step has no string input. The position tensors are never
// given to take (see takeAdapted): the step's outputs are new tensors.
func (x *exec) stringsToPositions() (pool []string, made []*tensor) {
	s := x.s
	for k, id := range s.in {
		if id < 0 || x.vals[id] == nil || x.vals[id].dt != canon.String {
			continue
		}
		if x.adapted == nil {
			x.adapted = make([]*tensor, len(s.in))
			for j, id2 := range s.in {
				if id2 >= 0 {
					x.adapted[j] = x.vals[id2]
				}
			}
		}
		t := x.vals[id]
		pos := x.newI(canon.String, t.shape)
		for i := range pos.i {
			pos.i[i] = int64(len(pool) + i)
		}
		pool = append(pool, t.s...)
		x.adapted[k] = pos
		made = append(made, pos)
	}
	return pool, made
}

// positionsToStrings turns the step's outputs of positions back into
// strings from pool, and returns the position buffers to the pool.
func (x *exec) positionsToStrings(pool []string, made []*tensor) {
	for _, id := range x.s.out {
		if id < 0 || x.vals[id] == nil {
			continue
		}
		t := x.vals[id]
		if t.dt != canon.String || t.i == nil {
			continue
		}
		out := x.newS(t.shape, 0)
		for i, p := range t.i {
			out.s[i] = pool[p]
		}
		x.p.pool.put(t)
		x.vals[id] = out
	}
	for _, t := range made {
		x.p.pool.put(t)
	}
}
