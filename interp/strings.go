package interp

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/modelbridge/modelbridge/canon"
)

// String tensors: elements are Go strings (any bytes) in tensor.s. Only
// the kernels listed in stringKinds take them; any other kernel given one
// is refused by runStep, naming the node (canon.TakesStrings says which). A kernel that makes strings
// charges the memory budget for their bytes and headers (newS), and the
// pool gives the charge back when the value dies, so a hostile input that
// would make huge strings (a long string broadcast against a long tensor)
// stops with a memory error instead of exhausting the machine.

// stringHeader is what one string element costs besides its bytes.
const stringHeader = 16

// stringBytes is the memory strings occupy: headers and bytes.
func stringBytes(s []string) int64 {
	n := int64(len(s)) * stringHeader
	for _, v := range s {
		n += int64(len(v))
	}
	return n
}

// newS returns a string tensor of the given shape with every element
// empty, charging the budget for its headers and for extra bytes of
// content the caller is about to make.
func (x *exec) newS(shape []int, extra int64) *tensor {
	n := checkedNumel(shape, stringHeader)
	cost := int64(n)*stringHeader + extra
	x.p.pool.budget.charge(fmt.Sprintf("a string tensor of shape %v (%s of text)", shape, humanSize(extra)), cost)
	return &tensor{dt: canon.String, shape: shape, s: make([]string, n), sBytes: cost}
}

// stringsToCanon finishes toCanon for a string tensor.
func stringsToCanon(t *tensor, out *canon.Tensor) (*canon.Tensor, error) {
	if t.dt != canon.String || out.DType != canon.String {
		return nil, fmt.Errorf("output %q: a %s value cannot be given as %s", out.Name, t.dt, out.DType)
	}
	out.Strings = slices.Clone(t.s)
	return out, nil
}

// needUTF8 fails naming the first element of s that is not UTF-8.
func needUTF8(s []string, why string) error {
	for i, v := range s {
		if !utf8.ValidString(v) {
			return fmt.Errorf("string element %d (%q) is not valid UTF-8; %s", i, clip(v), why)
		}
	}
	return nil
}

// clip shortens a string for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// compareStrings is Equal on two string tensors, with broadcasting.
func compareStrings(x *exec, op *canon.Compare, a, b *tensor) error {
	if a.dt != b.dt {
		return fmt.Errorf("operands have different dtypes %s and %s", a.dt, b.dt)
	}
	if op.Fn != canon.CmpEqual {
		return fmt.Errorf("%s does not compare strings (only Equal does)", op.Fn)
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return err
	}
	out := x.newI(canon.Bool, shape)
	bcastWalk(shape, [][]int{a.shape, b.shape}, func(o int, offs []int) {
		out.i[o] = b2i(a.s[offs[0]] == b.s[offs[1]])
	})
	x.set(0, out)
	return nil
}
