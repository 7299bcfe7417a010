package optimize

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/modelbridge/modelbridge/canon"
)

// foldMemo makes constant folding keep sharing: the same op applied to the
// same tensor (one weight under several names, each name transposed by its
// own node) folds to one result whose data every such node's output
// shares, so the folded model holds it once, as the source held the input.
type foldMemo map[string][]*canon.Tensor

// key identifies node n's computation on its constant inputs, or "" when
// an input is not a constant with data.
func (foldMemo) key(n *canon.Node, known map[string]*canon.Tensor) string {
	if _, ok := n.Op.(*canon.Constant); ok || len(n.Inputs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%#v|%d", n.Op.Kind(), n.Op, len(n.Outputs))
	for _, in := range n.Inputs {
		if in == "" {
			b.WriteString("|-")
			continue
		}
		t := known[in]
		if t == nil || len(t.Data) == 0 {
			return ""
		}
		fmt.Fprintf(&b, "|%p:%d:%s:%v:%s", unsafe.SliceData(t.Data), len(t.Data), t.DType, t.Shape, t.Layout)
	}
	return b.String()
}
