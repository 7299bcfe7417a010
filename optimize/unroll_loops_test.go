package optimize

import (
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

func kindsOf(g *canon.Graph) map[string]int {
	k := map[string]int{}
	for _, n := range g.Nodes {
		k[n.Op.Kind()]++
	}
	return k
}

// TestUnrollLoopExample unrolls the Loop example (three iterations of
// acc += x, each acc stacked) and verifies the result.
func TestUnrollLoopExample(t *testing.T) {
	g, err := canon.Lookup("Loop").ExampleGraph()
	if err != nil {
		t.Fatal(err)
	}
	opt, _, err := Optimize(g, Options{Verify: true, Samples: 2})
	if err != nil {
		t.Fatal(err)
	}
	k := kindsOf(opt)
	if k["Loop"] != 0 || k["Add"]+k["Binary"] == 0 && len(opt.Nodes) < 3 {
		t.Errorf("the Loop was not unrolled: %v", k)
	}
	if k["Concat"] != 1 || k["Unsqueeze"] != 3 {
		t.Errorf("the scan output should be three Unsqueezes and a Concat: %v", k)
	}
}

// TestUnrollLoopKept checks the loops the pass must leave: a trip count
// beyond the bound, a run-time trip count, and a body whose condition is
// computed (it may stop early).
func TestUnrollLoopKept(t *testing.T) {
	cases := map[string]func(g *canon.Graph){
		"trip count 9": func(g *canon.Graph) { setTrips(g, 9) },
		"trip count 0": func(g *canon.Graph) { setTrips(g, 0) },
		"run-time trip count": func(g *canon.Graph) {
			m := g.Nodes[0].Inputs[0]
			g.Initializers = nil
			g.Inputs = append(g.Inputs, canon.ValueInfo{Name: m, DType: canon.Int64, RankKnown: true})
		},
		"computed condition": func(g *canon.Graph) {
			body := g.Nodes[0].Op.(*canon.Loop).Body
			// continue while the iteration number is below 1: stops after two.
			body.Initializers = append(body.Initializers, canon.NewInt64Tensor("one", []int64{}, []int64{1}))
			body.Nodes[1] = &canon.Node{Name: "keep", Op: &canon.Compare{Fn: canon.CmpLess}, Inputs: []string{"i", "one"}, Outputs: []string{"c_next"}}
		},
	}
	for name, edit := range cases {
		g, err := canon.Lookup("Loop").ExampleGraph()
		if err != nil {
			t.Fatal(err)
		}
		edit(g)
		forgetOutputShapes(g)
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		changed, err := unrollLoops(g)
		if err != nil || changed || kindsOf(g)["Loop"] != 1 {
			t.Errorf("%s: changed %v, err %v, nodes %v; want the Loop kept", name, changed, err, kindsOf(g))
		}
	}
}

// forgetOutputShapes drops the example's declared output shapes, which an
// edit of its trip count or axes changes.
func forgetOutputShapes(g *canon.Graph) {
	for i := range g.Outputs {
		g.Outputs[i].Shape, g.Outputs[i].RankKnown = nil, false
	}
}

func setTrips(g *canon.Graph, n int64) {
	m := g.Nodes[0].Inputs[0]
	for i, t := range g.Initializers {
		if t.Name == m {
			g.Initializers[i] = canon.NewInt64Tensor(m, []int64{}, []int64{n})
		}
	}
}

// TestUnrollScan unrolls the Scan example read forward and in reverse,
// stacking along either axis, and verifies each.
func TestUnrollScan(t *testing.T) {
	for _, dirs := range []struct{ in, out, axis int64 }{{0, 0, 0}, {1, 0, 0}, {0, 1, 1}, {1, 1, -1}} {
		g, err := canon.Lookup("Scan").ExampleGraph()
		if err != nil {
			t.Fatal(err)
		}
		op := *g.Nodes[0].Op.(*canon.Scan)
		op.InputDirections = []int64{dirs.in}
		op.OutputDirections = []int64{dirs.out}
		op.OutputAxes = []int64{dirs.axis}
		g.Nodes[0].Op = &op
		forgetOutputShapes(g)
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		opt, _, err := Optimize(g, Options{Verify: true, Samples: 2})
		if err != nil {
			t.Fatalf("%+v: %v", dirs, err)
		}
		if k := kindsOf(opt); k["Scan"] != 0 || k["Gather"] != 4 {
			t.Errorf("%+v: the Scan was not unrolled into four slices: %v", dirs, k)
		}
	}
}

// TestUnrollNodeSuiteLoops optimizes the ONNX node suite's Loop and Scan
// cases and runs the results on the suite's own data: the loops with a
// small constant trip count are gone and every output still matches. The
// Loop cases take their trip count and condition as inputs; they are fixed
// to the data set's values first, as a model with constant ones has them.
func TestUnrollNodeSuiteLoops(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	unrolled := map[string]bool{ // case -> whether its loops go
		"test_loop11": true, "test_loop13_seq": true, "test_loop16_seq_none": true,
		"test_scan9_sum": true, "test_scan_sum": true, "test_scan9_multi_state": true, "test_scan9_scalar": true}
	inORT := 0
	for name, want := range unrolled {
		model := filepath.Join(suite, name, "model.onnx")
		g, err := onnximport.Read(model, formats.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		orig := map[string]int{}
		for i, in := range g.Inputs {
			orig[in.Name] = i
		}
		fixInputs(t, g, filepath.Join(suite, name, "test_data_set_0"), "trip_count", "cond")
		opt, _, err := Optimize(g, Options{Verify: true, Samples: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		k := kindsOf(opt)
		if got := k["Loop"]+k["Scan"] == 0; got != want {
			t.Errorf("%s: unrolled %v, want %v (nodes %v)", name, got, want, k)
		}
		runSuiteCase(t, name, filepath.Dir(model), orig, opt)
		if k["Loop"]+k["Scan"] == 0 && tensorIO(opt) && runSuiteCaseInORT(t, name, filepath.Dir(model), orig, opt) {
			inORT++
		}
		g.Close()
	}
	t.Logf("%d unrolled cases also run in ONNX Runtime", inORT)
}

func tensorIO(g *canon.Graph) bool {
	for _, v := range append(append([]canon.ValueInfo{}, g.Inputs...), g.Outputs...) {
		if !v.IsTensor() {
			return false
		}
	}
	return true
}

// fixInputs turns the named graph inputs into initializers holding the
// data set's values for them.
func fixInputs(t *testing.T, g *canon.Graph, set string, names ...string) {
	t.Helper()
	var kept []canon.ValueInfo
	for i, in := range g.Inputs {
		if !slices.Contains(names, in.Name) {
			kept = append(kept, in)
			continue
		}
		v, err := onnxtensor.ReadValueFile(filepath.Join(set, "input_"+strconv.Itoa(i)+".pb"), in)
		if err != nil {
			t.Fatal(err)
		}
		c := *v.(*canon.Tensor)
		c.Name = in.Name
		g.Initializers = append(g.Initializers, &c)
	}
	g.Inputs = kept
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
}

// suiteSet reads test_data_set_0 of a case for g: its inputs (by the
// index each had before fixInputs) and its expected outputs.
func suiteSet(t *testing.T, name, dir string, orig map[string]int, g *canon.Graph) (map[string]canon.Value, []canon.Value) {
	t.Helper()
	set := filepath.Join(dir, "test_data_set_0")
	inputs := map[string]canon.Value{}
	for _, in := range g.Inputs {
		v, err := onnxtensor.ReadValueFile(filepath.Join(set, "input_"+strconv.Itoa(orig[in.Name])+".pb"), in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		inputs[in.Name] = v
	}
	wants := make([]canon.Value, len(g.Outputs))
	for i, o := range g.Outputs {
		want, err := onnxtensor.ReadValueFile(filepath.Join(set, "output_"+strconv.Itoa(i)+".pb"), o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wants[i] = want
	}
	return inputs, wants
}

// runSuiteCase runs g in the interpreter on the case's data set 0 (the
// one whose values fixInputs fixed).
func runSuiteCase(t *testing.T, name, dir string, orig map[string]int, g *canon.Graph) {
	t.Helper()
	inputs, wants := suiteSet(t, name, dir, orig, g)
	outs, err := interp.RunValues(g, inputs)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i, o := range g.Outputs {
		if err := compare.ONNXBackendValue(outs[o.Name], wants[i]); err != nil {
			t.Errorf("%s: output %q: %v", name, o.Name, err)
		}
	}
}

// runSuiteCaseInORT writes the unrolled graph as ONNX and runs it in ONNX
// Runtime on the suite's data, when ONNX Runtime is installed (false when
// it is not).
func runSuiteCaseInORT(t *testing.T, name, dir string, orig map[string]int, g *canon.Graph) bool {
	t.Helper()
	rt, err := ort.Find("")
	if err != nil {
		t.Logf("%s: not run in ONNX Runtime: %v", name, err)
		return false
	}
	p := filepath.Join(t.TempDir(), name+".onnx")
	if err := onnxexport.Write(g, p, formats.WriteOptions{}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	inputs, wants := suiteSet(t, name, dir, orig, g)
	var ins []*canon.Tensor
	for _, in := range g.Inputs {
		ins = append(ins, inputs[in.Name].(*canon.Tensor))
	}
	outs, err := rt.Run(p, ins, ort.Options{})
	if err != nil {
		t.Fatalf("%s in ONNX Runtime: %v", name, err)
	}
	if len(outs) != len(g.Outputs) {
		t.Fatalf("%s: ONNX Runtime gave %d outputs, want %d", name, len(outs), len(g.Outputs))
	}
	for i, o := range g.Outputs {
		if err := compare.ONNXBackendValue(outs[i], wants[i]); err != nil {
			t.Errorf("%s in ONNX Runtime: output %q: %v", name, o.Name, err)
		}
	}
	return true
}
