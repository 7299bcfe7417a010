package pt2

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
	"github.com/modelbridge/modelbridge/interp"
)

// The archives under testdata/higher_order are schema-built by
// gen_higher_order.py from a real PyTorch 2.6 archive (its layout and
// weights), with cond, while_loop and map_impl nodes written as PyTorch
// 2.6 serializes them; PyTorch 1.13 eager computed the expected outputs.
var higherOrderCases = []struct {
	name  string
	kinds map[string]int // control-flow nodes expected in the main graph
}{
	{"cond_tensor", map[string]int{"If": 1}},
	{"cond_symbolic", map[string]int{"If": 1}},
	{"while_loop", map[string]int{"Loop": 1}},
	{"while_cond", map[string]int{"Loop": 1}},
	{"map", map[string]int{"Scan": 1}},
	{"map_symbolic", map[string]int{"Scan": 1}},
	{"map_cond", map[string]int{"Scan": 1}},
}

func higherOrderPath(name string) string {
	return filepath.Join("testdata", "higher_order", name, "exported.pt2")
}

// higherOrderSets are a case's data sets: inputs and expected outputs.
func higherOrderSets(t *testing.T, name string) []*torchtrace.Module {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join("testdata", "higher_order", name, "set*"))
	if len(dirs) == 0 {
		t.Fatalf("%s has no data sets", name)
	}
	var sets []*torchtrace.Module
	for _, d := range dirs {
		sets = append(sets, torchtrace.Load(t, d))
	}
	return sets
}

// TestHigherOrderOps imports each archive to If, Loop or Scan with
// explicit captures and runs it in the interpreter on every data set.
func TestHigherOrderOps(t *testing.T) {
	for _, tc := range higherOrderCases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Read(higherOrderPath(tc.name), formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if err := g.Validate(); err != nil {
				t.Fatalf("invalid graph: %v", err)
			}
			for kind, want := range tc.kinds {
				if got := countKind(g, kind); got != want {
					t.Errorf("%d %s nodes, want %d", got, kind, want)
				}
			}
			for _, n := range g.Nodes {
				if sg, ok := n.Op.(canon.SubgraphOwner); ok && len(sg.CaptureNames()) == 0 && tc.name != "cond_symbolic" {
					t.Errorf("%s %s captures nothing; its subgraphs read outer values", n.Op.Kind(), n.Name)
				}
			}
			for _, set := range higherOrderSets(t, tc.name) {
				set.CompareGraph(t, g, 1e-5, 1e-6)
			}
		})
	}
}

// TestHigherOrderOpsORT writes each import as ONNX and runs it in ONNX
// Runtime on every data set.
func TestHigherOrderOpsORT(t *testing.T) {
	for _, tc := range higherOrderCases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Read(higherOrderPath(tc.name), formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			for _, set := range higherOrderSets(t, tc.name) {
				set.CompareORT(t, g, formats.WriteOptions{Opset: formats.OpsetAuto}, 1e-5, 1e-6)
			}
		})
	}
}

func countKind(g *canon.Graph, kind string) int {
	n := 0
	for _, node := range g.Nodes {
		if node.Op.Kind() == kind {
			n++
		}
	}
	return n
}

// TestHigherOrderRefusals: what the schema allows and the importer does
// not read is refused naming the node and what is unsupported.
func TestHigherOrderRefusals(t *testing.T) {
	operands := `{"as_tensors": [{"name": "x"}, {"name": "p_fc_weight"}, {"name": "p_fc_bias"}, {"name": "p_fc_nobias_weight"}]}`
	for _, tc := range []struct {
		name, path, want string
	}{
		{"branches of different shapes", higherOrderPath("cond_shapes"),
			"node getitem (torch.ops.higher_order.cond): result 0: the true branch returns a f32 tensor of shape [3 6] and the false branch a f32 tensor of shape [3 8]: dimension 1 differs (6 and 8); results of different shapes are not supported"},
		{"operands that are neither tensors nor sizes", editedArchive(t, "cond_tensor", [2]string{operands, `{"as_floats": [1.0, 2.0, 3.0, 4.0]}`}),
			"node getitem (torch.ops.higher_order.cond): operands is a list of floats; only tensors and sizes are supported as operands"},
		{"a size passed for a tensor", editedArchive(t, "cond_tensor", [2]string{operands, `{"as_sym_ints": [{"as_int": 3}, {"as_int": 4}, {"as_int": 5}, {"as_int": 6}]}`}),
			"node getitem (torch.ops.higher_order.cond): true branch: subgraph true_graph_0: input 0: arg0_1 is a tensor, the operator passes a size"},
		{"a size carried by a while_loop", editedArchive(t, "while_loop", [2]string{`{"as_tensors": [{"name": "zeros"}, {"name": "x"}]}`, `{"as_sym_ints": [{"as_int": 0}, {"as_int": 1}]}`}),
			"node getitem (torch.ops.higher_order.while_loop): carried_inputs: item 0 is a size, not a tensor; only tensors are supported there"},
		{"a branch given fewer operands than it takes", editedArchive(t, "cond_tensor", [2]string{operands, `{"as_tensors": [{"name": "x"}, {"name": "p_fc_weight"}, {"name": "p_fc_bias"}]}`}),
			"true branch: subgraph true_graph_0: takes 4 inputs, the operator passes 3"},
		{"a body that changes a carried tensor's shape", editedArchive(t, "while_loop", [2]string{
			`"outputs": [{"as_tensor": {"name": "add"}}, {"as_tensor": {"name": "add_1"}}]`,
			`"outputs": [{"as_tensor": {"name": "add"}}, {"as_tensor": {"name": "arg2_1"}}]`}),
			"node getitem (torch.ops.higher_order.while_loop): carried tensor 1 enters the body as a f32 tensor of shape [3 8] and leaves it as a f32 tensor of shape [8]: the ranks differ"},
		{"mapped tensors of different lengths", editedArchive(t, "map", [2]string{`"z": {"dtype": 7, "sizes": [{"as_int": 4}`, `"z": {"dtype": 7, "sizes": [{"as_int": 5}`}),
			"node getitem (torch.ops.higher_order.map_impl): mapped tensors have leading sizes 4 and 5; they must agree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(tc.path, formats.ReadOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestSubgraphDepthLimit: subgraphs nested past maxSubgraphDepth are
// refused before they are read.
func TestSubgraphDepthLimit(t *testing.T) {
	im := &importer{path: "deep.pt2", depth: maxSubgraphDepth}
	_, err := im.runGraph(&graphArgument{Name: "true_graph_0", Graph: &graph{}}, nil)
	if err == nil || !strings.Contains(err.Error(), "nests deeper than 16 levels") {
		t.Errorf("got %v", err)
	}
}

// editedArchive is a case's archive with its program edited, written to a
// temporary file.
func editedArchive(t *testing.T, name string, edits ...[2]string) string {
	t.Helper()
	zr, err := zip.OpenReader(higherOrderPath(name))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var entries [][2]any
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == programEntry {
			s := string(data)
			for _, e := range edits {
				s = replace(t, e[0], e[1])(s)
			}
			data = []byte(s)
		}
		entries = append(entries, [2]any{f.Name, data})
	}
	path := filepath.Join(t.TempDir(), name+".pt2")
	if err := os.WriteFile(path, pt2Archive(t, entries...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHigherOrderSingleResultList reads a cond whose single result is
// written as a one-tensor list, as PyTorch versions before 2.6 write it.
func TestHigherOrderSingleResultList(t *testing.T) {
	path := editedArchive(t, "cond_symbolic", [2]string{
		`"outputs": [{"as_tensor": {"name": "getitem"}}], "metadata": {"nn_module_stack"`,
		`"outputs": [{"as_tensors": [{"name": "getitem"}]}], "metadata": {"nn_module_stack"`})
	g, err := Read(path, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, set := range higherOrderSets(t, "cond_symbolic") {
		set.CompareGraph(t, g, 1e-5, 1e-6)
	}
}

// TestHigherOrderConstantPredicate: a cond whose predicate is a Python
// bool keeps that branch alone, with a note, and no If.
func TestHigherOrderConstantPredicate(t *testing.T) {
	path := editedArchive(t, "cond_tensor", [2]string{
		`"target": "torch.ops.higher_order.cond", "inputs": [{"name": "", "arg": {"as_tensor": {"name": "gt"}}}`,
		`"target": "torch.ops.higher_order.cond", "inputs": [{"name": "", "arg": {"as_bool": true}}`})
	g, err := Read(path, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if countKind(g, "If") != 0 {
		t.Errorf("an If remains for a predicate known at import")
	}
	if !strings.Contains(strings.Join(g.Meta.Notes, "\n"), "the predicate is true at import; only true_graph_0 is imported") {
		t.Errorf("no note on the branch kept: %q", g.Meta.Notes)
	}
	higherOrderSets(t, "cond_tensor")[0].CompareGraph(t, g, 1e-5, 1e-6) // set0 takes the true branch
}

// TestHigherOrderEndlessLoop: a while_loop whose condition never turns
// false is stopped by the interpreter's iteration limit with a clear error.
func TestHigherOrderEndlessLoop(t *testing.T) {
	path := editedArchive(t, "while_loop", [2]string{`{"as_int": 10}`, `{"as_int": 4611686018427387904}`})
	g, err := Read(path, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	defer func(old int64) { interp.MaxLoopIterations = old }(interp.MaxLoopIterations)
	interp.MaxLoopIterations = 1000
	zero := func(name string, shape ...int64) *canon.Tensor {
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		return canon.NewFloat32Tensor(name, shape, make([]float32, n))
	}
	_, err = interp.Run(g, map[string]*canon.Tensor{"x": zero("x", 3, 8), "y": zero("y", 8)})
	if err == nil || !strings.Contains(err.Error(), "stopped at the interpreter's iteration limit") {
		t.Errorf("got %v, want the iteration limit's error", err)
	}
}
