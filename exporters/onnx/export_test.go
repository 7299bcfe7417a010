package onnxexport

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

func randTensor(name string, layout canon.Layout, seed uint32, shape ...int64) *canon.Tensor {
	n := canon.NumElements(shape)
	v := make([]float32, n)
	s := seed*2654435761 + 1
	for i := range v {
		s ^= s << 13
		s ^= s >> 17
		s ^= s << 5
		v[i] = float32(s%2000)/1000 - 1
	}
	t := canon.NewFloat32Tensor(name, shape, v)
	t.Layout = layout
	return t
}

func positiveTensor(name string, seed uint32, shape ...int64) *canon.Tensor {
	t := randTensor(name, "C", seed, shape...)
	v, _ := t.Float64s()
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(math.Abs(x)) + 0.5
	}
	r := canon.NewFloat32Tensor(name, shape, out)
	r.Layout = "C"
	return r
}

// allOpsGraph uses every canonical op kind at least once, with parameters
// that exercise the opset-dependent encodings.
func allOpsGraph() *canon.Graph {
	nd := func(name string, op canon.Op, ins []string, outs ...string) *canon.Node {
		return &canon.Node{Name: name, Op: op, Inputs: ins, Outputs: outs}
	}
	konst := canon.NewFloat32Tensor("k", []int64{}, []float32{2})
	g := &canon.Graph{
		Name:    "all_ops",
		Inputs:  []canon.ValueInfo{{Name: "X", DType: canon.Float32, Shape: []canon.Dim{{Size: -1, Param: "batch"}, {Size: 3}, {Size: 8}, {Size: 8}}, RankKnown: true}},
		Outputs: []canon.ValueInfo{{Name: "out", DType: canon.Float32}, {Name: "shp", DType: canon.Int64}, {Name: "smx", DType: canon.Float32}, {Name: "hsg", DType: canon.Float32}, {Name: "sm_last", DType: canon.Float32}},
		Initializers: []*canon.Tensor{
			randTensor("conv.w", "OIHW", 1, 4, 3, 3, 3),
			randTensor("conv.b", "O", 2, 4),
			positiveTensor("bn.s", 3, 4), randTensor("bn.b", "C", 4, 4), randTensor("bn.m", "C", 5, 4), positiveTensor("bn.v", 6, 4),
			randTensor("deconv.w", "IOHW", 7, 4, 2, 3, 3),
			randTensor("fc.w", "OI", 8, 5, 4),
			randTensor("fc.b", "", 9, 5),
			randTensor("slope", "", 10, 1, 4, 1, 1),
			canon.NewInt64Tensor("idx", nil, []int64{3, -1}),
		},
		Meta: canon.Metadata{DocString: "every op", Domain: "test.modelbridge", ModelVersion: 3, Props: []canon.KeyValue{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}}},
	}
	g.Nodes = []*canon.Node{
		nd("conv", &canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}, Group: 1}, []string{"X", "conv.w", "conv.b"}, "c1"),
		nd("bn", &canon.BatchNorm{Epsilon: 1e-5}, []string{"c1", "bn.s", "bn.b", "bn.m", "bn.v"}, "bn_out"),
		nd("hswish", &canon.Unary{Fn: canon.HardSwish}, []string{"bn_out"}, "hs"),
		nd("clip", &canon.Clip{Min: -0.5, Max: 2}, []string{"hs"}, "cl"),
		nd("leaky", &canon.LeakyRelu{Alpha: 0.1}, []string{"cl"}, "lr"),
		nd("maxpool", &canon.MaxPool{Kernel: []int64{2, 2}, Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}, []string{"lr"}, "mp"),
		nd("avgpool", &canon.AveragePool{Kernel: []int64{3, 3}, Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}}, []string{"lr"}, "ap"),
		nd("add", &canon.Binary{Fn: canon.Add}, []string{"mp", "ap"}, "ad"),
		nd("pad", &canon.Pad{Mode: canon.PadConstant, PadsBegin: []int64{0, 0, 1, 1}, PadsEnd: []int64{0, 0, 1, 2}, Value: 1.5}, []string{"ad"}, "pd"),
		nd("split", &canon.Split{Axis: 1, Sizes: []int64{1, 3}}, []string{"pd"}, "sp1", "sp2"),
		nd("squeeze", &canon.Squeeze{Axes: []int64{1}}, []string{"sp1"}, "sq"),
		nd("unsqueeze", &canon.Unsqueeze{Axes: []int64{1}}, []string{"sq"}, "us"),
		nd("concat", &canon.Concat{Axis: 1}, []string{"us", "sp2"}, "cc"),
		nd("slice", &canon.Slice{Starts: []int64{1, 1}, Ends: []int64{5, 100}, Axes: []int64{2, 3}, Steps: []int64{1, 2}}, []string{"cc"}, "sl"),
		nd("resize", &canon.Resize{Scales: []float32{1, 1, 2, 2}, CoordTransform: canon.Asymmetric, Nearest: canon.Floor}, []string{"sl"}, "rz"),
		nd("deconv", &canon.ConvTranspose{Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}, OutputPadding: []int64{1, 1}, Group: 2}, []string{"rz", "deconv.w"}, "ct"),
		nd("gap", &canon.GlobalAveragePool{}, []string{"ct"}, "gap"),
		nd("flatten", &canon.Flatten{Axis: 1}, []string{"gap"}, "fl"),
		nd("fc", &canon.Linear{Alpha: 1, Beta: 1}, []string{"fl", "fc.w", "fc.b"}, "li"),
		nd("sigmoid", &canon.Unary{Fn: canon.Sigmoid}, []string{"li"}, "sg"),
		nd("dropout", &canon.Dropout{Ratio: 0.3}, []string{"sg"}, "dr"),
		nd("transpose", &canon.Transpose{Perm: []int64{1, 0}}, []string{"dr"}, "tr"),
		nd("matmul", &canon.MatMul{}, []string{"dr", "tr"}, "mm"),
		nd("tanh", &canon.Unary{Fn: canon.Tanh}, []string{"mm"}, "th"),
		nd("reducemean", &canon.Reduce{Fn: canon.ReduceMean, Axes: []int64{2, 3}}, []string{"ct"}, "rm"),
		nd("hardsigmoid", &canon.HardSigmoid{Alpha: 0.2, Beta: 0.5}, []string{"rm"}, "hsg"),
		nd("prelu", &canon.PRelu{}, []string{"ct", "slope"}, "pr"),
		nd("gmp", &canon.GlobalMaxPool{}, []string{"pr"}, "gmp"),
		nd("reshape", &canon.Reshape{Shape: []int64{0, -1}}, []string{"gmp"}, "rs"),
		nd("gather", &canon.Gather{Axis: 1}, []string{"rs", "idx"}, "ga"),
		nd("mul", &canon.Binary{Fn: canon.Mul}, []string{"ga", "th"}, "mu"),
		nd("const", &canon.Constant{Value: konst}, nil, "k"),
		nd("div", &canon.Binary{Fn: canon.Div}, []string{"mu", "k"}, "dv"),
		nd("sub", &canon.Binary{Fn: canon.Sub}, []string{"dv", "ga"}, "sb"),
		nd("elu", &canon.Elu{Alpha: 0.7}, []string{"sb"}, "elu"),
		nd("selu", &canon.Selu{Alpha: canon.SeluAlpha, Gamma: canon.SeluGamma}, []string{"elu"}, "selu"),
		nd("softsign", &canon.Unary{Fn: canon.Softsign}, []string{"selu"}, "ssg"),
		nd("softplus", &canon.Unary{Fn: canon.Softplus}, []string{"ssg"}, "spl"),
		nd("relu", &canon.Unary{Fn: canon.Relu}, []string{"spl"}, "rl"),
		nd("identity", &canon.Identity{}, []string{"rl"}, "out"),
		nd("shape", &canon.ShapeOf{Start: 1, End: -1}, []string{"X"}, "shp"),
		nd("softmax", &canon.Softmax{Axis: 1}, []string{"X"}, "smx"),
		nd("softmax_last", &canon.Softmax{Axis: 3}, []string{"pd"}, "sm_last"),
	}
	return g
}

// TestWireFormat checks that the streamed bytes parse as the ModelProto
// that proto.Marshal would have built, at every opset, inline and external.
func TestWireFormat(t *testing.T) {
	for opset := MinOpset; opset <= MaxOpset; opset++ {
		for _, ext := range []bool{false, true} {
			g := allOpsGraph()
			dir := t.TempDir()
			path := filepath.Join(dir, "m.onnx")
			info, err := write(g, path, formats.WriteOptions{Opset: opset, ExternalData: ext})
			if err != nil {
				t.Fatalf("opset %d: %v", opset, err)
			}
			if info.external != ext {
				t.Errorf("opset %d: external = %v", opset, info.external)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m := &onnxpb.ModelProto{}
			if err := proto.Unmarshal(raw, m); err != nil {
				t.Fatalf("opset %d ext %v: output does not parse: %v", opset, ext, err)
			}
			if got := proto.Size(m); got != len(raw) {
				t.Errorf("opset %d: re-encoded size %d, file %d", opset, got, len(raw))
			}
			if m.GetProducerName() != "modelbridge" || m.GetProducerVersion() != ProducerVersion || m.GetIrVersion() != irVersion(opset) ||
				len(m.OpsetImport) != 1 || m.OpsetImport[0].GetVersion() != int64(opset) {
				t.Errorf("opset %d: header %v %v %v %v", opset, m.GetProducerName(), m.GetProducerVersion(), m.GetIrVersion(), m.OpsetImport)
			}
			if m.GetDocString() != "every op" || m.GetDomain() != "test.modelbridge" || m.GetModelVersion() != 3 || len(m.MetadataProps) != 2 || m.MetadataProps[1].GetKey() != "b" {
				t.Errorf("opset %d: metadata not kept: %v", opset, m)
			}
			gp := m.Graph
			if gp.GetName() != "all_ops" || len(gp.Input) != 1 || gp.Input[0].GetName() != "X" || len(gp.Output) != len(g.Outputs) {
				t.Fatalf("opset %d: graph header wrong", opset)
			}
			for i, o := range g.Outputs {
				if gp.Output[i].GetName() != o.Name {
					t.Errorf("output %d is %q, want %q", i, gp.Output[i].GetName(), o.Name)
				}
			}
			dims := gp.Input[0].GetType().GetTensorType().GetShape().GetDim()
			if len(dims) != 4 || dims[0].GetDimParam() != "batch" || dims[1].GetDimValue() != 3 {
				t.Errorf("input shape not kept: %v", dims)
			}
			// Original initializers first, in order, bit-exact.
			var data []byte
			if ext {
				data, err = os.ReadFile(path + ".data")
				if err != nil {
					t.Fatal(err)
				}
			}
			for i, want := range g.Initializers {
				tp := gp.Initializer[i]
				if tp.GetName() != want.Name || !sameDims(tp.Dims, want.Shape) {
					t.Fatalf("initializer %d: %q %v, want %q %v", i, tp.GetName(), tp.Dims, want.Name, want.Shape)
				}
				got := tp.RawData
				if tp.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
					kv := map[string]string{}
					for _, e := range tp.ExternalData {
						kv[e.GetKey()] = e.GetValue()
					}
					if kv["location"] != "m.onnx.data" {
						t.Fatalf("location %q", kv["location"])
					}
					var off, n int
					_, _ = fmtSscan(kv["offset"], &off)
					_, _ = fmtSscan(kv["length"], &n)
					if off%externalAlign != 0 {
						t.Errorf("offset %d not aligned", off)
					}
					got = data[off : off+n]
				} else if ext && len(want.Data) > externalMin {
					t.Errorf("%s (%d bytes) not external", want.Name, len(want.Data))
				}
				if !bytes.Equal(got, want.Data) {
					t.Errorf("initializer %q data differs", want.Name)
				}
			}
			ops := map[string]bool{}
			for _, n := range gp.Node {
				ops[n.GetOpType()] = true
			}
			if (opset >= 14) != ops["HardSwish"] {
				t.Errorf("opset %d: HardSwish not mapped as expected: %v", opset, ops)
			}
			if !ops["Gemm"] || !ops["Constant"] || !ops["Resize"] {
				t.Errorf("opset %d: ops %v", opset, ops)
			}
			if !info.expanded && opset < 15 {
				t.Errorf("opset %d: expansions not reported", opset)
			}
		}
	}
}

func fmtSscan(s string, v *int) (int, error) {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	*v = n
	return 1, nil
}

func TestTensorFile(t *testing.T) {
	dir := t.TempDir()
	src := randTensor("input_0", "", 1, 2, 3)
	p := filepath.Join(dir, "input_0.pb")
	if err := WriteTensorFile(src, p); err != nil {
		t.Fatal(err)
	}
	got, err := readTensorPB(p)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := src.Float64s()
	if !sameDims(got.dims, src.Shape) || got.dtype != 1 {
		t.Fatalf("dims %v dtype %d", got.dims, got.dtype)
	}
	for i := range want {
		if got.vals[i] != want[i] {
			t.Fatalf("value %d: %v want %v", i, got.vals[i], want[i])
		}
	}
	bad := &canon.Tensor{Name: "short", DType: canon.Float32, Shape: []int64{4}, Data: make([]byte, 3)}
	if err := WriteTensorFile(bad, p); err == nil || !strings.Contains(err.Error(), "short") {
		t.Fatalf("short data accepted: %v", err)
	}
	if _, err := readTensorPB(p); err != nil {
		t.Fatalf("old file damaged: %v", err)
	}
}

func TestScalarEncodings(t *testing.T) {
	for _, c := range []struct {
		f float32
		h uint16
	}{{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {1e9, 0x7c00}, {float32(math.Inf(-1)), 0xfc00}, {5.960464477539063e-08, 1}, {0.5, 0x3800}} {
		if got := canon.Float32ToHalf(c.f); got != c.h {
			t.Errorf("half(%v) = %#x, want %#x", c.f, got, c.h)
		}
		if c.h != 0x7c00 && canon.HalfToFloat32(c.h) != c.f {
			t.Errorf("round trip of %v", c.f)
		}
	}
	if b, ok := scalarBytes(canon.Int8, -3.7); !ok || int8(b[0]) != -3 {
		t.Errorf("int8 -3.7 -> %v", b)
	}
	if _, ok := scalarBytes(canon.Int32, float32(math.Inf(1))); ok {
		t.Error("inf stored as int")
	}
}

func smallGraph(op canon.Op) *canon.Graph {
	return &canon.Graph{
		Name:    "small",
		Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 2, 6, 6), RankKnown: true}},
		Outputs: []canon.ValueInfo{{Name: "y", DType: canon.Float32}},
		Nodes:   []*canon.Node{{Name: "the_node", Op: op, Inputs: []string{"x"}, Outputs: []string{"y"}}},
	}
}

// TestUnexpressible checks that an op the opset cannot express is an error
// naming the node, op and opset, and that no file (and no temporary) is
// left, while an existing file stays as it was.
func TestUnexpressible(t *testing.T) {
	cases := []struct {
		name  string
		op    canon.Op
		opset int
		want  string
	}{
		{"avgpool dilations", &canon.AveragePool{Kernel: []int64{2, 2}, Strides: []int64{1, 1}, Dilations: []int64{2, 2}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}, 17, "opset 19"},
		// A 0 in the target that allowzero keeps (x is 0x72 here, see graph).
		{"reshape allowzero", &canon.Reshape{Shape: []int64{72, 0}, AllowZero: true}, 13, "opset 14"},
		{"tf_half_pixel_for_nn", &canon.Resize{Scales: []float32{1, 1, 2, 2}, CoordTransform: canon.TFHalfPixelForNN, Nearest: canon.Ceil}, 13, "opsets 11 and 12"},
		{"opset 10", &canon.Identity{}, 10, "opsets 11 to 26"},
		{"opset 27", &canon.Identity{}, 27, "opsets 11 to 26"},
	}
	graph := func(op canon.Op) *canon.Graph {
		g := smallGraph(op)
		if _, ok := op.(*canon.Reshape); ok {
			g.Inputs[0].Shape = canon.DimsOf(0, 72)
		}
		return g
	}
	for _, c := range cases {
		dir := t.TempDir()
		fresh := filepath.Join(dir, "new.onnx")
		err := Write(graph(c.op), fresh, formats.WriteOptions{Opset: c.opset})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
			continue
		}
		if c.opset >= MinOpset && c.opset <= MaxOpset && !strings.Contains(err.Error(), "the_node") {
			t.Errorf("%s: error does not name the node: %v", c.name, err)
		}
		t.Logf("%s: %v", c.name, err)
		old := filepath.Join(dir, "old.onnx")
		if err := os.WriteFile(old, []byte("previous model"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Write(graph(c.op), old, formats.WriteOptions{Opset: c.opset, ExternalData: true}); err == nil {
			t.Fatalf("%s: second write succeeded", c.name)
		}
		if b, _ := os.ReadFile(old); string(b) != "previous model" {
			t.Errorf("%s: existing file changed to %q", c.name, b)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("%s: files left behind: %v", c.name, names)
		}
	}
	// Allowzero without a zero in the shape changes nothing: written.
	if err := Write(smallGraph(&canon.Reshape{Shape: []int64{1, 72}, AllowZero: true}), filepath.Join(t.TempDir(), "m.onnx"), formats.WriteOptions{Opset: 11}); err != nil {
		t.Errorf("allowzero without zeros: %v", err)
	}
}

// TestWriteFailureKeepsOld makes the final rename fail (the target is a
// folder) after every byte was written, inline and with external data, and
// checks that nothing changed and no temporary file is left.
func TestWriteFailureKeepsOld(t *testing.T) {
	for _, ext := range []bool{false, true} {
		dir := t.TempDir()
		p := filepath.Join(dir, "m.onnx")
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p+".data", []byte("old data"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := Write(allOpsGraph(), p, formats.WriteOptions{ExternalData: ext})
		if err == nil || !strings.Contains(err.Error(), "m.onnx") {
			t.Fatalf("ext=%v: write over a folder: %v", ext, err)
		}
		if b, _ := os.ReadFile(p + ".data"); string(b) != "old data" {
			t.Errorf("ext=%v: old data file changed", ext)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 2 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("ext=%v: files left: %v", ext, names)
		}
	}
}

// TestAutoExternal checks that a model over protobuf's 2 GiB limit is laid
// out with external data (without writing gigabytes).
func TestAutoExternal(t *testing.T) {
	buf := make([]byte, 64<<20)
	var ts []*canon.Tensor
	for i := 0; i < 33; i++ {
		ts = append(ts, &canon.Tensor{Name: "w" + string(rune('a'+i)), DType: canon.Float32, Shape: []int64{16 << 20}, Data: buf})
	}
	lay, err := layOut(ts, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if size := modelSize(nil, nil, lay); size <= protoLimit {
		t.Fatalf("inline size %d not over the limit", size)
	}
	lay, err = layOut(ts, &externalPlan{}, "m.onnx.data")
	if err != nil {
		t.Fatal(err)
	}
	if size := modelSize(nil, nil, lay); size > 1<<20 {
		t.Fatalf("external layout still %d bytes", size)
	}
	if lay.extSize != 33*int64(len(buf)) || len(lay.extents) != 33 || lay.extents[1].offset != int64(len(buf)) {
		t.Fatalf("extents %d, size %d", len(lay.extents), lay.extSize)
	}
}

func TestMalformed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.onnx")
	g := smallGraph(&canon.Identity{})
	g.Nodes = append(g.Nodes, nil)
	for _, bad := range []*canon.Graph{nil, g, {Nodes: []*canon.Node{{Name: "n", Op: &canon.Concat{}, Outputs: []string{"y"}}}}} {
		if err := Write(bad, p, formats.WriteOptions{}); err == nil {
			t.Errorf("malformed graph written")
		}
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("file left behind")
	}
}

func TestRegistered(t *testing.T) {
	e, err := formats.FindExporter("x/model.ONNX", "")
	if err != nil || e.Name != "onnx" {
		t.Fatalf("FindExporter: %v %v", e, err)
	}
}
