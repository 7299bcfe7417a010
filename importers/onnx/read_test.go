package onnximport

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

func mustRead(t *testing.T, s graphSpec) *canon.Graph {
	t.Helper()
	g, err := Read(write(t, s.model()), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// wantErr imports s and checks that the error names the file and holds
// every fragment.
func wantErr(t *testing.T, m *onnxpb.ModelProto, fragments ...string) {
	t.Helper()
	path := write(t, m)
	g, err := Read(path, formats.ReadOptions{})
	if err == nil {
		g.Close()
		t.Fatalf("import succeeded; want an error containing %q", fragments)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, path+": ") {
		t.Errorf("error %q does not start with the file name", msg)
	}
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Errorf("error %q does not contain %q", msg, f)
		}
	}
	if strings.Contains(msg, "internal error") {
		t.Errorf("error %q comes from a recovered panic", msg)
	}
}

func TestReadConv(t *testing.T) {
	g := mustRead(t, convModel())
	if len(g.Nodes) != 2 || g.Nodes[0].Name != "conv" || g.Nodes[1].Name != "relu" {
		t.Fatalf("nodes %v", g.Nodes)
	}
	c := g.Nodes[0].Op.(*canon.Conv)
	if !reflect.DeepEqual(c.PadsBegin, []int64{1, 1}) || !reflect.DeepEqual(c.Strides, []int64{1, 1}) || c.Group != 1 {
		t.Errorf("conv %+v", c)
	}
	if w := g.Initializer("w"); w.Layout != "OIHW" {
		t.Errorf("w layout %q", w.Layout)
	}
	if b := g.Initializer("b"); b.Layout != "O" {
		t.Errorf("b layout %q", b.Layout)
	}
	if g.Meta.SourceFormat != "onnx" || g.Meta.SourceOpset != 13 || g.Meta.SourceIRVersion != 8 || g.Meta.Producer != "modelbridge-test" {
		t.Errorf("meta %+v", g.Meta)
	}
}

func TestRawDataIsNotCopied(t *testing.T) {
	// Big enough to be mapped rather than read.
	n := 64 << 10
	s := convModel()
	s.inits = append(s.inits, f32Tensor("big", []int64{int64(n)}, seq(n)...))
	s.nodes = append(s.nodes, node("Identity", "keep", []string{"big"}, []string{"big_out"}))
	s.outputs = append(s.outputs, vinfo("big_out", tFloat, int64(n)))
	path := write(t, s.model())
	g, err := Read(path, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	file, _ := os.ReadFile(path)
	big := g.Initializer("big")
	if !bytes.Contains(file, big.Data[:64]) || math.Float32frombits(binary.LittleEndian.Uint32(big.Data[4*(n-1):])) != float32(n-1) {
		t.Fatal("big tensor data wrong")
	}
	if _, ok := g.Nodes[len(g.Nodes)-1].Op.(*canon.Identity); !ok {
		t.Errorf("Identity feeding a graph output must stay a node")
	}
}

func TestNodeOrderAndNames(t *testing.T) {
	s := convModel()
	s.nodes[0].Name = nil
	s.nodes[0], s.nodes[1] = s.nodes[1], s.nodes[0] // out of order
	g := mustRead(t, s)
	if g.Nodes[0].Op.Kind() != "Conv" || g.Nodes[0].Name != "Conv_1" || g.Nodes[1].Name != "relu" {
		t.Errorf("got nodes %s, %s", g.Nodes[0].Name, g.Nodes[1].Name)
	}
}

func TestInitializerListedAsInput(t *testing.T) {
	s := convModel()
	s.inputs = append(s.inputs, vinfo("w", tFloat, 3, 2, 3, 3), vinfo("b", tFloat, 3))
	g := mustRead(t, s)
	if len(g.Inputs) != 1 || g.Inputs[0].Name != "x" {
		t.Errorf("inputs %v", g.Inputs)
	}
}

func TestGemmTransposes(t *testing.T) {
	// B (K=3, N=2) feeds a Gemm with transB=0 and an Add: the Gemm gets a
	// transposed copy; C (N=2) is read by the Gemm only.
	s := graphSpec{
		nodes: []*onnxpb.NodeProto{
			node("Gemm", "fc", []string{"a", "B", "C"}, []string{"y"}),
			node("Add", "add", []string{"B", "B"}, []string{"z"}),
		},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("a", tFloat, 4, 3)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 4, 2), vinfo("z", tFloat, 3, 2)},
		inits:   []*onnxpb.TensorProto{f32Tensor("B", []int64{3, 2}, 1, 2, 3, 4, 5, 6), f32Tensor("C", []int64{2}, 0, 0)},
	}
	g := mustRead(t, s)
	lin := g.Nodes[0]
	if lin.Op.Kind() != "Linear" || lin.Inputs[1] == "B" {
		t.Fatalf("Linear inputs %v", lin.Inputs)
	}
	w := g.Initializer(lin.Inputs[1])
	got, _ := w.Float64s()
	if !reflect.DeepEqual(w.Shape, []int64{2, 3}) || !reflect.DeepEqual(got, []float64{1, 3, 5, 2, 4, 6}) || w.Layout != "OI" {
		t.Errorf("transposed copy %v %v %s", w.Shape, got, w.Layout)
	}
	if b := g.Initializer("B"); b == nil || !reflect.DeepEqual(b.Shape, []int64{3, 2}) || b.Layout != "" {
		t.Errorf("original B changed: %+v", b)
	}

	// Used once: transposed in place under the same name.
	s.nodes, s.outputs = s.nodes[:1], s.outputs[:1]
	g = mustRead(t, s)
	if g.Nodes[0].Inputs[1] != "B" || !reflect.DeepEqual(g.Initializer("B").Shape, []int64{2, 3}) {
		t.Errorf("in-place transpose: %v %v", g.Nodes[0].Inputs, g.Initializer("B").Shape)
	}

	// transA=1 and a dynamic B insert Transpose nodes.
	s = graphSpec{
		nodes:   []*onnxpb.NodeProto{node("Gemm", "fc", []string{"a", "b"}, []string{"y"}, aInt("transA", 1))},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("a", tFloat, 3, 4), vinfo("b", tFloat, 3, 2)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 4, 2)},
	}
	g = mustRead(t, s)
	var kinds []string
	for _, n := range g.Nodes {
		kinds = append(kinds, n.Op.Kind())
	}
	if !reflect.DeepEqual(kinds, []string{"Transpose", "Transpose", "Linear"}) {
		t.Errorf("nodes %v", kinds)
	}
}

func TestWeightInTwoLayouts(t *testing.T) {
	// The same (2,2,1,1) tensor as a Conv weight (OIHW) and a ConvTranspose
	// weight (IOHW): the second use gets a copy.
	s := graphSpec{
		nodes: []*onnxpb.NodeProto{
			node("Conv", "c1", []string{"x", "w"}, []string{"a"}),
			node("ConvTranspose", "c2", []string{"a", "w"}, []string{"y"}),
		},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 2, 4, 4)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 1, 2, 4, 4)},
		inits:   []*onnxpb.TensorProto{f32Tensor("w", []int64{2, 2, 1, 1}, 1, 2, 3, 4)},
	}
	g := mustRead(t, s)
	if g.Initializer("w").Layout != "OIHW" {
		t.Errorf("w layout %s", g.Initializer("w").Layout)
	}
	c := g.Initializer(g.Nodes[1].Inputs[1])
	if c.Name == "w" || c.Layout != "IOHW" {
		t.Errorf("copy %s layout %s", c.Name, c.Layout)
	}
}

func TestAutoPadAndPools(t *testing.T) {
	s := graphSpec{
		opset: 11,
		nodes: []*onnxpb.NodeProto{
			node("Conv", "c", []string{"x", "w"}, []string{"a"}, aStr("auto_pad", "SAME_UPPER"), aInts("strides", 2, 2)),
			node("MaxPool", "p", []string{"a"}, []string{"b"}, aStr("auto_pad", "SAME_LOWER"), aInts("kernel_shape", 2, 2)),
			node("ConvTranspose", "d", []string{"b", "wt"}, []string{"y"}, aInts("strides", 2, 2), aInts("output_shape", 6, 6)),
		},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 1, 6, 6)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 1, 1, 6, 6)},
		inits: []*onnxpb.TensorProto{f32Tensor("w", []int64{1, 1, 3, 3}, seq(9)...),
			f32Tensor("wt", []int64{1, 1, 3, 3}, seq(9)...)},
	}
	g := mustRead(t, s)
	// in 6, stride 2, k 3: out 3, total pad 1 -> SAME_UPPER puts it at the end.
	if c := g.Nodes[0].Op.(*canon.Conv); !reflect.DeepEqual(c.PadsBegin, []int64{0, 0}) || !reflect.DeepEqual(c.PadsEnd, []int64{1, 1}) {
		t.Errorf("conv pads %v %v", c.PadsBegin, c.PadsEnd)
	}
	// in 3, k 2, stride 1: total 1 -> SAME_LOWER puts it at the start.
	if p := g.Nodes[1].Op.(*canon.MaxPool); !reflect.DeepEqual(p.PadsBegin, []int64{1, 1}) || !reflect.DeepEqual(p.PadsEnd, []int64{0, 0}) {
		t.Errorf("pool pads %v %v", p.PadsBegin, p.PadsEnd)
	}
	// full output 2*(3-1)+3 = 7, wanted 6: total 1; without auto_pad the odd
	// pixel is cropped at the start (begin 1, end 0), as ONNX Runtime does.
	if d := g.Nodes[2].Op.(*canon.ConvTranspose); !reflect.DeepEqual(d.PadsBegin, []int64{1, 1}) || !reflect.DeepEqual(d.PadsEnd, []int64{0, 0}) {
		t.Errorf("deconv pads %v %v", d.PadsBegin, d.PadsEnd)
	}

	// Without a static input shape, auto_pad cannot be resolved.
	s.inputs = []*onnxpb.ValueInfoProto{{Name: proto.String("x"), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(tFloat)}}}}}
	s.outputs = []*onnxpb.ValueInfoProto{{Name: proto.String("y")}}
	wantErr(t, s.model(), `node "c" (Conv)`, "auto_pad SAME_UPPER", "--input-shape")
}

func TestOldSoftmaxFlattens(t *testing.T) {
	s := graphSpec{
		opset:   11,
		nodes:   []*onnxpb.NodeProto{node("Softmax", "sm", []string{"x"}, []string{"y"})},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3, 4)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2, 3, 4)},
	}
	g := mustRead(t, s)
	var kinds []string
	for _, n := range g.Nodes {
		kinds = append(kinds, n.Op.Kind())
	}
	if !reflect.DeepEqual(kinds, []string{"Flatten", "Softmax", "Reshape"}) || g.Nodes[1].Name != "sm" {
		t.Fatalf("nodes %v", kinds)
	}
	if r := g.Nodes[2].Op.(*canon.Reshape); !reflect.DeepEqual(r.Shape, []int64{2, 3, 4}) || g.Nodes[2].Outputs[0] != "y" {
		t.Errorf("reshape %+v -> %v", r, g.Nodes[2].Outputs)
	}
	// Opset 13: the axis is -1 by default, one node.
	s.opset = 13
	g = mustRead(t, s)
	if len(g.Nodes) != 1 || g.Nodes[0].Op.(*canon.Softmax).Axis != 2 {
		t.Errorf("opset 13 softmax: %+v", g.Nodes[0].Op)
	}
}

func TestConstantInputsFolded(t *testing.T) {
	// Reshape's shape from a Constant node and Clip bounds from
	// initializers become attributes; the folded constants disappear.
	s := graphSpec{
		nodes: []*onnxpb.NodeProto{
			node("Constant", "k", nil, []string{"shape"}, &onnxpb.AttributeProto{Name: proto.String("value"), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: i64Tensor("", 3, -1)}),
			node("Reshape", "r", []string{"x", "shape"}, []string{"a"}),
			node("Clip", "c", []string{"a", "lo", "hi"}, []string{"y"}),
		},
		inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 6)},
		outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 3, 4)},
		inits:   []*onnxpb.TensorProto{f32Tensor("lo", []int64{}, 0), f32Tensor("hi", []int64{}, 6)},
	}
	g := mustRead(t, s)
	if len(g.Nodes) != 2 || len(g.Initializers) != 0 {
		t.Fatalf("nodes %d initializers %d", len(g.Nodes), len(g.Initializers))
	}
	if r := g.Nodes[0].Op.(*canon.Reshape); !reflect.DeepEqual(r.Shape, []int64{3, -1}) || len(g.Nodes[0].Inputs) != 1 {
		t.Errorf("reshape %+v %v", r, g.Nodes[0].Inputs)
	}
	if c := g.Nodes[1].Op.(*canon.Clip); c.Min != 0 || c.Max != 6 {
		t.Errorf("clip %+v", c)
	}
	// A bound computed at run time stays the canonical op's Max input; the
	// constant one is still folded.
	s.inits = s.inits[:1]
	s.inputs = append(s.inputs, vinfo("hi", tFloat))
	g = mustRead(t, s)
	c := g.Nodes[1]
	if op := c.Op.(*canon.Clip); op.Min != 0 || !math.IsInf(float64(op.Max), 1) || !reflect.DeepEqual(c.Inputs, []string{"a", "", "hi"}) {
		t.Errorf("clip %+v inputs %q", op, c.Inputs)
	}
}

func TestBadModels(t *testing.T) {
	t.Run("unknown op", func(t *testing.T) {
		s := convModel()
		s.nodes[1].OpType = proto.String("ImageDecoder")
		s.nodes[1].Name = proto.String("x")
		wantErr(t, s.model(), `node "x" (ImageDecoder): op not supported by modelbridge`, "re-export")
	})
	t.Run("other domain", func(t *testing.T) {
		s := convModel()
		s.nodes[1].Domain = proto.String("com.microsoft")
		wantErr(t, s.model(), `node "relu"`, `domain "com.microsoft"`)
	})
	t.Run("missing initializer", func(t *testing.T) {
		s := convModel()
		s.inits = s.inits[1:]
		wantErr(t, s.model(), `node "conv" (Conv) reads "w"`, "not a graph input, an initializer")
	})
	t.Run("missing input", func(t *testing.T) {
		s := convModel()
		s.inputs = nil
		wantErr(t, s.model(), `reads "x"`)
	})
	t.Run("cycle", func(t *testing.T) {
		s := convModel()
		s.nodes[0].Input[0] = "y"
		wantErr(t, s.model(), "cycle")
	})
	t.Run("raw data size", func(t *testing.T) {
		s := convModel()
		s.inits[0].RawData = s.inits[0].RawData[:40]
		wantErr(t, s.model(), `tensor "w"`, "needs 216 bytes but raw_data holds 40")
	})
	t.Run("typed data size", func(t *testing.T) {
		s := convModel()
		s.inits[1] = &onnxpb.TensorProto{Name: proto.String("b"), DataType: proto.Int32(tFloat), Dims: []int64{3}, FloatData: []float32{1}}
		wantErr(t, s.model(), `tensor "b"`, "needs 3 values but the tensor holds 1")
	})
	t.Run("huge shape", func(t *testing.T) {
		s := convModel()
		s.inits[0].Dims = []int64{1 << 40, 1 << 40, 1 << 40, 3}
		wantErr(t, s.model(), `tensor "w"`, "too many elements")
	})
	t.Run("string tensor", func(t *testing.T) {
		s := convModel()
		// Strings are read; Conv refuses them as its bias.
		s.inits[1] = &onnxpb.TensorProto{Name: proto.String("b"), DataType: proto.Int32(8), Dims: []int64{3}, StringData: [][]byte{[]byte("x"), nil, nil}}
		wantErr(t, s.model(), `node "conv"`, "string")
	})
	t.Run("opset", func(t *testing.T) {
		s := convModel()
		s.opset = 30
		wantErr(t, s.model(), "opset 30", "supported range")
	})
	t.Run("maxpool third output", func(t *testing.T) {
		s := convModel()
		s.nodes[1] = node("MaxPool", "mp", []string{"c"}, []string{"y", "idx", "extra"}, aInts("kernel_shape", 1, 1))
		s.outputs = append(s.outputs, vinfo("extra", tInt64, 1, 3, 5, 5))
		wantErr(t, s.model(), `node "mp" (MaxPool)`, "only Y and Indices")
	})
	t.Run("zero stride with auto_pad", func(t *testing.T) {
		s := convModel()
		s.nodes[0] = node("Conv", "conv", []string{"x", "w", "b"}, []string{"c"}, aInts("strides", 0, 0), aStr("auto_pad", "SAME_UPPER"))
		wantErr(t, s.model(), `node "conv" (Conv)`, "must be positive")
	})
	t.Run("absurd stride", func(t *testing.T) {
		s := convModel()
		s.nodes[0] = node("Conv", "conv", []string{"x", "w", "b"}, []string{"c"}, aInts("strides", 1<<62, 1), aStr("auto_pad", "SAME_LOWER"))
		wantErr(t, s.model(), `node "conv" (Conv)`, "exceed")
	})
	t.Run("absurd pads", func(t *testing.T) {
		s := convModel()
		s.nodes[0] = node("Conv", "conv", []string{"x", "w", "b"}, []string{"c"}, aInts("pads", 1<<40, 0, 0, 0))
		wantErr(t, s.model(), `node "conv" (Conv)`, "must lie in")
	})
	t.Run("constant without tensor", func(t *testing.T) {
		s := convModel()
		s.nodes = append([]*onnxpb.NodeProto{node("Constant", "k", nil, []string{"kv"},
			&onnxpb.AttributeProto{Name: proto.String("value"), Type: onnxpb.AttributeProto_TENSOR.Enum()})}, s.nodes...)
		wantErr(t, s.model(), `node "k" (Constant)`, "without a tensor")
	})
	t.Run("resize unknown mode", func(t *testing.T) {
		s := convModel()
		s.nodes[1] = node("Resize", "rs", []string{"c", "", "sc"}, []string{"y"}, aStr("mode", "area"))
		s.inits = append(s.inits, f32Tensor("sc", []int64{4}, 1, 1, 2, 2))
		wantErr(t, s.model(), `node "rs" (Resize)`, `mode "area" is not supported`)
	})
}

func TestCorruptFiles(t *testing.T) {
	good, err := proto.Marshal(convModel().model())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	try := func(name string, b []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := Read(p, formats.ReadOptions{})
		if err == nil {
			g.Close()
			return // some corruptions leave a valid model
		}
		if !strings.HasPrefix(err.Error(), p+": ") || strings.Contains(err.Error(), "internal error") {
			t.Errorf("%s: bad error %q", name, err)
		}
	}
	for n := 0; n < len(good); n++ {
		try("truncated.onnx", good[:n])
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		b := bytes.Clone(good)
		for k := 0; k < 1+rng.Intn(4); k++ {
			b[rng.Intn(len(b))] = byte(rng.Intn(256))
		}
		try("flipped.onnx", b)
		junk := make([]byte, rng.Intn(2048))
		rng.Read(junk)
		try("random.onnx", junk)
	}
	// A truncated model must fail, not import half a graph.
	p := writeBytes(t, good[:len(good)-10])
	if g, err := Read(p, formats.ReadOptions{}); err == nil {
		g.Close()
		t.Error("truncated model imported")
	}
}

func FuzzRead(f *testing.F) {
	good, _ := proto.Marshal(convModel().model())
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		// In memory, so the fuzzer is not bound by disk writes; Read adds
		// only the mapping around this.
		g := &canon.Graph{}
		err := readData("fuzz.onnx", b, formats.ReadOptions{}, g)
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatal(err)
		}
	})
}

func TestSniff(t *testing.T) {
	good, _ := proto.Marshal(convModel().model())
	if !Sniff(good[:min(len(good), 512)]) || !Sniff(good[:8]) {
		t.Error("model not sniffed")
	}
	tensor, _ := proto.Marshal(f32Tensor("t", []int64{1, 3, 2, 2}, seq(12)...))
	for name, head := range map[string][]byte{
		"zip":    []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"),
		"pickle": {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc},
		"json":   []byte(`{"nodes": []}`),
		"tensor": tensor,
		"empty":  nil,
	} {
		if Sniff(head) {
			t.Errorf("%s sniffed as ONNX", name)
		}
	}
	imp, err := formats.FindImporter(write(t, convModel().model()), "")
	if err != nil || imp.Name != "onnx" {
		t.Errorf("FindImporter: %v %v", imp, err)
	}
}

func TestReadTensorFile(t *testing.T) {
	b, _ := proto.Marshal(f32Tensor("input", []int64{2, 2}, 1, 2, 3, 4))
	p := filepath.Join(t.TempDir(), "input_0.pb")
	os.WriteFile(p, b, 0o644)
	tt, err := ReadTensorFile(p)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := tt.Float64s()
	if tt.Name != "input" || !reflect.DeepEqual(v, []float64{1, 2, 3, 4}) {
		t.Errorf("%s %v", tt.Name, v)
	}
	os.WriteFile(p, b[:len(b)-3], 0o644)
	if _, err := ReadTensorFile(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("truncated tensor file: %v", err)
	}
}

func TestTypedFields(t *testing.T) {
	cases := []struct {
		tp   *onnxpb.TensorProto
		want []float64
	}{
		{&onnxpb.TensorProto{DataType: proto.Int32(10), Dims: []int64{2}, Int32Data: []int32{0x3c00, 0xc000}}, []float64{1, -2}},   // f16
		{&onnxpb.TensorProto{DataType: proto.Int32(16), Dims: []int64{1}, Int32Data: []int32{0x3f80}}, []float64{1}},               // bf16
		{&onnxpb.TensorProto{DataType: proto.Int32(3), Dims: []int64{2}, Int32Data: []int32{-3, 5}}, []float64{-3, 5}},             // i8
		{&onnxpb.TensorProto{DataType: proto.Int32(9), Dims: []int64{2}, Int32Data: []int32{1, 0}}, []float64{1, 0}},               // bool
		{&onnxpb.TensorProto{DataType: proto.Int32(12), Dims: []int64{1}, Uint64Data: []uint64{7}}, []float64{7}},                  // u32
		{&onnxpb.TensorProto{DataType: proto.Int32(11), Dims: []int64{2}, DoubleData: []float64{0.5, 2}}, []float64{0.5, 2}},       // f64
		{&onnxpb.TensorProto{DataType: proto.Int32(7), Dims: []int64{}, Int64Data: []int64{-9}}, []float64{-9}},                    // i64 scalar
		{&onnxpb.TensorProto{DataType: proto.Int32(1), Dims: []int64{0, 3}}, []float64{}},                                          // empty
		{&onnxpb.TensorProto{DataType: proto.Int32(5), Dims: []int64{1}, RawData: []byte{0xfe, 0xff}}, []float64{-2}},              // i16 raw
		{&onnxpb.TensorProto{DataType: proto.Int32(2), Dims: []int64{3}, RawData: []byte{1, 2, 255}}, []float64{1, 2, 255}},        // u8 raw
		{&onnxpb.TensorProto{DataType: proto.Int32(4), Dims: []int64{1}, Int32Data: []int32{65535}}, []float64{65535}},             // u16
		{&onnxpb.TensorProto{DataType: proto.Int32(13), Dims: []int64{1}, Uint64Data: []uint64{1 << 40}}, []float64{1 << 40}},      // u64
		{&onnxpb.TensorProto{DataType: proto.Int32(6), Dims: []int64{2}, Int32Data: []int32{-1, 1 << 30}}, []float64{-1, 1 << 30}}, // i32
	}
	for i, c := range cases {
		tt, err := ReadTensorProto(c.tp, "")
		if err != nil {
			t.Errorf("case %d: %v", i, err)
			continue
		}
		got, err := tt.Float64s()
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("case %d (%s): got %v %v, want %v", i, tt.DType, got, err, c.want)
		}
	}
}
