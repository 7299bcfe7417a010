package robust

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// deepChainModel is a chain of n nodes cycling through Relu, Neg and Add of a
// one-element constant, named as torch.onnx names them ("Relu_7" writing
// value "7"): the shape of a deep model with no weights to speak of, so
// that memory per node is all that is measured.
func deepChainModel(t *testing.T, n int) []byte {
	g := &onnxpb.GraphProto{
		Name:        proto.String("chain"),
		Input:       []*onnxpb.ValueInfoProto{tensorInfo("x", 1, 4)},
		Output:      []*onnxpb.ValueInfoProto{tensorInfo("y", 1, 4)},
		Initializer: []*onnxpb.TensorProto{{Name: proto.String("c"), DataType: proto.Int32(1), Dims: []int64{1}, FloatData: []float32{0.5}}},
		Node:        make([]*onnxpb.NodeProto, 0, n),
	}
	ops := []string{"Relu", "Neg", "Add"}
	prev := "x"
	for i := 1; i <= n; i++ {
		op := ops[i%len(ops)]
		out := strconv.Itoa(i)
		if i == n {
			out = "y"
		}
		in := []string{prev}
		if op == "Add" {
			in = append(in, "c")
		}
		g.Node = append(g.Node, node(op, op+"_"+strconv.Itoa(i), in, []string{out}))
		prev = out
	}
	return marshalModel(t, g)
}

// chainBytesPerNode bounds the peak memory of converting a deep graph
// ONNX -> ONNX, per node, beyond what converting a 3-node graph takes.
// What must be held is the canonical graph (about 155 bytes a node) and
// one table of value types (canon.ValueTable, about 32 bytes a value);
// convert paces the garbage collector at GOGC=50, so the heap grows to
// about 1.5 times what is live. The file's nodes are decoded one at a
// time and their mapped pages given back, the import counts readers in a
// numbered name index, and the exporter encodes nodes and value_info as
// it writes them. Measured: 0.41 KB a node at 10^6 nodes, 0.40 KB here
// at 2*10^5 (the bound leaves a fifth more for a busy machine). It was
// 1.0 to 1.2 KB with a map of value types (about 230 bytes an entry), the
// decoded nodes and the encoded output held whole.
const chainBytesPerNode = 500

func TestChainMemory(t *testing.T) {
	const n = 200_000
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small.onnx"), filepath.Join(dir, "chain.onnx")
	if err := os.WriteFile(small, deepChainModel(t, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, deepChainModel(t, n), 0o644); err != nil {
		t.Fatal(err)
	}
	_, code, base, _ := runMeasured(t, "convert", "--quiet", small, filepath.Join(dir, "small-out.onnx"))
	if code != 0 {
		t.Fatalf("the 3-node chain did not convert (exit %d)", code)
	}
	stderr, code, rss, took := runMeasured(t, "convert", "--quiet", big, filepath.Join(dir, "out.onnx"))
	st, _ := os.Stat(big)
	perNode := (rss - base) / n
	t.Logf("%d nodes (%d-byte file): exit %d, peak RSS %d MB (3-node: %d MB), %d bytes/node, %v", n, st.Size(), code, rss>>20, base>>20, perNode, took.Round(time.Millisecond))
	if code != 0 {
		t.Fatalf("the chain did not convert: %s", strings.TrimSpace(stderr))
	}
	if perNode > chainBytesPerNode {
		t.Errorf("converting took %d bytes per node beyond a 3-node conversion, want at most %d", perNode, chainBytesPerNode)
	}
	out, err := os.ReadFile(filepath.Join(dir, "out.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(out, &m); err != nil {
		t.Fatalf("the written model does not decode: %v", err)
	}
	if got := len(m.GetGraph().GetNode()); got != n {
		t.Errorf("the written model has %d nodes, want %d", got, n)
	}
}
