package interp

import (
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Recurrent ops whose input weights are constants pack them once; the
// outputs are those of the same weights fed as an input, bit for bit, on
// one core and two, run after run, in both directions.
func TestRecurrentPackedInputWeights(t *testing.T) {
	for _, c := range []struct {
		op    canon.RecurrentOp
		gates int64
	}{{&canon.LSTM{}, 4}, {&canon.GRU{}, 3}} {
		for _, dir := range []canon.RNNDirection{canon.Forward, canon.Bidirectional} {
			const seq, batch, in, hidden = 9, 2, 37, 40
			dirs := int64(dir.NumDirections())
			build := func() *canon.Graph {
				op := c.op
				r := op.Rec()
				r.HiddenSize, r.Direction = hidden, dir
				r.Activations = canon.DefaultActivations(op, int(dirs))
				nb := newNetBuilder("x", seq, batch, in)
				w := nb.weight(0.3, dirs, c.gates*hidden, in)
				rw := nb.weight(0.3, dirs, c.gates*hidden, hidden)
				return nb.finish(t, nb.node(op, "x", w, rw))
			}
			gc, gi := build(), build()
			// gi takes W as an input, fed the initializer gc holds.
			wv := gi.Initializers[0]
			gi.Initializers = gi.Initializers[1:]
			gi.Inputs = append(gi.Inputs, canon.ValueInfo{Name: wv.Name, DType: canon.Float32, Shape: canon.DimsOf(wv.Shape...), RankKnown: true})
			xv := randTensor(rand.New(rand.NewSource(2)), "x", seq, batch, in)
			for _, procs := range []int{1, 2} {
				old := runtime.GOMAXPROCS(procs)
				want, err := Run(gi, map[string]*canon.Tensor{"x": xv, wv.Name: wv})
				if err != nil {
					t.Fatal(err)
				}
				p, err := New(gc)
				if err != nil {
					t.Fatal(err)
				}
				for run := range 2 {
					got, err := p.Run(map[string]*canon.Tensor{"x": xv})
					if err != nil {
						t.Fatal(err)
					}
					for name, wt := range want {
						a, _ := wt.Float64s()
						b, _ := got[name].Float64s()
						for i := range a {
							if math.Float32bits(float32(a[i])) != math.Float32bits(float32(b[i])) {
								t.Fatalf("%s %v, %d cores, run %d: %s[%d] = %v, with W fed as an input %v", c.op.Kind(), dir, procs, run, name, i, b[i], a[i])
							}
						}
					}
				}
				if hasFMA && len(p.steps[0].packedB) != int(dirs) {
					t.Errorf("%s %v: %d packed input weights, want %d", c.op.Kind(), dir, len(p.steps[0].packedB), dirs)
				}
				runtime.GOMAXPROCS(old)
			}
		}
	}
}
