package onnximport

import (
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// readChecked reads the model and runs the validation and inference a
// caller runs after it, failing t on a recovered panic. The models here once
// made the reader loop over a huge dimension of an empty tensor; a
// regression shows as a test that does not finish.
func readChecked(t *testing.T, m *onnxpb.ModelProto) error {
	t.Helper()
	g, err := Read(write(t, m), formats.ReadOptions{})
	if err != nil {
		if strings.Contains(err.Error(), "internal error") {
			t.Fatalf("reader failed internally: %v", err)
		}
		return err
	}
	defer g.Close()
	_ = g.Validate()
	_ = g.Infer()
	return nil
}

func i64Shaped(name string, dims ...int64) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(tInt64), Dims: dims}
}

// TestEmptyTensorsWithHugeDims covers initializers with no elements but a
// huge leading dimension: loops over the leading axes must not run.
func TestEmptyTensorsWithHugeDims(t *testing.T) {
	const huge = int64(1) << 60
	t.Run("gemm B", func(t *testing.T) {
		s := graphSpec{
			nodes:   []*onnxpb.NodeProto{node("Gemm", "fc", []string{"x", "w"}, []string{"y"})},
			inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, huge)},
			outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat)},
			inits:   []*onnxpb.TensorProto{{Name: proto.String("w"), DataType: proto.Int32(tFloat), Dims: []int64{huge, 0}}},
		}
		readChecked(t, s.model())
	})
	t.Run("concat", func(t *testing.T) {
		s := graphSpec{
			nodes:   []*onnxpb.NodeProto{node("Concat", "cat", []string{"a", "b"}, []string{"y"}, aInt("axis", 1))},
			outputs: []*onnxpb.ValueInfoProto{vinfo("y", tInt64)},
			inits:   []*onnxpb.TensorProto{i64Shaped("a", huge, 0), i64Shaped("b", huge, 0)},
		}
		readChecked(t, s.model())
	})
	t.Run("gather", func(t *testing.T) {
		s := graphSpec{
			nodes:   []*onnxpb.NodeProto{node("Gather", "g", []string{"a", "i"}, []string{"y"}, aInt("axis", 1))},
			outputs: []*onnxpb.ValueInfoProto{vinfo("y", tInt64)},
			inits:   []*onnxpb.TensorProto{i64Shaped("a", huge, 3, 0), i64Tensor("i", 0)},
		}
		readChecked(t, s.model())
	})
}

// TestGemmAliasesShareTransposedWeight: every Identity alias of a weight
// read as Gemm B (transB=0) used to get its own transposed copy, so a small
// file could make the reader allocate the weight's size per alias.
func TestGemmAliasesShareTransposedWeight(t *testing.T) {
	const k, n, aliases = 256, 256, 50
	s := graphSpec{
		inputs: []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, k)},
		inits:  []*onnxpb.TensorProto{f32Tensor("w", []int64{k, n}, make([]float32, k*n)...)},
	}
	for i := 0; i < aliases; i++ {
		a, y := "a"+strconv.Itoa(i), "y"+strconv.Itoa(i)
		s.nodes = append(s.nodes, node("Identity", "", []string{"w"}, []string{a}), node("Gemm", "", []string{"x", a}, []string{y}))
		s.outputs = append(s.outputs, vinfo(y, tFloat, 1, n))
	}
	g, err := Read(write(t, s.model()), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	distinct := map[*byte]bool{}
	for _, init := range g.Initializers {
		if len(init.Data) > 0 {
			distinct[&init.Data[0]] = true
		}
	}
	if len(distinct) > 2 {
		t.Errorf("%d aliases of one weight hold %d distinct copies of its data; want at most 2 (the weight and its transpose)", aliases, len(distinct))
	}
}

// longFoldedChain is a Constant passed through a chain of Identity nodes
// into Reshape's shape input: the chain is folded and pruned. Pruning once
// took one pass over the graph per node (seconds for a 100 KB file);
// BenchmarkLongFoldedChain measures it.
func longFoldedChain(chain int) *onnxpb.ModelProto {
	s := graphSpec{
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 6)},
		nodes:   []*onnxpb.NodeProto{node("Constant", "", nil, []string{"c0"}, aInts("value_ints", 6))},
	}
	for i := 1; i <= chain; i++ {
		s.nodes = append(s.nodes, node("Identity", "", []string{"c" + strconv.Itoa(i-1)}, []string{"c" + strconv.Itoa(i)}))
	}
	s.nodes = append(s.nodes, node("Reshape", "rs", []string{"x", "c" + strconv.Itoa(chain)}, []string{"y"}))
	return s.model()
}

func TestLongFoldedChainIsPruned(t *testing.T) {
	g, err := Read(write(t, longFoldedChain(500)), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if len(g.Nodes) != 1 || g.Nodes[0].Name != "rs" {
		t.Fatalf("got %d nodes, want only the Reshape", len(g.Nodes))
	}
}

func BenchmarkLongFoldedChain(b *testing.B) {
	path := write(b, longFoldedChain(8000))
	for i := 0; i < b.N; i++ {
		g, err := Read(path, formats.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		g.Close()
	}
}
