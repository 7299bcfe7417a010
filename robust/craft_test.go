package robust

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/pickle"
)

// Files crafted to declare far more data than they hold, or to nest far
// deeper than any real model: each is a few hundred bytes.

const huge = 1 << 40

// onnxWith is a minimal ONNX model: x -> Add(x, w) -> y, with w as given.
func onnxWith(t testing.TB, w *onnxpb.TensorProto) []byte {
	t.Helper()
	m := &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}},
		Graph: &onnxpb.GraphProto{
			Name:        proto.String("g"),
			Node:        []*onnxpb.NodeProto{{OpType: proto.String("Add"), Name: proto.String("add"), Input: []string{"x", "w"}, Output: []string{"y"}}},
			Input:       []*onnxpb.ValueInfoProto{valueInfo("x")},
			Output:      []*onnxpb.ValueInfoProto{valueInfo("y")},
			Initializer: []*onnxpb.TensorProto{w},
		},
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func valueInfo(name string) *onnxpb.ValueInfoProto {
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(1), Shape: &onnxpb.TensorShapeProto{Dim: []*onnxpb.TensorShapeProto_Dimension{{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 1}}}}},
	}}}
}

func floatTensor(dims ...int64) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String("w"), DataType: proto.Int32(1), Dims: dims}
}

// absurdONNX declares a 4 TiB weight in several ways.
func absurdONNX(t testing.TB) []Damaged {
	raw := floatTensor(huge)
	raw.RawData = make([]byte, 4)
	typed := floatTensor(huge)
	typed.FloatData = []float32{1}
	overflow := floatTensor(huge, huge, huge)
	overflow.RawData = make([]byte, 4)
	ext := floatTensor(huge)
	ext.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
	ext.ExternalData = []*onnxpb.StringStringEntryProto{
		{Key: proto.String("location"), Value: proto.String("model.onnx")},
		{Key: proto.String("length"), Value: proto.String("4398046511104")},
	}
	return []Damaged{
		{"huge-raw-data", onnxWith(t, raw)},
		{"huge-typed-data", onnxWith(t, typed)},
		{"overflowing-shape", onnxWith(t, overflow)},
		{"huge-external-data", onnxWith(t, ext)},
	}
}

// nestedONNX is a model whose node holds a graph attribute whose node
// holds a graph attribute... depth times, built inside out.
func nestedONNX(t testing.TB, depth int) []byte {
	t.Helper()
	g := []byte{}
	for i := 0; i < depth; i++ {
		var attr []byte
		attr = protowire.AppendTag(attr, 1, protowire.BytesType) // name
		attr = protowire.AppendString(attr, "then_branch")
		attr = protowire.AppendTag(attr, 20, protowire.VarintType) // type
		attr = protowire.AppendVarint(attr, 5)                     // GRAPH
		attr = protowire.AppendTag(attr, 6, protowire.BytesType)   // g
		attr = protowire.AppendBytes(attr, g)
		var node []byte
		node = protowire.AppendTag(node, 4, protowire.BytesType) // op_type
		node = protowire.AppendString(node, "If")
		node = protowire.AppendTag(node, 5, protowire.BytesType) // attribute
		node = protowire.AppendBytes(node, attr)
		g = protowire.AppendTag(nil, 1, protowire.BytesType) // GraphProto.node
		g = protowire.AppendBytes(g, node)
	}
	var m []byte
	m = protowire.AppendTag(m, 1, protowire.VarintType)
	m = protowire.AppendVarint(m, 8)
	var opset []byte
	opset = protowire.AppendTag(opset, 2, protowire.VarintType)
	opset = protowire.AppendVarint(opset, 13)
	m = protowire.AppendTag(m, 8, protowire.BytesType)
	m = protowire.AppendBytes(m, opset)
	m = protowire.AppendTag(m, 7, protowire.BytesType)
	return protowire.AppendBytes(m, g)
}

// absurdNPY declares a 4 TiB array in a 128-byte file.
func absurdNPY() []byte {
	h := "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }"
	h += strings.Repeat(" ", 64-(10+len(h)+1)%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	b.Write(make([]byte, 16))
	return b.Bytes()
}

// absurdTensorPB declares 4 TiB in a TensorProto .pb file.
func absurdTensorPB(t testing.TB) []Damaged {
	raw := floatTensor(huge)
	raw.RawData = make([]byte, 4)
	typed := floatTensor(huge)
	typed.FloatData = []float32{1}
	var out []Damaged
	for _, c := range []struct {
		name string
		tp   *onnxpb.TensorProto
	}{{"huge-raw-data", raw}, {"huge-typed-data", typed}, {"overflowing-shape", floatTensor(huge, huge, huge)}} {
		b, err := proto.Marshal(c.tp)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Damaged{c.name, b})
	}
	return out
}

// mxList builds an NDArray list file from raw records.
func mxList(records [][]byte, names []string) []byte {
	le := binary.LittleEndian
	b := le.AppendUint64(nil, 0x112)
	b = le.AppendUint64(b, 0)
	b = le.AppendUint64(b, uint64(len(records)))
	for _, r := range records {
		b = append(b, r...)
	}
	b = le.AppendUint64(b, uint64(len(names)))
	for _, n := range names {
		b = le.AppendUint64(b, uint64(len(n)))
		b = append(b, n...)
	}
	return b
}

// absurdParams declares huge arrays in MXNet params files: a dense V2
// record, a row_sparse record whose dense shape is huge (densification),
// and a list claiming 2^40 arrays.
func absurdParams() []Damaged {
	le := binary.LittleEndian
	var dense []byte
	dense = le.AppendUint32(dense, 0xF993fac9) // V2
	dense = le.AppendUint32(dense, 0)          // default storage
	dense = le.AppendUint32(dense, 1)          // rank
	dense = le.AppendUint64(dense, huge)
	dense = le.AppendUint32(dense, 1) // cpu
	dense = le.AppendUint32(dense, 0)
	dense = le.AppendUint32(dense, 0) // float32
	dense = append(dense, make([]byte, 16)...)

	var sparse []byte
	sparse = le.AppendUint32(sparse, 0xF993fac9)
	sparse = le.AppendUint32(sparse, 1) // row_sparse
	sparse = le.AppendUint32(sparse, 2) // storage shape (0, 1024)
	sparse = le.AppendUint64(sparse, 0)
	sparse = le.AppendUint64(sparse, 1024)
	sparse = le.AppendUint32(sparse, 2) // shape (2^30, 1024): 4 TiB dense
	sparse = le.AppendUint64(sparse, 1<<30)
	sparse = le.AppendUint64(sparse, 1024)
	sparse = le.AppendUint32(sparse, 1)
	sparse = le.AppendUint32(sparse, 0)
	sparse = le.AppendUint32(sparse, 0) // float32
	sparse = le.AppendUint32(sparse, 6) // int64 row indices, shape (0,)
	sparse = le.AppendUint32(sparse, 1)
	sparse = le.AppendUint64(sparse, 0)

	count := mxList(nil, nil)
	count = PatchUint64(count, 16, huge)
	return []Damaged{
		{"huge-dense-array", mxList([][]byte{dense}, []string{"arg:w"})},
		{"huge-sparse-array", mxList([][]byte{sparse}, []string{"arg:w"})},
		{"huge-array-count", count},
	}
}

// absurdSymbol asks for huge layers in a symbol JSON that has no params.
func absurdSymbol() []Damaged {
	sym := `{"nodes": [{"op": "null", "name": "data", "inputs": []},
 {"op": "BatchNorm", "name": "bn", "attrs": {"fix_gamma": "True"}, "inputs": [[0, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0]]},
 {"op": "null", "name": "bn_gamma", "attrs": {"__shape__": "(1099511627776,)"}, "inputs": []},
 {"op": "null", "name": "bn_beta", "attrs": {"__shape__": "(1099511627776,)"}, "inputs": []},
 {"op": "null", "name": "bn_moving_mean", "attrs": {"__shape__": "(1099511627776,)"}, "inputs": []},
 {"op": "null", "name": "bn_moving_var", "attrs": {"__shape__": "(1099511627776,)"}, "inputs": []}],
 "arg_nodes": [0, 2, 3, 4, 5], "heads": [[1, 0, 0]], "attrs": {"mxnet_version": ["int", 10300]}}`
	fc := `{"nodes": [{"op": "null", "name": "data", "attrs": {"__shape__": "(1099511627776, 1099511627776)"}, "inputs": []},
 {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "1099511627776"}, "inputs": [[0, 0, 0], [2, 0, 0], [3, 0, 0]]},
 {"op": "null", "name": "fc_weight", "inputs": []}, {"op": "null", "name": "fc_bias", "inputs": []}],
 "arg_nodes": [0, 2, 3], "heads": [[1, 0, 0]]}`
	return []Damaged{{"huge-fix-gamma", []byte(sym)}, {"huge-fully-connected", []byte(fc)}}
}

// deepJSON nests arrays 100000 deep where the nodes list belongs.
func deepJSON() []byte {
	return []byte(`{"nodes": ` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `, "heads": [[0, 0, 0]]}`)
}

// deepPickles are pickles that pile up 100000 marks and lists, and that
// nest lists 100000 deep.
func deepPickles() []Damaged {
	marks := append([]byte("\x80\x02"), bytes.Repeat([]byte("(]"), 100000)...)
	marks = append(marks, '.')
	nested := append([]byte("\x80\x02"), bytes.Repeat([]byte("]"), 100000)...)
	nested = append(nested, bytes.Repeat([]byte("a"), 99999)...)
	nested = append(nested, '.')
	return []Damaged{{"100000-marks", marks}, {"nested-100000-deep", nested}}
}

// torchZip is a torch.save zip archive holding data.pkl and its version.
func torchZip(t testing.TB, pkl []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range []struct {
		name string
		data []byte
	}{{"archive/data.pkl", pkl}, {"archive/version", []byte("3\n")}} {
		fw, err := w.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(f.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// legacyStorageSizes returns the offsets of the int64 element counts that
// precede each storage's bytes in a legacy (pre-1.6) torch file: after
// five pickles (magic, protocol, sys info, object, storage keys) come, per
// storage, a count and the data.
func legacyStorageSizes(b []byte) []int {
	off := 0
	var keys pickle.Value
	for i := 0; i < 5; i++ {
		v, n, err := pickle.Decode(b[off:], pickle.Options{
			FindClass:      func(m, n string) (pickle.Value, error) { return &pickle.Global{Module: m, Name: n}, nil },
			PersistentLoad: func(pid pickle.Value) (pickle.Value, error) { return pid, nil },
		})
		if err != nil {
			return nil
		}
		off += n
		keys = v
	}
	l, ok := keys.(*pickle.List)
	if !ok || len(l.Items) == 0 || off+8 > len(b) {
		return nil
	}
	return []int{off}
}

// zipEntrySizes patches the uncompressed size in every central directory
// record of a zip archive to v (signature 0x02014b50; the size sits at
// offset 24 of the record).
func zipEntrySizes(b []byte, v uint32) []byte {
	c := bytes.Clone(b)
	sig := []byte{0x50, 0x4b, 0x01, 0x02}
	for i := 0; ; {
		k := bytes.Index(c[i:], sig)
		if k < 0 || i+k+28 > len(c) {
			return c
		}
		binary.LittleEndian.PutUint32(c[i+k+24:], v)
		i += k + 4
	}
}
