package torchscript

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// readTorch2Op reads ../shared/fixtures/torch2-ops/<name>/traced.pt with
// the given shapes (and types) by input name.
func readTorch2Op(t *testing.T, name string, shapes map[string][]int64, dtypes map[string]canon.DType) (*canon.Graph, error) {
	t.Helper()
	p := filepath.Join(testfix.Fixtures(t), "torch2-ops", name, "traced.pt")
	g, _, err := formats.Read(p, "", formats.ReadOptions{InputShapes: shapes, InputDTypes: dtypes})
	if err == nil {
		t.Cleanup(func() { g.Close() })
	}
	return g, err
}

func inputDTypes(g *canon.Graph) map[string]canon.DType {
	out := map[string]canon.DType{}
	for _, in := range g.Inputs {
		out[in.Name] = in.DType
	}
	return out
}

// TestInputDTypesInferred: an input used where PyTorch requires integers or
// booleans gets that type, and the graph's notes say so.
func TestInputDTypesInferred(t *testing.T) {
	for _, c := range []struct {
		name   string
		shapes map[string][]int64
		want   map[string]canon.DType
	}{
		{"op_gather", map[string][]int64{"x": {3, 4}, "y": {2, 4}}, map[string]canon.DType{"x": canon.Float32, "y": canon.Int64}},
		{"op_scatter", map[string][]int64{"x": {3, 5}, "y": {3, 3}, "z": {3, 3}}, map[string]canon.DType{"x": canon.Float32, "y": canon.Int64, "z": canon.Float32}},
		{"op_masked_fill", map[string][]int64{"x": {3, 4, 5}, "y": {3, 4, 5}, "z": {4, 1}}, map[string]canon.DType{"x": canon.Float32, "y": canon.Bool, "z": canon.Bool}},
		{"op_where", map[string][]int64{"x": {3, 4, 5}, "y": {3, 4, 5}, "z": {3, 4, 5}}, map[string]canon.DType{"z": canon.Bool}},
		// x[y] with y of 3 elements over an axis of 5 cannot be a mask.
		{"op_index_tensor", map[string][]int64{"x": {5, 6, 4}, "y": {3}, "z": {3}}, map[string]canon.DType{"y": canon.Int64, "z": canon.Int64}},
		{"op_one_hot", map[string][]int64{"x": {2, 5}}, map[string]canon.DType{"x": canon.Int64}},
	} {
		g, err := readTorch2Op(t, c.name, c.shapes, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got := inputDTypes(g)
		for n, d := range c.want {
			if got[n] != d {
				t.Errorf("%s: input %s is %s, want %s", c.name, n, got[n], d)
			}
		}
		if !strings.Contains(strings.Join(g.Meta.Notes, "\n"), "input types inferred from their use") {
			t.Errorf("%s: no note on the inferred types: %q", c.name, g.Meta.Notes)
		}
	}
}

// TestInputDTypesUndecided: an input that PyTorch takes as bool or integer
// alike is refused by name with the flag that decides it; given, it reads.
func TestInputDTypesUndecided(t *testing.T) {
	shapes := map[string][]int64{"x": {3, 4}, "y": {3, 4}}
	_, err := readTorch2Op(t, "op_logical", shapes, nil)
	for _, want := range []string{"input x is the operand of torch.__and__", "input y", "--input-shape x=i64:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("op_logical without types: want an error with %q, got %v", want, err)
		}
	}
	g, err := readTorch2Op(t, "op_logical", shapes, map[string]canon.DType{"x": canon.Bool, "#1": canon.Bool})
	if err != nil {
		t.Fatalf("op_logical with bool inputs: %v", err)
	}
	if got := inputDTypes(g); got["x"] != canon.Bool || got["y"] != canon.Bool {
		t.Errorf("op_logical: inputs %v, want bool", got)
	}
	// y of shape (3,) indexes x of shape (3, 4, 5): a mask or positions.
	_, err = readTorch2Op(t, "op_index_bool", map[string][]int64{"x": {3, 4, 5}, "y": {3}, "z": {4}}, nil)
	if err == nil || !strings.Contains(err.Error(), "input y is index 0 of torch.index") {
		t.Errorf("op_index_bool: want y refused as undecided, got %v", err)
	}
}

// TestInputDTypesGivenWin: a given type is used as it is, also where the
// uses would infer another (the handler then says what it needs).
func TestInputDTypesGivenWin(t *testing.T) {
	g, err := readTorch2Op(t, "op_int_division", map[string][]int64{"x": {3, 5}, "y": {3, 5}}, map[string]canon.DType{"x": canon.Int64, "y": canon.Int64})
	if err != nil {
		t.Fatal(err)
	}
	if got := inputDTypes(g); got["x"] != canon.Int64 || got["y"] != canon.Int64 {
		t.Errorf("inputs %v, want i64", got)
	}
	_, err = readTorch2Op(t, "op_gather", map[string][]int64{"x": {3, 4}, "y": {2, 4}}, map[string]canon.DType{"y": canon.Float32})
	if err == nil || !strings.Contains(err.Error(), "Indices") {
		t.Errorf("gather with f32 indices given: want the Gather refusal, got %v", err)
	}
}

// TestNestedAndNoneResults: (out, (h, c)) flattens in order; a None result
// (adaptive max pool indices, not computed) makes no output, with a note,
// and the others keep their positions' names.
func TestNestedAndNoneResults(t *testing.T) {
	g, err := readTorch2Op(t, "nn_lstm", map[string][]int64{"#0": {5, 2, 6}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if names := outputNames(g); strings.Join(names, ",") != "output_0,output_1,output_2" {
		t.Errorf("nn_lstm outputs %v", names)
	}
	g, err = readTorch2Op(t, "nn_adaptivemaxpool2d_indices", map[string][]int64{"#0": {1, 4, 9, 8}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The pool's indices are computed now, so both results are outputs.
	if names := outputNames(g); strings.Join(names, ",") != "output_0,output_1" {
		t.Errorf("adaptive max pool outputs %v", names)
	}
}

func outputNames(g *canon.Graph) []string {
	var out []string
	for _, o := range g.Outputs {
		out = append(out, o.Name)
	}
	return out
}

// TestCrossEntropyTarget: a target of one axis less than the input is
// class indices (int64); one of the input's shape is probabilities.
func TestCrossEntropyTarget(t *testing.T) {
	for _, c := range []struct {
		target []int64
		want   int
	}{{[]int64{4}, 1}, {[]int64{4, 3}, 0}} {
		b := newBuilder(nil)
		in := &evaluator{b: b}
		x := b.addInput("x", []int64{4, 3}, canon.Float32)
		y := b.addInput("y", c.target, canon.Float32)
		b.inUses.noteInput(x.name)
		b.inUses.noteInput(y.name)
		in.noteCall("torch.cross_entropy_loss", []value{x, y}, nil, "code/__torch__.py", 9)
		if len(b.inUses.uses) != c.want || (c.want == 1 && (b.inUses.uses[0].input != "y" || b.inUses.uses[0].want != wantInt)) {
			t.Errorf("target %v: uses %+v", c.target, b.inUses.uses)
		}
	}
}
