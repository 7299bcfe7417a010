package mxnetexport_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/formats"
	mxnetimport "github.com/modelbridge/modelbridge/importers/mxnet"
	"github.com/modelbridge/modelbridge/interp"
)

// TestCoverage fails when a registered op kind is neither written nor
// declared unsupported, or when the table names a kind canon does not know.
func TestCoverage(t *testing.T) {
	checkCoverage(t, "mxnet exporter", mxnetexport.Ops())
	checkCoverage(t, "mxnet importer", mxnetimport.Ops())
	registered := 0
	for _, e := range formats.Exporters() {
		if e.Name == "mxnet" && e.Ops != nil {
			registered++
		}
	}
	for _, i := range formats.Importers() {
		if i.Name == "mxnet" && i.Ops != nil {
			registered++
		}
	}
	if registered != 2 {
		t.Error("the mxnet importer and exporter must both register their Ops")
	}
}

func checkCoverage(t *testing.T, backend string, cov canon.Coverage) {
	t.Helper()
	for _, g := range canon.Gaps(map[string]canon.Coverage{backend: cov}) {
		t.Error(g)
	}
	for kind, s := range cov {
		if canon.Lookup(kind) == nil {
			t.Errorf("%s: its table names op kind %s, which canon does not register (stale entry)", backend, kind)
		}
		if s.Handled && s.Detail == "" {
			t.Errorf("%s: %s is handled without saying how", backend, kind)
		}
	}
}

// exampleInputs fills every graph input with deterministic values in
// [-2, 2].
func exampleInputs(t *testing.T, g *canon.Graph) map[string]*canon.Tensor {
	t.Helper()
	in := map[string]*canon.Tensor{}
	for k, v := range g.Inputs {
		s, ok := v.StaticShape()
		if !ok || v.DType != canon.Float32 {
			t.Fatalf("input %s: want a static float32 input, have %s %v", v.Name, v.DType, v.Shape)
		}
		vals := make([]float32, canon.NumElements(s))
		for i := range vals {
			vals[i] = float32(2 * math.Sin(float64(i)*0.37+float64(k)))
		}
		in[v.Name] = canon.NewFloat32Tensor(v.Name, s, vals)
	}
	return in
}

// roundTrip writes g as MXNet, reads it back and returns the re-imported
// graph.
func roundTrip(t *testing.T, g *canon.Graph) *canon.Graph {
	t.Helper()
	out := filepath.Join(t.TempDir(), "m-symbol.json")
	if err := mxnetexport.Write(g, out, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	shapes := map[string][]int64{}
	for _, v := range g.Inputs {
		if s, ok := v.StaticShape(); ok {
			shapes[v.Name] = s
		}
	}
	g2, err := mxnetimport.Read(out, formats.ReadOptions{InputShapes: shapes})
	if err != nil {
		t.Fatalf("re-import: %v", err)
	}
	if err := g2.Validate(); err != nil {
		t.Fatalf("re-imported graph is invalid: %v", err)
	}
	return g2
}

// sameOutputs runs both graphs on the same inputs and compares their
// outputs by position.
func sameOutputs(t *testing.T, want, got map[string]*canon.Tensor, wantG, gotG *canon.Graph, tol float64) {
	t.Helper()
	if len(wantG.Outputs) != len(gotG.Outputs) {
		t.Fatalf("%d outputs, want %d", len(gotG.Outputs), len(wantG.Outputs))
	}
	for i := range wantG.Outputs {
		w, g := want[wantG.Outputs[i].Name], got[gotG.Outputs[i].Name]
		if w == nil || g == nil {
			t.Fatalf("output %d missing", i)
		}
		if w.DType != g.DType || !equalInts(w.Shape, g.Shape) {
			t.Fatalf("output %d is %s%v, want %s%v", i, g.DType, g.Shape, w.DType, w.Shape)
		}
		wv, err1 := w.Float64s()
		gv, err2 := g.Float64s()
		if err1 != nil || err2 != nil {
			t.Fatalf("output %d: %v %v", i, err1, err2)
		}
		if canon.DrawnOutputs(wantG)[i] {
			continue // random draws: same dtype and shape is what can match
		}
		for k := range wv {
			if math.Abs(wv[k]-gv[k]) > tol*(1+math.Abs(wv[k])) {
				t.Fatalf("output %d element %d = %v, want %v", i, k, gv[k], wv[k])
			}
		}
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEveryOpExample walks every op kind's example through the exporter:
// a kind the exporter writes must read back as a graph the interpreter
// says computes the same; a kind it lacks must be refused by name.
func TestEveryOpExample(t *testing.T) {
	cov := mxnetexport.Ops()
	for _, d := range canon.Ops() {
		t.Run(d.Kind, func(t *testing.T) {
			g, err := d.ExampleGraph()
			if err != nil {
				t.Fatal(err)
			}
			if s := cov[d.Kind]; !s.Handled {
				_, _, err := mxnetexport.Encode(g)
				if err == nil || !strings.Contains(err.Error(), d.Kind) {
					t.Fatalf("%s is declared unsupported (%s), want an error naming it, got %v", d.Kind, s.Reason, err)
				}
				return
			}
			g2 := roundTrip(t, g)
			in := exampleInputs(t, g)
			want, err := interp.Run(g, in)
			if err != nil {
				if strings.Contains(err.Error(), "not supported by the interpreter") {
					t.Skipf("the interpreter cannot run the original yet: %v", err)
				}
				t.Fatal(err)
			}
			got, err := interp.Run(g2, in)
			if err != nil {
				t.Fatalf("running the re-imported graph: %v", err)
			}
			sameOutputs(t, want, got, g, g2, 1e-5)
		})
	}
}
