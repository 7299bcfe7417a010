package mxnetexport_test

import (
	"math"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/interp"
)

func geluGraph(a canon.GeluApprox) *canon.Graph {
	g := &canon.Graph{
		Name:   "gelu",
		Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 9), RankKnown: true}},
		Nodes:  []*canon.Node{{Name: "gelu", Op: &canon.Gelu{Approximate: a}, Inputs: []string{"x"}, Outputs: []string{"y"}}},
	}
	g.Outputs = []canon.ValueInfo{{Name: "y", DType: canon.Float32, Shape: canon.DimsOf(2, 9), RankKnown: true}}
	return g
}

// TestGeluRoundTrip writes both Gelu forms, reads them back and checks the
// re-imported graph against the interpreter on the original and against
// the formulas in float64.
func TestGeluRoundTrip(t *testing.T) {
	ref := map[canon.GeluApprox]func(float64) float64{
		canon.GeluExact: func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) },
		canon.GeluTanh: func(x float64) float64 {
			return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
		},
	}
	for _, a := range []canon.GeluApprox{canon.GeluExact, canon.GeluTanh} {
		t.Run(a.String(), func(t *testing.T) {
			g := geluGraph(a)
			g2 := roundTrip(t, g)
			kinds := map[string]int{}
			for _, n := range g2.Nodes {
				kinds[n.Op.Kind()]++
			}
			if a == canon.GeluExact {
				// LeakyReLU act_type=gelu is the erf form and reads back as one Gelu.
				if len(g2.Nodes) != 1 || g2.Nodes[0].Op.(*canon.Gelu).Approximate != canon.GeluExact {
					t.Fatalf("exact Gelu read back as %v", kinds)
				}
			} else if kinds["Gelu"] != 0 || kinds["Tanh"] != 1 || kinds["Mul"] != 6 || kinds["Add"] != 2 {
				// x², x³, 0.044715·x³, √(2/π)·(…), 0.5·x, and the product; x + …, 1 + tanh.
				t.Fatalf("tanh Gelu read back as %v, want its expansion", kinds)
			}
			in := exampleInputs(t, g)
			got, err := interp.Run(g2, in)
			if err != nil {
				t.Fatal(err)
			}
			if want, err := interp.Run(g, in); err == nil {
				sameOutputs(t, want, got, g, g2, 1e-5)
			} else if !strings.Contains(err.Error(), "not supported by the interpreter") {
				t.Fatal(err)
			}
			xs, _ := in["x"].Float64s()
			ys, _ := got[g2.Outputs[0].Name].Float64s()
			for i, x := range xs {
				if w := ref[a](x); math.Abs(ys[i]-w) > 1e-5*(1+math.Abs(w)) {
					t.Errorf("gelu(%v) = %v, want %v", x, ys[i], w)
				}
			}
		})
	}
}

// TestLackedKindIsAGap registers an op kind the exporter has no entry for:
// the coverage must report it, and exporting it must name it.
func TestLackedKindIsAGap(t *testing.T) {
	const kind = "MXNetExportTestProbe"
	canon.Register(&canon.OpDef{
		Kind: kind, Summary: "test-only op",
		New:   func() canon.Op { return &probeOp{} },
		Infer: func(c *canon.InferCtx) ([]canon.ValueInfo, error) { return c.SameAsInput(0) },
	})
	defer canon.Unregister(kind)
	gaps := canon.Gaps(map[string]canon.Coverage{"mxnet exporter": mxnetexport.Ops()})
	if len(gaps) != 1 || gaps[0].Kind != kind {
		t.Fatalf("gaps %v, want exactly %s", gaps, kind)
	}
	g := geluGraph(canon.GeluExact)
	g.Nodes[0].Op = &probeOp{}
	_, _, err := mxnetexport.Encode(g)
	if err == nil || !strings.Contains(err.Error(), kind) || !strings.Contains(err.Error(), "gelu") {
		t.Fatalf("want an error naming node gelu and op %s, got %v", kind, err)
	}
}

type probeOp struct{}

func (*probeOp) Kind() string { return "MXNetExportTestProbe" }
func (*probeOp) Signature() canon.Signature {
	return canon.Signature{Inputs: []canon.InputSpec{{Name: "X"}}, MinOutputs: 1, MaxOutputs: 1}
}
