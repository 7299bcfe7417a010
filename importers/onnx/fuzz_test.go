package onnximport

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// padToMapping appends an unknown ModelProto field so that the file is big
// enough to be memory-mapped; readers keep unknown fields, so the model's
// meaning does not change.
func padToMapping(b []byte) []byte {
	out := append([]byte{}, b...)
	out = protowire.AppendTag(out, 1000, protowire.BytesType)
	return protowire.AppendBytes(out, make([]byte, mmapfile.MinMapped))
}

// FuzzReadModelFile reads arbitrary bytes as a model file through Read, the
// path the CLI takes: files with an odd last byte are padded past mmapfile.MinMapped
// so that the memory-mapped path is fuzzed as well as the in-memory one.
func FuzzReadModelFile(f *testing.F) {
	good, _ := proto.Marshal(convModel().model())
	f.Add(good)
	f.Add(good[:len(good)/2])
	for _, b := range readcheck.Seeds(64<<10, "torch/*/model.onnx", "onnx-node/test_[a-c]*/model.onnx") {
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		file := b
		if len(b) > 0 && b[len(b)-1]&1 == 1 {
			file = padToMapping(b)
		}
		p := filepath.Join(dir, "fuzz.onnx")
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := Read(p, formats.ReadOptions{})
		readcheck.CheckError(t, err)
		if err == nil {
			readcheck.CheckGraph(t, g, len(b))
			g.Close()
		}
	})
}

// FuzzReadExternalData reads a model whose weights live in a data file,
// fuzzing both files.
func FuzzReadExternalData(f *testing.F) {
	s := convModel()
	w := s.inits[0]
	w.RawData = nil
	w.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
	w.ExternalData = []*onnxpb.StringStringEntryProto{
		{Key: proto.String("location"), Value: proto.String("fuzz.onnx.data")},
		{Key: proto.String("offset"), Value: proto.String("100")},
		{Key: proto.String("length"), Value: proto.String("216")},
	}
	model, err := proto.Marshal(s.model())
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	data := append(make([]byte, 100), convModel().inits[0].RawData...)
	f.Add(model, data)
	f.Add(model, data[:150])
	f.Fuzz(func(t *testing.T, model, data []byte) {
		p := filepath.Join(dir, "fuzz.onnx")
		if err := os.WriteFile(p, model, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p+".data", data, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := Read(p, formats.ReadOptions{})
		readcheck.CheckError(t, err)
		if err == nil {
			readcheck.CheckGraph(t, g, len(model)+len(data))
			g.Close()
		}
	})
}

// FuzzReadTensorFile reads arbitrary bytes as a serialized TensorProto (the
// .pb inputs of `run` and `check`).
func FuzzReadTensorFile(f *testing.F) {
	for _, tp := range convModel().inits {
		b, _ := proto.Marshal(tp)
		f.Add(b)
	}
	typed, _ := proto.Marshal(i64Tensor("shape", 1, 2, 3))
	f.Add(typed)
	for _, b := range readcheck.Seeds(16<<10, "torch/*/test_data_set_0/*.pb", "onnx-node/test_[a-c]*/test_data_set_0/*.pb") {
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "input_0.pb")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tt, err := ReadTensorFile(p)
		readcheck.CheckError(t, err)
		if err == nil {
			if n := int64(len(tt.Data)); n > int64(len(b))*readcheck.MaxBytesPerInputByte+readcheck.SlackBytes {
				t.Fatalf("a %d-byte file gave a %d-byte tensor", len(b), n)
			}
			if err := tt.CheckData(); err != nil {
				t.Fatalf("tensor read without error is inconsistent: %v", err)
			}
		}
	})
}
