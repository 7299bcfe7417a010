package onnximport

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// externalModel writes convModel with w stored in a data file at location
// (relative to the model's folder) and returns the model path.
func externalModel(t *testing.T, dir, location string, offset, length int64) string {
	t.Helper()
	s := convModel()
	w := s.inits[0]
	w.RawData = nil
	w.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
	kv := func(k, v string) *onnxpb.StringStringEntryProto {
		return &onnxpb.StringStringEntryProto{Key: proto.String(k), Value: proto.String(v)}
	}
	w.ExternalData = []*onnxpb.StringStringEntryProto{kv("location", location), kv("offset", strconv.FormatInt(offset, 10))}
	if length >= 0 {
		w.ExternalData = append(w.ExternalData, kv("length", strconv.FormatInt(length, 10)))
	}
	b, err := proto.Marshal(s.model())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// weightBytes is w's data from convModel, after 100 bytes of padding.
func weightFile(t *testing.T, path string) {
	t.Helper()
	data := append(make([]byte, 100), convModel().inits[0].RawData...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExternalData(t *testing.T) {
	dir := t.TempDir()
	weightFile(t, filepath.Join(dir, "data", "weights.bin"))
	for _, length := range []int64{216, -1} {
		p := externalModel(t, dir, "data/weights.bin", 100, length)
		g, err := Read(p, formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := g.Initializer("w").Float64s()
		want := make([]float64, 54)
		for i := range want {
			want[i] = float64(i)
		}
		if !reflect.DeepEqual(got, want) || g.Initializer("w").Layout != "OIHW" {
			t.Errorf("external weights %v", got)
		}
		g.Close()
	}

	// The standalone reader resolves it too.
	mp := new(onnxpb.ModelProto)
	b, _ := os.ReadFile(externalModel(t, dir, "data/weights.bin", 100, 216))
	proto.Unmarshal(b, mp)
	tt, err := ReadTensorProto(mp.Graph.Initializer[0], dir)
	if err != nil || len(tt.Data) != 216 {
		t.Errorf("ReadTensorProto: %v", err)
	}
}

func TestExternalDataRefused(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "model")
	weightFile(t, filepath.Join(root, "secret.bin"))
	weightFile(t, filepath.Join(dir, "weights.bin"))
	if err := os.Symlink(filepath.Join(root, "secret.bin"), filepath.Join(dir, "link.bin")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		loc            string
		offset, length int64
		want           string
	}{
		{"../secret.bin", 100, 216, `location "../secret.bin" leads outside the model's folder`},
		{filepath.Join(root, "secret.bin"), 100, 216, "is an absolute path"},
		{"link.bin", 100, 216, "through a symlink"},
		{"weights.bin", 200, 216, "lies past the end of weights.bin"},
		{"weights.bin", 1 << 62, 216, "lies past the end"},
		{"weights.bin", 100, 200, "has length 200 but the tensor needs 216 bytes"},
		{"missing.bin", 0, 216, `"missing.bin" not found`},
	}
	for _, c := range cases {
		p := externalModel(t, dir, c.loc, c.offset, c.length)
		g, err := Read(p, formats.ReadOptions{})
		if err == nil {
			g.Close()
			t.Errorf("%s: imported", c.loc)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, `tensor "w"`) || !strings.HasPrefix(msg, p) {
			t.Errorf("%s: error %q, want it to name the file, the tensor and %q", c.loc, msg, c.want)
		}
	}
}
