package torchscript

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestThirdPartyArchives imports every TorchScript archive from other
// projects: each either imports (and runs) or fails with its specific
// reason.
func TestThirdPartyArchives(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch-files", "torchscript")
	cases := []struct {
		file string
		// inputs and outputs name the graph when it imports.
		inputs, outputs []string
		// wantErr is a substring of the error when it must fail.
		wantErr     string
		controlFlow bool
		op          string
	}{
		{file: "djl_identity.pt", inputs: []string{"tokenized_data"}, outputs: []string{"output"}},
		{file: "foo.pt", inputs: []string{"x", "y"}, outputs: []string{"output"}},
		{file: "foo1.pt", inputs: []string{"x", "y"}, outputs: []string{"output"}},
		{file: "foo2.pt", inputs: []string{"x", "y"}, outputs: []string{"output_0", "output_1"}},
		// A scripted loop over the rows of x (their product): its trip
		// count needs the input's rank (TestThirdPartyScriptedLoop).
		{file: "foo3.pt", wantErr: "code/__torch__.py:10: torch.size: the shape of the input is not known at import"},
		{file: "foo4.pt", wantErr: "forward parameter x has type Tuple[float, float, int]; only Tensor, List[Tensor] and Tuple[Tensor, ...] inputs"},
		{file: "foo5.pt", wantErr: "forward parameter xs has type List[str]; only Tensor, List[Tensor] and Tuple[Tensor, ...] inputs"},
		{file: "foo6.pt", wantErr: "forward: returns a module __torch__.TorchScriptClass; only tensors"},
		{file: "foo7.pt", wantErr: "has no forward method (methods: add_them, make_input_object)"},
		{file: "foo8.pt", wantErr: "has no forward method (methods: generate)"},
		// F.relu's "if inplace:" is known at import: the taken branch is read.
		{file: "foo9.pt", inputs: []string{"s", "t"}, outputs: []string{"output"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			g, err := ReadFile(filepath.Join(dir, c.file), formats.ReadOptions{})
			if c.wantErr != "" {
				if err == nil {
					g.Close()
					t.Fatalf("imported; want an error containing %q", c.wantErr)
				}
				if !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %q does not contain %q", err, c.wantErr)
				}
				var cf *ControlFlowError
				if errors.As(err, &cf) != c.controlFlow {
					t.Fatalf("control-flow error = %v, want %v: %v", !c.controlFlow, c.controlFlow, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if got := names(g.Inputs); strings.Join(got, ",") != strings.Join(c.inputs, ",") {
				t.Errorf("inputs %v, want %v", got, c.inputs)
			}
			if got := names(g.Outputs); strings.Join(got, ",") != strings.Join(c.outputs, ",") {
				t.Errorf("outputs %v, want %v", got, c.outputs)
			}
		})
	}
}

// TestParametersOnlyArchives: torch.jit.save of a module holding only
// parameters (no forward) imports as its weights, with a note saying so.
// The values are what torch.jit.load(...).state_dict() holds.
func TestParametersOnlyArchives(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch-files", "torchscript")
	cases := []struct {
		file string
		want map[string][]float64
	}{
		{"file.pt", map[string][]float64{"0": {1.3, 29.7}}},
		{"file_multi.pt", map[string][]float64{"ts1": {1.3, 29.7}, "ts2": {2.1, 31.2}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			g, err := ReadFile(filepath.Join(dir, c.file), formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if len(g.Nodes) != 0 || len(g.Inputs) != 0 || len(g.Initializers) != len(c.want) {
				t.Fatalf("got %d nodes, %d inputs, %d weights; want 0, 0, %d", len(g.Nodes), len(g.Inputs), len(g.Initializers), len(c.want))
			}
			for _, w := range g.Initializers {
				vals, err := w.Float64s()
				if err != nil {
					t.Fatal(err)
				}
				if want, ok := c.want[w.Name]; !ok || w.DType != canon.Float64 || len(vals) != len(want) || vals[0] != want[0] || vals[1] != want[1] {
					t.Errorf("weight %s (%s) = %v, want f64 %v", w.Name, w.DType, vals, c.want[w.Name])
				}
			}
			if len(g.Meta.Notes) != 1 || !strings.Contains(g.Meta.Notes[0], "no forward method, so only its weights were read") {
				t.Errorf("notes %q do not say that only weights were read", g.Meta.Notes)
			}
		})
	}
}

// TestFooComputes runs foo.pt (x*2 + y + buffer) and foo2.pt ((x*2+y, x-y))
// with known inputs: the buffer is read from data/ and the tuple output
// order is kept.
func TestFooComputes(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch-files", "torchscript")
	shapes := map[string][]int64{"x": {2}, "y": {2}}
	x := canon.NewFloat32Tensor("x", []int64{2}, []float32{1, 2})
	y := canon.NewFloat32Tensor("y", []int64{2}, []float32{10, 20})
	g, err := ReadFile(filepath.Join(dir, "foo2.pt"), formats.ReadOptions{InputShapes: shapes})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	outs, err := interp.Run(g, map[string]*canon.Tensor{"x": x, "y": y})
	if err != nil {
		t.Fatal(err)
	}
	got0, _ := outs["output_0"].Float64s()
	got1, _ := outs["output_1"].Float64s()
	if got0[0] != 12 || got0[1] != 24 || got1[0] != -9 || got1[1] != -18 {
		t.Errorf("foo2 outputs %v %v, want [12 24] [-9 -18]", got0, got1)
	}

	g2, err := ReadFile(filepath.Join(dir, "foo.pt"), formats.ReadOptions{InputShapes: shapes})
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	buf := g2.Initializer("value")
	if buf == nil {
		t.Fatalf("buffer 'value' is not an initializer: %v", g2.Initializers)
	}
	bv, _ := buf.Float64s()
	outs, err = interp.Run(g2, map[string]*canon.Tensor{"x": x, "y": y})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := outs["output"].Float64s()
	if got[0] != 12+bv[0] || got[1] != 24+bv[0] {
		t.Errorf("foo outputs %v, want [12 24] + %v", got, bv)
	}
}

func names(vs []canon.ValueInfo) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}
