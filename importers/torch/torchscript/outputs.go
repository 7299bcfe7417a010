package torchscript

import "fmt"

// A forward that returns dicts (a detection model's List[Dict[str,
// Tensor]]) makes one graph output per entry, named after its key: the
// first dict's "boxes" is output boxes, a later dict's is boxes_1, boxes_2,
// ... in order. An empty dict (the losses of a model in eval mode) makes
// no output.

// nameOutput names output position at after dict key k.
func (b *builder) nameOutput(at int, k value) {
	base := fmt.Sprint(k)
	if b.outNames == nil {
		b.outNames = map[int]string{}
	}
	taken := map[string]bool{}
	for _, n := range b.outNames {
		taken[n] = true
	}
	name := base
	for i := 1; taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	b.outNames[at] = name
}
