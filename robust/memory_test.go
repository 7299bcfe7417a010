package robust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// The interpreter's memory budget (--max-memory) covers every allocation:
// random inputs, scratch (im2col columns), outputs. Small models that ask
// for gigabytes get an error naming the node or input.

func marshalModel(t *testing.T, g *onnxpb.GraphProto) []byte {
	t.Helper()
	b, err := proto.Marshal(&onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}},
		Graph:       g,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func node(op, name string, in, out []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{OpType: proto.String(op), Name: proto.String(name), Input: in, Output: out, Attribute: attrs}
}

func intsAttr(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func int64Tensor(name string, v ...int64) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(7), Dims: []int64{int64(len(v))}, Int64Data: v}
}

// bigInputModel is a Relu over a float input of n elements: a few hundred
// bytes that make `run --random` allocate 4n bytes several times.
func bigInputModel(t *testing.T, n int64) []byte {
	return marshalModel(t, &onnxpb.GraphProto{
		Name:   proto.String("big-input"),
		Node:   []*onnxpb.NodeProto{node("Relu", "relu", []string{"x"}, []string{"y"})},
		Input:  []*onnxpb.ValueInfoProto{tensorInfo("x", 1, n)},
		Output: []*onnxpb.ValueInfoProto{tensorInfo("y", 1, n)},
	})
}

// im2colModel convolves two constants made by ConstantOfShape: the
// constants and the output are small enough to fold, but the im2col
// columns are 4·32·32 rows × 129·129 columns (270 MB). An Identity after
// the Conv gives the optimizer something to remove, so --optimize has a
// changed graph to verify (an unchanged one is not run).
func im2colModel(t *testing.T) []byte {
	one := &onnxpb.TensorProto{DataType: proto.Int32(1), Dims: []int64{1}, RawData: f32Raw(1)}
	value := &onnxpb.AttributeProto{Name: proto.String("value"), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: one}
	return marshalModel(t, &onnxpb.GraphProto{
		Name: proto.String("im2col"),
		Node: []*onnxpb.NodeProto{
			node("ConstantOfShape", "x", []string{"xs"}, []string{"x"}, value),
			node("ConstantOfShape", "w", []string{"ws"}, []string{"w"}, value),
			node("Conv", "conv", []string{"x", "w"}, []string{"c"}, intsAttr("pads", 16, 16, 16, 16)),
			node("Identity", "id", []string{"c"}, []string{"y"}),
		},
		Initializer: []*onnxpb.TensorProto{int64Tensor("xs", 1, 4, 128, 128), int64Tensor("ws", 1, 4, 32, 32)},
		Output:      []*onnxpb.ValueInfoProto{tensorInfo("y", 1, 1, 129, 129)},
	})
}

func TestMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big-input.onnx")
	if err := os.WriteFile(big, bigInputModel(t, 1<<26), 0o644); err != nil {
		t.Fatal(err)
	}
	conv := filepath.Join(dir, "im2col.onnx")
	if err := os.WriteFile(conv, im2colModel(t), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string // in the error
	}{
		{"run-random", []string{"run", big, "--random", "--max-memory", "64M", "--out", filepath.Join(dir, "out")}, `random input "x"`},
		{"run-im2col", []string{"run", conv, "--max-memory", "64M", "--out", filepath.Join(dir, "out")}, `node "conv"`},
		{"optimize-im2col", []string{"convert", "--quiet", conv, filepath.Join(dir, "opt.onnx"), "--optimize", "--max-memory", "64M"}, `node "conv"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			stderr, code, rss, took := runMeasured(t, c.args...)
			st, _ := os.Stat(c.args[1])
			if c.args[0] == "convert" {
				st, _ = os.Stat(c.args[2])
			}
			t.Logf("%d-byte model: exit %d, peak RSS %d MB, %v: %s", st.Size(), code, rss>>20, took.Round(time.Millisecond), strings.TrimSpace(stderr))
			if code == 0 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "memory limit") {
				t.Errorf("want a memory-limit error naming %s", c.want)
			}
			if rss > 100<<20 {
				t.Errorf("peak RSS %d MB with a 64 MB budget", rss>>20)
			}
		})
	}
	// Constant folding alone stays within its own bound and leaves the
	// node to be computed.
	stderr, code, rss, took := runMeasured(t, "convert", "--quiet", conv, filepath.Join(dir, "opt.onnx"), "--optimize", "--no-verify")
	t.Logf("convert --optimize --no-verify: exit %d, peak RSS %d MB, %v: %s", code, rss>>20, took.Round(time.Millisecond), strings.TrimSpace(stderr))
	if code != 0 {
		t.Errorf("folding within its bound failed: %s", stderr)
	}
	if rss > 300<<20 {
		t.Errorf("folding took %d MB", rss>>20)
	}
}
