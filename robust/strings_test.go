package robust

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/interp"
)

// Hostile string tensors: counts that do not match the shape, strings in
// raw_data, text that is not UTF-8, and inputs small on disk that would
// make huge strings. Each gets a clear error (or, for bytes that are not
// UTF-8 where no op needs text, the right answer), with bounded memory.

const onnxString = 8

func stringInfo(name string, elem int32, dims ...int64) *onnxpb.ValueInfoProto {
	v := tensorInfo(name, dims...)
	v.GetType().GetTensorType().ElemType = proto.Int32(elem)
	return v
}

func stringProto(name string, dims []int64, v ...string) *onnxpb.TensorProto {
	t := &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(onnxString), Dims: dims}
	for _, s := range v {
		t.StringData = append(t.StringData, []byte(s))
	}
	return t
}

// stringModel writes a one-node model at opset 20 and returns its path.
func stringModel(t *testing.T, node *onnxpb.NodeProto, inputs, outputs []*onnxpb.ValueInfoProto, inits ...*onnxpb.TensorProto) string {
	t.Helper()
	node.Name = proto.String("n")
	m := &onnxpb.ModelProto{
		IrVersion:   proto.Int64(9),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(20)}},
		Graph: &onnxpb.GraphProto{Name: proto.String("g"), Node: []*onnxpb.NodeProto{node},
			Input: inputs, Output: outputs, Initializer: inits},
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readModel(t *testing.T, path string) (*canon.Graph, error) {
	return onnximport.Read(path, formats.ReadOptions{})
}

// runWithin runs path's model on inputs under a memory limit, returning
// the error and how long it took.
func runWithin(t *testing.T, path string, limit int64, inputs map[string]*canon.Tensor) (map[string]*canon.Tensor, error, time.Duration) {
	t.Helper()
	g, err := readModel(t, path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	old := interp.MaxMemory
	interp.MaxMemory = limit
	defer func() { interp.MaxMemory = old }()
	start := time.Now()
	p, err := interp.New(g)
	if err != nil {
		return nil, err, time.Since(start)
	}
	out, err := p.Run(inputs)
	return out, err, time.Since(start)
}

func TestStringTensorCountsAndStorage(t *testing.T) {
	concat := &onnxpb.NodeProto{OpType: proto.String("StringConcat"), Input: []string{"x", "w"}, Output: []string{"y"}}
	in := []*onnxpb.ValueInfoProto{stringInfo("x", onnxString, 3)}
	out := []*onnxpb.ValueInfoProto{stringInfo("y", onnxString, 3)}
	short := stringProto("w", []int64{3}, "a", "b")
	huge := stringProto("w", []int64{1 << 40}, "a")
	raw := stringProto("w", []int64{3})
	raw.RawData = []byte("abc")
	for _, c := range []struct {
		name string
		w    *onnxpb.TensorProto
		want string
	}{
		{"fewer strings than the shape", short, "needs 3 strings but string_data holds 2"},
		{"a 2^40-element shape", huge, "needs 1099511627776 strings but string_data holds 1"},
		{"strings in raw_data", raw, "must hold its elements in string_data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readModel(t, stringModel(t, concat, in, out, c.w))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"w"`) {
				t.Fatalf("want an error naming tensor w and saying %q, got %v", c.want, err)
			}
		})
	}
	// The same as a test-data file.
	p := filepath.Join(t.TempDir(), "input_0.pb")
	b, _ := proto.Marshal(huge)
	os.WriteFile(p, b, 0o644)
	if _, err := onnxtensor.ReadFile(p); err == nil || !strings.Contains(err.Error(), "string_data holds 1") {
		t.Fatalf("want a count error, got %v", err)
	}
	// A canonical tensor whose strings do not match its shape is refused
	// by the interpreter, naming the input.
	bad := &canon.Tensor{Name: "x", DType: canon.String, Shape: []int64{3}, Strings: []string{"a"}}
	w := stringProto("w", []int64{3}, "a", "b", "c")
	_, err, _ := runWithin(t, stringModel(t, concat, in, out, w), 1<<30, map[string]*canon.Tensor{"x": bad})
	if err == nil || !strings.Contains(err.Error(), `input "x"`) || !strings.Contains(err.Error(), "needs 3 strings") {
		t.Fatalf("want an error naming input x, got %v", err)
	}
}

// A long string broadcast against many elements, and a string split into
// a great many pieces, would need gigabytes: the memory budget stops both
// quickly, naming the node.
func TestHugeStringResultsStopAtTheBudget(t *testing.T) {
	const limit = 256 << 20
	concat := &onnxpb.NodeProto{OpType: proto.String("StringConcat"), Input: []string{"x", "y"}, Output: []string{"z"}}
	path := stringModel(t, concat, []*onnxpb.ValueInfoProto{stringInfo("x", onnxString, 1), stringInfo("y", onnxString, 200000)},
		[]*onnxpb.ValueInfoProto{stringInfo("z", onnxString, 200000)})
	long := canon.NewStringTensor("x", nil, []string{strings.Repeat("a", 1<<20)})
	many := canon.NewStringTensor("y", nil, make([]string, 200000))
	_, err, took := runWithin(t, path, limit, map[string]*canon.Tensor{"x": long, "y": many})
	if !errors.Is(err, interp.ErrMemory) || !strings.Contains(err.Error(), `"n"`) {
		t.Fatalf("StringConcat of 1 MiB × 200000: want a memory error naming node n, got %v", err)
	}
	if took > 10*time.Second {
		t.Errorf("the refusal took %v", took)
	}

	split := &onnxpb.NodeProto{OpType: proto.String("StringSplit"), Input: []string{"x"}, Output: []string{"s", "n"},
		Attribute: []*onnxpb.AttributeProto{{Name: proto.String("delimiter"), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(".")}}}
	path = stringModel(t, split, []*onnxpb.ValueInfoProto{stringInfo("x", onnxString, 20000)},
		[]*onnxpb.ValueInfoProto{stringInfo("s", onnxString, 20000, 20001), stringInfo("n", 7, 20000)})
	x := make([]string, 20000)
	x[0] = strings.Repeat(".", 20000) // 20001 pieces: 20000 × 20001 elements, mostly padding
	_, err, _ = runWithin(t, path, limit, map[string]*canon.Tensor{"x": canon.NewStringTensor("x", nil, x)})
	if !errors.Is(err, interp.ErrMemory) {
		t.Fatalf("StringSplit to 4e8 elements: want a memory error, got %v", err)
	}
}

// ONNX strings are bytes: ops that only move or compare bytes take any,
// ops that read text (case mapping, regular expressions) refuse what is
// not UTF-8, naming the element.
func TestStringsThatAreNotUTF8(t *testing.T) {
	bad := "ok\xff\xfe"
	x := canon.NewStringTensor("x", nil, []string{"a", bad})
	in := []*onnxpb.ValueInfoProto{stringInfo("x", onnxString, 2)}

	concat := &onnxpb.NodeProto{OpType: proto.String("StringConcat"), Input: []string{"x", "x"}, Output: []string{"y"}}
	out, err, _ := runWithin(t, stringModel(t, concat, in, []*onnxpb.ValueInfoProto{stringInfo("y", onnxString, 2)}), 1<<30, map[string]*canon.Tensor{"x": x})
	if err != nil || out["y"].Strings[1] != bad+bad {
		t.Fatalf("StringConcat of bytes: got %v, %v", out, err)
	}
	eq := &onnxpb.NodeProto{OpType: proto.String("Equal"), Input: []string{"x", "x"}, Output: []string{"y"}}
	out, err, _ = runWithin(t, stringModel(t, eq, in, []*onnxpb.ValueInfoProto{stringInfo("y", 9, 2)}), 1<<30, map[string]*canon.Tensor{"x": x})
	if err != nil || string(out["y"].Data) != "\x01\x01" {
		t.Fatalf("Equal of bytes: got %v, %v", out, err)
	}

	attr := func(name, v string) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
	}
	for _, n := range []*onnxpb.NodeProto{
		{OpType: proto.String("RegexFullMatch"), Input: []string{"x"}, Output: []string{"y"}, Attribute: []*onnxpb.AttributeProto{attr("pattern", "ok.*")}},
		{OpType: proto.String("StringNormalizer"), Input: []string{"x"}, Output: []string{"y"}, Attribute: []*onnxpb.AttributeProto{attr("case_change_action", "UPPER")}},
	} {
		elem := int32(onnxString)
		if n.GetOpType() == "RegexFullMatch" {
			elem = 9
		}
		_, err, _ := runWithin(t, stringModel(t, n, in, []*onnxpb.ValueInfoProto{stringInfo("y", elem, 2)}), 1<<30, map[string]*canon.Tensor{"x": x})
		if err == nil || !strings.Contains(err.Error(), "element 1") || !strings.Contains(err.Error(), "UTF-8") {
			t.Errorf("%s: want an error naming element 1 as not UTF-8, got %v", n.GetOpType(), err)
		}
	}
}

// Attributes that would make TfIdfVectorizer allocate or loop without end
// are refused when the model is read, or cost nothing.
func TestTfIdfHostileAttributes(t *testing.T) {
	ints := func(name string, v ...int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
	}
	one := func(name string, v int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
	}
	node := func(indexes []int64, skip int64) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String("TfIdfVectorizer"), Input: []string{"x"}, Output: []string{"y"},
			Attribute: []*onnxpb.AttributeProto{
				{Name: proto.String("mode"), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte("TF")},
				one("min_gram_length", 2), one("max_gram_length", 2), one("max_skip_count", skip),
				ints("ngram_counts", 0, 0), ints("ngram_indexes", indexes...), ints("pool_int64s", 5, 6),
			}}
	}
	in := []*onnxpb.ValueInfoProto{stringInfo("x", 7, 12)}
	out := []*onnxpb.ValueInfoProto{stringInfo("y", 1, 1)}
	if _, err := readModel(t, stringModel(t, node([]int64{1 << 40}, 0), in, out)); err == nil || !strings.Contains(err.Error(), "ngram_indexes") {
		t.Fatalf("an output index of 2^40: want an error naming ngram_indexes, got %v", err)
	}
	x := canon.NewInt64Tensor("x", nil, []int64{5, 1, 6, 5, 6, 2, 2, 2, 5, 2, 2, 6})
	res, err, took := runWithin(t, stringModel(t, node([]int64{0}, 1<<62), in, out), 1<<30, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	// Every 5 before a 6, at any gap: 5s at 0, 3, 8 and 6s at 2, 4, 11.
	if v, _ := res["y"].Float64s(); len(v) != 1 || v[0] != 6 || took > 5*time.Second {
		t.Fatalf("skip count 2^62: got %v in %v, want [6] at once", v, took)
	}
}
