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
	// Conv+BN+Relu, Conv+BN+Clip and Conv+Clip fold into their Conv; the
	// last Conv feeds a graph output and its Relu stays.
	compareFusion(t, fusionNet(t), 5)
}

// residualNet has the Adds the fusion takes: Conv+BN, Add of a residual
// computed after the Conv, Relu; a depthwise Conv that is the Add's second
// input; a grouped Conv + Add + Clip; a 3×3 Conv on the Winograd path +
// Add + Relu; and one it leaves: an Add that broadcasts.
func residualNet(tb testing.TB) *canon.Graph {
	b := newNetBuilder("x", 2, 8, 13, 11)
	main := b.bn(b.conv("x", 8, 8, 3, 1, 1, 1, false), 8)
	short := b.conv("x", 8, 8, 1, 1, 0, 1, true)
	y := b.relu(b.node(&canon.Binary{Fn: canon.Add}, main, short))
	y = b.node(&canon.Binary{Fn: canon.Add}, y, b.conv(y, 8, 8, 3, 1, 1, 8, true))
	y = b.node(&canon.Clip{Min: -0.25, Max: 0.5}, b.node(&canon.Binary{Fn: canon.Add}, b.conv(y, 8, 8, 3, 1, 1, 2, true), y))
	y = b.relu(b.node(&canon.Binary{Fn: canon.Add}, b.conv(y, 8, 8, 3, 1, 1, 1, true), y))
	y = b.node(&canon.Binary{Fn: canon.Add}, b.conv(y, 8, 8, 1, 1, 0, 1, true), b.weight(1, 8, 1, 1))
	return b.finish(tb, y)
}

func TestConvResidualFusion(t *testing.T) {
	defer func(n int) { winogradMinChannels = n }(winogradMinChannels)
	winogradMinChannels = 8
	// BN, Add and Relu/Clip fold into the first four Convs (8 steps); the
	// broadcasting Add stays.
	compareFusion(t, residualNet(t), 8)
}

// compareFusion checks that fusion removes removed steps from g's plan and
// that the fused plan computes what the unfused one does.
func compareFusion(t *testing.T, g *canon.Graph, removed int) {
	t.Helper()
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
	if got, want := len(fused.steps), len(plain.steps)-removed; got != want {
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
