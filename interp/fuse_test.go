package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// fusionNet chains the patterns the plan-time fusion handles: Conv+bias+BN+
// Relu, grouped Conv+BN+Clip, depthwise Conv+bias+Clip, and a Conv whose
// output is also a graph output (which must not be fused away).
func fusionNet(tb testing.TB) *canon.Graph {
	b := newNetBuilder("x", 2, 8, 13, 11)
	y := b.relu(b.bn(b.conv("x", 8, 16, 3, 1, 1, 1, true), 16))
	y = b.node(&canon.Clip{Min: -0.5, Max: 0.75}, b.bn(b.conv(y, 16, 16, 3, 2, 1, 4, false), 16))
	y = b.node(&canon.Clip{Min: 0, Max: 6}, b.conv(y, 16, 16, 3, 1, 1, 16, true))
	kept := b.conv(y, 16, 8, 1, 1, 0, 1, true)
	z := b.relu(kept)
	return b.finish(tb, z, kept)
}

func TestConvEpilogueFusion(t *testing.T) {
	g := fusionNet(t)
	in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(3)), "x", 2, 8, 13, 11)}
	fused, err := New(g)
	if err != nil {
		t.Fatal(err)
	}
	fuseEpilogues = false
	plain, err := New(g)
	fuseEpilogues = true
	if err != nil {
		t.Fatal(err)
	}
	// Conv+BN+Relu, Conv+BN+Clip and Conv+Clip fold into their Conv; the
	// last Conv feeds a graph output and its Relu stays.
	if got, want := len(fused.steps), len(plain.steps)-5; got != want {
		t.Errorf("fused plan has %d steps, want %d (unfused %d)", got, want, len(plain.steps))
	}
	a, err := fused.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	e, err := plain.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range e {
		got := a[name]
		wf, err := want.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		gf, err := got.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		if len(wf) != len(gf) {
			t.Fatalf("%s: %d values, want %d", name, len(gf), len(wf))
		}
		for i := range wf {
			if d := math.Abs(gf[i] - wf[i]); d > 1e-5*(1+math.Abs(wf[i])) {
				t.Fatalf("%s[%d] = %g fused, %g unfused", name, i, gf[i], wf[i])
			}
		}
	}
}
