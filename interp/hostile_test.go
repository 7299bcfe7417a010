package interp

import (
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// fakeConv is a foreign op type that claims a canonical kind.
type fakeConv struct{}

func (fakeConv) Kind() string               { return "Conv" }
func (fakeConv) Signature() canon.Signature { return (&canon.Conv{}).Signature() }

// TestInvalidGraphsDoNotPanic: New trusts a validated graph and does not
// repeat canon's arity, attribute and layout checks. Each graph here fails
// g.Validate() (which formats.Read runs); given one anyway, New and Run must
// return an error or some result, never panic.
func TestInvalidGraphsDoNotPanic(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	x := randTensor(r, "x", 1, 2, 4, 4)
	feed := map[string]*canon.Tensor{"x": x}
	iohw := randTensor(r, "w", 3, 2, 3, 3)
	iohw.Layout, _ = canon.LayoutFor(canon.RoleDeconvWeight, 4) // Conv needs OIHW
	b := randTensor(r, "b", 1)
	for _, c := range []struct {
		name  string
		op    canon.Op
		order []string
		inits []*canon.Tensor
		// skipValidate: canon's Check type-asserts the op to its kind's
		// struct and panics on a foreign type, so Validate is not asked.
		skipValidate bool
	}{
		{"conv weight in the wrong layout", &canon.Conv{Group: 1}, []string{"x", "w"}, []*canon.Tensor{iohw}, false},
		{"conv without its weight", &canon.Conv{Group: 1}, []string{"x"}, nil, false},
		{"nil conv", (*canon.Conv)(nil), []string{"x", "w"}, []*canon.Tensor{iohw}, false},
		{"nil binary", (*canon.Binary)(nil), []string{"x", "b"}, []*canon.Tensor{b}, false},
		{"foreign op named Conv", fakeConv{}, []string{"x", "w"}, []*canon.Tensor{iohw}, true},
		{"binary function out of range", &canon.Binary{Fn: 99}, []string{"x", "b"}, []*canon.Tensor{b}, false},
		{"unary function out of range", &canon.Unary{Fn: 99}, []string{"x"}, nil, false},
		{"gelu approximation out of range", &canon.Gelu{Approximate: 99}, []string{"x"}, nil, false},
		{"pad mode out of range", &canon.Pad{Mode: 99, PadsBegin: []int64{0, 0, 1, 1}, PadsEnd: []int64{0, 0, 1, 1}}, []string{"x"}, nil, false},
		{"resize modes out of range", &canon.Resize{Scales: []float32{1, 1, 2, 2}, CoordTransform: 99, Nearest: 99}, []string{"x"}, nil, false},
		{"max pool without kernel", &canon.MaxPool{}, []string{"x"}, nil, false},
		{"softmax on a missing input", &canon.Softmax{}, []string{""}, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := rawGraphOf(c.op, feed, c.order, c.inits)
			if !c.skipValidate && g.Validate() == nil {
				t.Fatal("g.Validate() accepted the graph; the case tests nothing")
			}
			p, err := New(g)
			if err != nil {
				t.Logf("New: %v", err)
				return
			}
			_, err = p.Run(feed)
			t.Logf("Run: %v", err)
		})
	}
}
