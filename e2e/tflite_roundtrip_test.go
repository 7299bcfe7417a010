package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	tfliteexport "github.com/modelbridge/modelbridge/exporters/tflite"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
	"github.com/modelbridge/modelbridge/interp"
)

// tfliteConst is one constant tensor of a .tflite file: its buffer's
// bytes as the file stores them, in the file's own layout.
type tfliteConst struct {
	name  string
	dtype tflitefb.TensorType
	shape []int32
	data  []byte
}

func (c tfliteConst) String() string {
	return fmt.Sprintf("%q %s %v", c.name, tflitefb.EnumNamesTensorType[c.dtype], c.shape)
}

// tfliteConsts lists the tensors of a file's main subgraph that hold data.
func tfliteConsts(t *testing.T, data []byte) []tfliteConst {
	t.Helper()
	m := tflitefb.GetRootAsModel(data, 0)
	var sg tflitefb.SubGraph
	if !m.Subgraphs(&sg, 0) {
		t.Fatal("no subgraph")
	}
	var out []tfliteConst
	for i := 0; i < sg.TensorsLength(); i++ {
		var tt tflitefb.Tensor
		var bf tflitefb.Buffer
		sg.Tensors(&tt, i)
		if tt.Buffer() == 0 || !m.Buffers(&bf, int(tt.Buffer())) {
			continue
		}
		raw := bf.DataBytes()
		if bf.Offset() > 1 {
			raw = data[bf.Offset() : bf.Offset()+bf.Size()]
		}
		if len(raw) == 0 {
			continue
		}
		c := tfliteConst{name: string(tt.Name()), dtype: tt.Type(), data: raw}
		for k := 0; k < tt.ShapeLength(); k++ {
			c.shape = append(c.shape, tt.Shape(k))
		}
		out = append(out, c)
	}
	return out
}

// constFound says how want is held in have: the same tensor (dtype,
// shape, bytes), or a block of whole rows of a larger tensor, as the
// four gate matrices of an LSTM are rows of the concatenated W and R
// once written step by step. "" means it is not there.
func constFound(want tfliteConst, have []tfliteConst) string {
	for _, h := range have {
		if h.dtype == want.dtype && fmt.Sprint(h.shape) == fmt.Sprint(want.shape) && bytes.Equal(h.data, want.data) {
			return "identical as " + h.String()
		}
	}
	for _, h := range have {
		if h.dtype != want.dtype || len(h.shape) != len(want.shape) || len(want.shape) == 0 ||
			fmt.Sprint(h.shape[1:]) != fmt.Sprint(want.shape[1:]) || len(h.data) <= len(want.data) {
			continue
		}
		rows := len(h.data) / int(h.shape[0])
		for off := 0; off+len(want.data) <= len(h.data); off += rows {
			if bytes.Equal(h.data[off:off+len(want.data)], want.data) {
				return fmt.Sprintf("rows %d.. of %s", off/rows, h)
			}
		}
	}
	return ""
}

// isWeight tells the float constants apart from integer operands.
func isWeight(c tfliteConst) bool {
	return c.dtype == tflitefb.TensorTypeFLOAT32 || c.dtype == tflitefb.TensorTypeFLOAT16
}

// roundTripTFLite reads a .tflite file, writes it as ONNX, reads that
// back and writes it as .tflite again.
func roundTripTFLite(t *testing.T, path string) ([]byte, error) {
	t.Helper()
	g := load(t, path, "tflite", formats.ReadOptions{})
	onnxPath := filepath.Join(t.TempDir(), "m.onnx")
	write(t, g, onnxPath, "onnx")
	back := load(t, onnxPath, "onnx", formats.ReadOptions{})
	data, _, err := tfliteexport.Encode(back, tfliteexport.Options{})
	return data, err
}

// checkWeightsKept fails when a constant of orig is missing from again.
func checkWeightsKept(t *testing.T, orig, again []byte) {
	t.Helper()
	have := tfliteConsts(t, again)
	want := tfliteConsts(t, orig)
	if len(want) == 0 {
		t.Fatal("the source file holds no constants")
	}
	var bytesKept, weights int
	for _, w := range want {
		how := constFound(w, have)
		if !isWeight(w) {
			// Operands such as RESHAPE's new shape or PAD's paddings are
			// read as static attributes and may come back resolved
			// (-1 as the size it stands for) or for another layout.
			if how == "" {
				t.Logf("operand %s %v is written differently", w, w.data)
			}
			continue
		}
		weights++
		if how == "" {
			t.Errorf("constant %s (%d bytes) is not in the re-exported file bit for bit", w, len(w.data))
			continue
		}
		bytesKept += len(w.data)
		t.Logf("%s: %s", w, how)
	}
	if weights == 0 {
		t.Fatal("the source file holds no float weights")
	}
	t.Logf("%d weights, %d bytes, bit-exact in the re-exported file", weights, bytesKept)
}

// checkSameOutputs runs both files, read back, in the interpreter on the
// same inputs: the re-exported file must compute what the source does.
func checkSameOutputs(t *testing.T, orig, again []byte) {
	t.Helper()
	dir := t.TempDir()
	var outs [][]*canon.Tensor
	var ins []*canon.Tensor
	for i, data := range [][]byte{orig, again} {
		path := filepath.Join(dir, fmt.Sprintf("m%d.tflite", i))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		g := load(t, path, "tflite", formats.ReadOptions{})
		if ins == nil {
			feeds := randomInputs(t, g, 11)
			for _, v := range g.Inputs {
				ins = append(ins, feeds[v.Name])
			}
		}
		if len(g.Inputs) != len(ins) {
			t.Fatalf("%d inputs, %d after the round trip", len(ins), len(g.Inputs))
		}
		in := map[string]*canon.Tensor{}
		for k, v := range g.Inputs {
			x := *ins[k]
			x.Name = v.Name
			in[v.Name] = &x
		}
		res, err := interp.Run(g, in)
		if err != nil {
			t.Fatal(err)
		}
		var o []*canon.Tensor
		for _, v := range g.Outputs {
			o = append(o, res[v.Name])
		}
		outs = append(outs, o)
	}
	if len(outs[0]) != len(outs[1]) {
		t.Fatalf("%d outputs, %d after the round trip", len(outs[0]), len(outs[1]))
	}
	for i := range outs[0] {
		d := maxAbsDiff(t, outs[0][i], outs[1][i])
		if d > 1e-6*(1+maxAbs(t, outs[0][i])) {
			t.Errorf("output %d differs by %g after the round trip", i, d)
		}
	}
}

// TestTFLiteRoundTripKeepsWeights converts .tflite → ONNX → .tflite and
// checks that every constant buffer of the source file comes back bit
// for bit in the file's own layout (OHWI, 1HWO, FC weight columns in the
// order of an NHWC flatten): the float fixtures TensorFlow made, and
// files this exporter writes from CNNs with plain, depthwise and
// transposed convolutions and a flatten before a fully connected layer.
func TestTFLiteRoundTripKeepsWeights(t *testing.T) {
	fix := filepath.Join(testfix.Fixtures(t), "tflite")
	for _, name := range []string{"hello_world_float", "trained_lstm"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(fix, name+".tflite")
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Skipf("skipping: %v", err)
			}
			again, err := roundTripTFLite(t, path)
			if err != nil {
				t.Fatal(err)
			}
			checkWeightsKept(t, orig, again)
			checkSameOutputs(t, orig, again)
		})
	}
	root := filepath.Join(testfix.RepoRoot(), "exporters", "tflite", "testdata")
	for _, name := range []string{"mobile_blocks", "decoder_blocks", "flatten_head", "resnet_blocks"} {
		for _, nhwcIO := range []bool{false, true} {
			sub := name
			if nhwcIO {
				sub += "/nhwc"
			}
			t.Run(sub, func(t *testing.T) {
				g := load(t, filepath.Join(root, name+".onnx"), "onnx", formats.ReadOptions{})
				orig, _, err := tfliteexport.Encode(g, tfliteexport.Options{NHWCIO: nhwcIO})
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "m.tflite")
				if err := os.WriteFile(path, orig, 0o644); err != nil {
					t.Fatal(err)
				}
				again, err := roundTripTFLite(t, path)
				if err != nil {
					t.Fatal(err)
				}
				checkWeightsKept(t, orig, again)
				checkSameOutputs(t, orig, again)
			})
		}
	}
}

// TestTFLiteRoundTripQuantizedRefused documents that person_detect (int8)
// reads and converts to ONNX but is not written back to .tflite: the
// exporter writes float32 and float16 models only, and says so.
func TestTFLiteRoundTripQuantizedRefused(t *testing.T) {
	path := tfliteFixture(t, "person_detect.tflite")
	_, err := roundTripTFLite(t, path)
	if err == nil {
		t.Fatal("person_detect was written back to .tflite; extend TestTFLiteRoundTripKeepsWeights to it")
	}
	if !strings.Contains(err.Error(), "quantized graphs are not written to TFLite") {
		t.Fatalf("refusal does not say why: %v", err)
	}
	t.Logf("refused as expected: %v", err)
}
