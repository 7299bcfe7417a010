package quantize

import (
	"slices"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/optimize"
)

// fakeTimer says a graph is faster the fewer depthwise convs it quantizes
// and the more other nodes it quantizes.
type fakeTimer struct{ calls int }

func (f *fakeTimer) cost(g *canon.Graph) float64 {
	c := 100.0
	for _, n := range g.Nodes {
		op, ok := n.Op.(*canon.Conv)
		if !ok {
			continue
		}
		if q := g.Initializer(n.Inputs[1]) == nil; q && op.Group > 1 {
			c += 50 // a quantized depthwise conv: slow
		} else if q {
			c -= 20
		}
	}
	return c
}

func (f *fakeTimer) Compare(before, after *canon.Graph) (optimize.Comparison, error) {
	f.calls++
	b, a := f.cost(before), f.cost(after)
	return optimize.Comparison{BeforeMs: b, AfterMs: a, Ratio: a / b, Faster: a < 0.95*b}, nil
}

func TestTuneLeavesSlowClassFloat(t *testing.T) {
	g := smallCNN()
	c, err := Prepare(g, randomInputs{g, 4, 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, rep, sp, err := Tune(g, c.Build, &fakeTimer{}, "fake")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.KeptFloat, "depthwise Conv") || slices.Contains(rep.KeptFloat, "Conv") {
		t.Errorf("kept float %v, want the depthwise conv only", rep.KeptFloat)
	}
	if sp.Slower || sp.Overall.Ratio >= 1 {
		t.Errorf("overall %+v", sp.Overall)
	}
	if rep.Quantized["depthwise Conv"] != 0 || countOps(q)["QuantizeLinear"] == 0 {
		t.Errorf("quantized %v", rep.Quantized)
	}
}
