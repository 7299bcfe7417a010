package robust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// Names from a model are escaped wherever they are printed (stdout of
// inspect, stderr errors and notes), and a huge name is shortened rather
// than printed whole.
func TestPrintedNamesEscapedAndShort(t *testing.T) {
	dir := t.TempDir()
	evil := "x\x1b[2J\nINJECTED\xff"
	model := marshalModel(t, &onnxpb.GraphProto{
		Name:   proto.String("g"),
		Node:   []*onnxpb.NodeProto{node("Relu", "relu\x1b]0;title\x07", []string{evil}, []string{"y"})},
		Input:  []*onnxpb.ValueInfoProto{tensorInfo(evil, 1, 2)},
		Output: []*onnxpb.ValueInfoProto{tensorInfo("y", 1, 2)},
	})
	in := filepath.Join(dir, "evil.onnx")
	if err := os.WriteFile(in, model, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBin(t, "inspect", in)
	if code != 0 {
		t.Fatalf("inspect: %s", stderr)
	}
	for _, out := range []string{stdout, stderr} {
		if strings.ContainsAny(out, "\x1b\x07\xff") || strings.Contains(out, "\nINJECTED") {
			t.Errorf("a raw control character or injected line was printed:\n%q", out)
		}
	}
	if !strings.Contains(stdout, `x\x1b[2J\nINJECTED\xff`) {
		t.Errorf("the name is not shown escaped:\n%s", stdout)
	}

	// A 1 MB op type gives a short one-line error.
	huge := strings.Repeat("Op", 1<<19)
	model = marshalModel(t, &onnxpb.GraphProto{
		Name:   proto.String("g"),
		Node:   []*onnxpb.NodeProto{node(huge, strings.Repeat("n", 1<<20), []string{"x"}, []string{"y"})},
		Input:  []*onnxpb.ValueInfoProto{tensorInfo("x", 1, 2)},
		Output: []*onnxpb.ValueInfoProto{tensorInfo("y", 1, 2)},
	})
	in = filepath.Join(dir, "huge.onnx")
	if err := os.WriteFile(in, model, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runBin(t, "convert", "--quiet", in, filepath.Join(dir, "out.onnx"))
	if code == 0 {
		t.Fatal("an unknown 1 MB op converted")
	}
	if len(stderr) > 4096 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "…") {
		t.Errorf("error is %d bytes on %d lines: %.300q", len(stderr), strings.Count(stderr, "\n"), stderr)
	}
}
