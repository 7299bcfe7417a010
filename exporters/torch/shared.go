package torchexport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// Tied weights. Initializers that are one tensor under several names (see
// canon.SameData) become one Parameter (or buffer) that model.py registers
// under every name, as a tied PyTorch model does: its state dict then has
// one key per name, and weights.pt stores one storage for them all.

// sharedGroup is the name that stands for name's tensor: the first name
// the tensor was given.
func (gen *generator) sharedGroup(name string) string {
	if o, ok := gen.shared[name]; ok {
		return o
	}
	return name
}

// noteKey records that the tensor of initializer orig now lives at key,
// when the entry holds that tensor unchanged (not a reshaped copy), so that
// its other names can be tied to it.
func (gen *generator) noteKey(key, orig string, t *canon.Tensor) {
	src := gen.inits[orig]
	if src == nil || (t != src && !canon.SameData(t, src)) {
		return
	}
	g := gen.sharedGroup(orig)
	if _, ok := gen.groupKey[g]; !ok {
		gen.groupKey[g] = key
	}
}

// tiedRef registers name as a second name of a tensor already registered
// under another name, and returns its expression; ok is false when no name
// of its tensor has been registered yet.
func (gen *generator) tiedRef(name string) (string, bool) {
	first, ok := gen.groupKey[gen.sharedGroup(name)]
	if !ok {
		return "", false
	}
	t := gen.inits[name]
	key := gen.claimPath([]string{name}, name, "tensor")
	buffer := ""
	if !t.DType.IsFloat() {
		buffer = ", buffer=True"
	}
	gen.init = append(gen.init, fmt.Sprintf("_put(self, %s, %s%s)  # tied to %s", pyString(key), gen.access(first), buffer, first))
	gen.addEntry(key, name, t)
	return gen.access(key), true
}
