package optimize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// The cost model prices every registered op kind, and its table names no
// kind canon does not register and none its traits already price.
func TestCostCoverage(t *testing.T) {
	cov := CostCoverage()
	for _, gap := range canon.Gaps(map[string]canon.Coverage{"optimize cost model": cov}) {
		t.Error(gap)
	}
	for kind, s := range cov {
		if !s.Handled {
			t.Errorf("cost model: %s is declared unpriced (%s); every op kind needs a cost", kind, s.Reason)
		}
	}
	for kind := range costTable {
		d := canon.Lookup(kind)
		switch {
		case d == nil:
			t.Errorf("costTable prices %q, which canon does not register: remove the stale entry", kind)
		case d.Traits.View:
			t.Errorf("costTable prices %s, a view: its View trait already makes it free, remove the entry", kind)
		case d.Traits.Elementwise:
			t.Errorf("costTable prices %s, an elementwise op: its MathCost trait prices it, remove the entry", kind)
		}
	}
}

// Every op kind's example gets a cost: views and Constant move nothing,
// Shape only writes the shape, every other op does arithmetic, and an
// elementwise op costs its MathCost per output element.
func TestCostOfEveryOp(t *testing.T) {
	for _, d := range canon.Ops() {
		g, err := d.ExampleGraph()
		if err != nil {
			t.Errorf("%s: %v", d.Kind, err)
			continue
		}
		rep, err := GraphCost(g)
		if err != nil {
			t.Errorf("%s: %v", d.Kind, err)
			continue
		}
		c := rep.Total
		switch {
		case d.Traits.View || d.Kind == "Constant":
			if c.FLOPs != 0 || c.Bytes != 0 || c.Launches != 0 {
				t.Errorf("%s moves no data but costs %g FLOPs, %g bytes, %d launches", d.Kind, c.FLOPs, c.Bytes, c.Launches)
			}
		case d.Kind == "Shape":
			if c.FLOPs != 0 || c.Launches != 1 {
				t.Errorf("Shape costs %g FLOPs and %d launches, want 0 and 1", c.FLOPs, c.Launches)
			}
		case d.Kind == "Loop" || d.Kind == "Scan":
			// The examples run their body a known number of times: each
			// run is priced (see repeatedBody).
			if c.FLOPs <= 0 || c.Bytes <= 0 || c.Launches <= 1 {
				t.Errorf("%s costs %g FLOPs, %g bytes, %d launches; want its body's runs", d.Kind, c.FLOPs, c.Bytes, c.Launches)
			}
		default:
			if c.FLOPs <= 0 || c.Bytes <= 0 || c.Launches != 1 {
				t.Errorf("%s costs %g FLOPs, %g bytes, %d launches; want some of each and one launch", d.Kind, c.FLOPs, c.Bytes, c.Launches)
			}
		}
		if d.Traits.Elementwise {
			out := numelOf(g.Values.Get(g.Nodes[0].Outputs[0]))
			if want := d.Traits.MathCost * out; c.FLOPs != want {
				t.Errorf("%s costs %g FLOPs, want MathCost %g × %g elements = %g", d.Kind, c.FLOPs, d.Traits.MathCost, out, want)
			}
		}
	}
}

// Elu, Selu and Gelu once cost nothing while Tanh on the same tensor did.
func TestCostActivationsOnOneTensor(t *testing.T) {
	b := newGB(5)
	x := b.input("x", 2, 8, 6, 6)
	ops := []canon.Op{&canon.Unary{Fn: canon.Tanh}, &canon.Elu{Alpha: 1}, &canon.Selu{Alpha: canon.SeluAlpha, Gamma: canon.SeluGamma}, &canon.Gelu{}}
	var outs []string
	for _, op := range ops {
		outs = append(outs, b.node(op, x))
	}
	g := b.output(outs...)
	rep, err := GraphCost(g)
	if err != nil {
		t.Fatal(err)
	}
	flops := map[string]float64{}
	for _, r := range rep.PerNode {
		flops[r.Op] = r.FLOPs
	}
	for _, op := range ops {
		k := op.Kind()
		want := canon.TraitsOf(op).MathCost * 2 * 8 * 6 * 6
		if flops[k] <= 0 || flops[k] != want {
			t.Errorf("%s on the tensor Tanh reads costs %g FLOPs, want %g (Tanh: %g)", k, flops[k], want, flops["Tanh"])
		}
	}
}
