package robust

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// withGraphName returns the tiny model with its graph renamed.
func withGraphName(t *testing.T, name string) []byte {
	t.Helper()
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(repoFile(t, "testdata/tiny_convnet.onnx"), &m); err != nil {
		t.Fatal(err)
	}
	m.Graph.Name = proto.String(name)
	b, err := proto.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Names from a model's contents never become path components unchecked:
// an MXNet pair written into a folder stays in that folder whatever the
// graph is called.
func TestGraphNameIsNoPath(t *testing.T) {
	for _, name := range []string{"..", ".", "../escaped", "a/../../b", ".hidden", "x\x00y", "a\nb"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.onnx")
			if err := os.WriteFile(in, withGraphName(t, name), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, stderr, code := runBin(t, "convert", "--quiet", in, out, "--to", "mxnet"); code != 0 {
				t.Fatalf("convert failed: %s", stderr)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 2 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("files written outside the output folder: %v", names)
			}
			written, _ := os.ReadDir(out)
			if len(written) != 2 {
				t.Errorf("want a symbol and a params file in %s, got %d files", out, len(written))
			}
		})
	}
}
