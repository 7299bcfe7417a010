package e2e

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// onnxWeights is what an ONNX file stores as data: its initializers and
// Constant node values (of the main graph; subgraphs are left out of both
// sides).
type onnxWeights struct {
	tensors       []*canon.Tensor
	values, bytes int64
}

func weightsOf(t *testing.T, path string) onnxWeights {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m onnxpb.ModelProto
	if err := (proto.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var w onnxWeights
	add := func(tp *onnxpb.TensorProto) {
		x, err := onnxtensor.ReadProto(tp, filepath.Dir(path))
		if err != nil {
			return
		}
		w.tensors = append(w.tensors, x)
		w.values += x.NumElements()
		w.bytes += int64(len(x.Data))
	}
	for _, tp := range m.GetGraph().GetInitializer() {
		add(tp)
	}
	for _, n := range m.GetGraph().GetNode() {
		if n.GetOpType() != "Constant" || n.GetDomain() != "" {
			continue
		}
		for _, a := range n.GetAttribute() {
			if a.GetName() == "value" && a.GetT() != nil {
				add(a.GetT())
			}
		}
	}
	return w
}

// contentKey identifies a tensor's values, whatever its name.
func contentKey(t *canon.Tensor) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s%v", t.DType, t.Shape)
	h.Write(t.Data)
	return string(h.Sum(nil))
}

// transposedKey is the content key of a 2-D tensor's transpose: an
// exporter that stores a weight transposed for one reader and as it is for
// another has stored it twice.
func transposedKey(t *canon.Tensor) (string, bool) {
	if len(t.Shape) != 2 || len(t.Data) == 0 {
		return "", false
	}
	r, c, sz := t.Shape[0], t.Shape[1], int64(t.DType.Size())
	out := make([]byte, len(t.Data))
	for i := int64(0); i < r; i++ {
		for j := int64(0); j < c; j++ {
			copy(out[(j*r+i)*sz:(j*r+i+1)*sz], t.Data[(i*c+j)*sz:(i*c+j+1)*sz])
		}
	}
	return contentKey(&canon.Tensor{DType: t.DType, Shape: []int64{c, r}, Data: out}), true
}

// minWeight is the size from which a tensor counts as a weight here:
// smaller ones are shape-like parameters (axes, a scalar) that source and
// conversion both repeat per node.
const minWeight = 64

// duplicated lists the source weights that the written file stores more
// often (as they are, or transposed) than the source did.
func duplicated(in, out onnxWeights) []string {
	group := map[string]int{} // content key -> source group
	have := map[int]int{}     // group -> tensors read
	names := map[int]string{}
	for i, t := range in.tensors {
		if t.NumElements() <= minWeight {
			continue
		}
		k := contentKey(t)
		id, ok := group[k]
		if !ok {
			id = len(names)
			group[k] = id
			names[id] = t.Name
			if t.Name == "" {
				names[id] = fmt.Sprintf("constant #%d", i)
			}
			if tk, ok := transposedKey(t); ok {
				if _, taken := group[tk]; !taken {
					group[tk] = id
				}
			}
		}
		have[id]++
	}
	wrote := map[int]int{}
	var dups []string
	for _, t := range out.tensors {
		id, ok := group[contentKey(t)]
		if !ok {
			continue // a tensor the conversion made (an op's expansion)
		}
		if wrote[id]++; wrote[id] == have[id]+1 {
			dups = append(dups, names[id])
		}
	}
	return dups
}

// TestConvertKeepsSharedWeights converts every ONNX file in the shared
// fixtures to ONNX, as a plain `modelbridge convert` does, and checks that
// no weight read is written more often than the file held it (as it is
// or transposed): a weight several nodes read, through Identity or by
// name, is written once. squeezenet1_1, whose biases torch shares through
// Identity, keeps its 725,418 values in 34 tensors. Files that write more
// bytes than they read do so for tensors the conversion made (an op's
// exact expansion, a scalar an older opset needs as an input); they are
// listed in the log.
func TestConvertKeepsSharedWeights(t *testing.T) {
	fix := testfix.Fixtures(t)
	var paths []string
	filepath.WalkDir(fix, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".onnx") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Skip("skipping: no ONNX files in the fixtures")
	}
	dir := t.TempDir()
	converted, skipped, grew := 0, 0, 0
	var readBytes, wroteBytes int64
	for _, p := range paths {
		rel, _ := filepath.Rel(fix, p)
		g, _, err := formats.Read(p, "onnx", formats.ReadOptions{})
		if err != nil {
			skipped++
			continue
		}
		out := filepath.Join(dir, "m.onnx")
		werr := writeQuiet(g, out)
		g.Close()
		if werr != nil {
			skipped++ // refused (an op the target opset cannot express)
			continue
		}
		converted++
		in, got := weightsOf(t, p), weightsOf(t, out)
		readBytes += in.bytes
		wroteBytes += got.bytes
		if d := duplicated(in, got); len(d) > 0 {
			t.Errorf("%s: weights written more often than read: %v (read %d values, wrote %d)", rel, d, in.values, got.values)
		}
		if got.bytes > in.bytes {
			grew++
			t.Logf("%s: read %d weight bytes, wrote %d (tensors the conversion made)", rel, in.bytes, got.bytes)
		}
		if strings.HasSuffix(rel, filepath.Join("squeezenet1_1", "model.onnx")) {
			t.Logf("%s: %d values (%d bytes) in %d tensors read, %d values (%d bytes) in %d written", rel, in.values, in.bytes, len(in.tensors), got.values, got.bytes, len(got.tensors))
			if in.values != 725418 || got.values != 725418 || got.bytes > in.bytes {
				t.Errorf("%s: %d values read, %d written; want 725418 both", rel, in.values, got.values)
			}
		}
		os.Remove(out)
	}
	t.Logf("%d ONNX files converted (%d weight bytes read, %d written; %d files write tensors the conversion made), %d not read or refused", converted, readBytes, wroteBytes, grew, skipped)
	if converted < len(paths)/2 {
		t.Errorf("only %d of %d files converted", converted, len(paths))
	}
}

func writeQuiet(g *canon.Graph, path string) error {
	exp, err := formats.FindExporter(path, "onnx")
	if err != nil {
		return err
	}
	return exp.Write(g, path, formats.WriteOptions{})
}

// TestMXNetKeepsSharedWeights: squeezenet1_1's biases that torch shares
// through Identity are one params array each in MXNet too.
func TestMXNetKeepsSharedWeights(t *testing.T) {
	src := filepath.Join(testfix.Fixtures(t), "torch", "squeezenet1_1", "model.onnx")
	g := load(t, src, "", formats.ReadOptions{})
	sym := filepath.Join(t.TempDir(), "sq-symbol.json")
	write(t, g, sym, "mxnet")
	back := load(t, sym, "", formats.ReadOptions{})
	p := back.Params()
	t.Logf("squeezenet1_1 -> MXNet: %d values in %d arrays", p.Elements, p.Tensors)
	if p.Elements != 725418 || len(back.Initializers) != 34 {
		t.Errorf("MXNet params hold %d values in %d arrays, want 725418 in 34", p.Elements, len(back.Initializers))
	}
}
