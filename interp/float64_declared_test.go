package interp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestFloat64AsDeclared runs every kind whose kernel-table entry claims
// float64 (computesF64, movesF64), or that runs float64 data as its
// expansion (float32Only with a Decompose), on its canonical example twice in
// float64: on inputs float32 cannot hold (integers ± ~1e-10, constants
// nudged by ~1e-9 of their value) and on those inputs rounded to float32.
// A kernel that computed float64 data in float32 would see the same values
// both times and give the same outputs; one computing in float64 sees the
// difference. The float64 results are also compared with the float32
// kernel's on the rounded inputs wherever the op is continuous there.
// Kinds whose every float output is integer-valued (Sign, Hardmax's 0/1)
// carry no precision to lose and only need to run.
func TestFloat64AsDeclared(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	checked := 0
	for _, d := range canon.Ops() {
		e, ok := kernels[d.Kind]
		if !ok || (e.f64 == f64Refused && d.Decompose == nil) || d.Example == nil || d.Kind == "Constant" || d.Traits.Nondeterministic {
			continue // refused float64, or no example; draws are checked in kernels_random_test.go
		}
		fine, rounded, ok := float64Examples(t, d, r)
		if !ok {
			continue
		}
		a, err := runAny(fine.g, fine.in)
		if err != nil {
			t.Errorf("%s: claims float64, fails on float64 data: %v", d.Kind, err)
			continue
		}
		b, err := runAny(rounded.g, rounded.in)
		if err != nil {
			t.Errorf("%s: float64 run on float32-rounded inputs fails: %v", d.Kind, err)
			continue
		}
		checked++
		differs, integral, floatOuts := false, true, 0
		for name, ta := range a {
			if ta.DType != canon.Float64 {
				continue
			}
			floatOuts++
			va, _ := ta.Float64s()
			vb, _ := b[name].Float64s()
			if len(va) != len(vb) {
				differs = true // a data-dependent length (NonZero, Unique) saw the difference
				continue
			}
			for i := range va {
				if va[i] != vb[i] && !(math.IsNaN(va[i]) && math.IsNaN(vb[i])) {
					differs = true
				}
				if !math.IsNaN(va[i]) && !math.IsInf(va[i], 0) && va[i] != math.Trunc(va[i]) {
					integral = false
				}
			}
		}
		if floatOuts > 0 && !differs && !integral {
			t.Errorf("%s: claims float64, but its outputs do not change when its inputs change below float32's precision: it computes in float32 (declare it float32Only or give it float64 loops)", d.Kind)
		}
	}
	if checked < 60 {
		t.Errorf("only %d kinds checked in float64", checked)
	}
	t.Logf("%d kinds checked in float64", checked)
}

// float64Run is a graph and its inputs.
type float64Run struct {
	g  *canon.Graph
	in map[string]*canon.Tensor
}

// float64Examples builds d's example in float64 twice: with inputs and
// float constants float32 cannot hold, and with the same values rounded to
// float32. ok is false when the example has non-float inputs or the op
// does not take float64 there.
func float64Examples(t *testing.T, d *canon.OpDef, r *rand.Rand) (fine, rounded float64Run, ok bool) {
	t.Helper()
	build := func() *canon.Graph {
		g, err := d.ExampleGraph()
		if err != nil {
			t.Fatalf("%s: %v", d.Kind, err)
		}
		return g
	}
	g1, g2 := build(), build()
	for _, in := range g1.Inputs {
		if in.DType != canon.Float32 {
			return fine, rounded, false
		}
	}
	fine = float64Run{g: g1, in: map[string]*canon.Tensor{}}
	rounded = float64Run{g: g2, in: map[string]*canon.Tensor{}}
	for _, in := range g1.Inputs {
		shape := mustStatic(t, in)
		v := make([]float64, canon.NumElements(shape))
		for i := range v {
			delta := (1 + r.Float64()) * 1e-10
			if r.Intn(2) == 0 {
				delta = -delta
			}
			v[i] = float64(r.Intn(5)-2) + delta
		}
		fine.in[in.Name] = f64Matrix(in.Name, shape, v...)
		rounded.in[in.Name] = f64Matrix(in.Name, shape, roundedTo32(v)...)
	}
	nudgedAny := len(g1.Inputs) > 0
	for i, w := range g1.Initializers {
		if w.DType != canon.Float32 {
			continue
		}
		nudgedAny = true
		v, _ := w.Float64s()
		nudged := make([]float64, len(v))
		for j, x := range v {
			nudged[j] = x * (1 + (1+r.Float64())*1e-9)
		}
		fw, rw := f64Matrix(w.Name, w.Shape, nudged...), f64Matrix(w.Name, w.Shape, roundedTo32(nudged)...)
		fw.Layout, rw.Layout = w.Layout, w.Layout
		g1.Initializers[i], g2.Initializers[i] = fw, rw
	}
	if !nudgedAny {
		return fine, rounded, false // no float input: nothing to tell float32 from float64 by
	}
	if !retypeGraph(g1, canon.Float64) || !retypeGraph(g2, canon.Float64) {
		return fine, rounded, false
	}
	return fine, rounded, true
}

// retypeGraph turns the float32 inputs of g into dt (the initializers are
// already retyped) and validates it again.
func retypeGraph(g *canon.Graph, dt canon.DType) bool {
	for i, in := range g.Inputs {
		if in.DType == canon.Float32 {
			g.Inputs[i].DType = dt
		}
	}
	for i := range g.Outputs {
		g.Outputs[i].DType = canon.Undefined
	}
	g.Values = nil
	return g.Validate() == nil
}

// roundedTo32 is v with every value rounded to float32.
func roundedTo32(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(float32(x))
	}
	return out
}
