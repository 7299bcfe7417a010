package caffeimport

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/caffepb"
	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

const fuzzNet = `name: "fuzz"
input: "data"
input_dim: 1 input_dim: 2 input_dim: 4 input_dim: 4
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 2 kernel_size: 3 pad: 1 } }
layer { name: "bn" type: "BatchNorm" bottom: "conv" top: "conv" }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool" pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "ip" type: "InnerProduct" bottom: "pool" top: "ip" inner_product_param { num_output: 2 } }
layer { name: "prob" type: "Softmax" bottom: "ip" top: "prob" }
`

func fuzzModel(f *testing.F) []byte {
	ones := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1
		}
		return v
	}
	net := &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{
		{Name: proto.String("conv"), Blobs: []*caffepb.BlobProto{blob([]int64{2, 2, 3, 3}, ones(36)...), blob([]int64{2}, 0, 1)}},
		{Name: proto.String("bn"), Blobs: []*caffepb.BlobProto{blob([]int64{2}, 0, 0), blob([]int64{2}, 1, 1), blob([]int64{1}, 1)}},
		{Name: proto.String("ip"), Blobs: []*caffepb.BlobProto{blob([]int64{2, 8}, ones(16)...), blob([]int64{2}, 0, 0)}},
	}}
	b, err := proto.Marshal(net)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzRead reads a prototxt with (when model is not empty) a caffemodel
// beside it, both fuzzed, through the importer's Read.
func FuzzRead(f *testing.F) {
	model := fuzzModel(f)
	f.Add([]byte(fuzzNet), model)
	f.Add([]byte(fuzzNet), []byte{})
	for _, s := range readcheck.Seeds(4<<10, "caffe/*/*.prototxt") {
		f.Add(s, []byte{})
	}
	for _, m := range readcheck.Seeds(32<<10, "caffe/mtcnn/det1.caffemodel") {
		for _, s := range readcheck.Seeds(8<<10, "caffe/mtcnn/det1.prototxt") {
			f.Add(s, m)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text, model []byte) {
		textPath := filepath.Join(dir, "fuzz.prototxt")
		modelPath := filepath.Join(dir, "fuzz.caffemodel")
		if err := os.WriteFile(textPath, text, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(modelPath)
		if len(model) > 0 {
			if err := os.WriteFile(modelPath, model, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g, err := Read(textPath, formats.ReadOptions{})
		readcheck.CheckError(t, err)
		if err == nil {
			readcheck.CheckGraph(t, g, len(text)+len(model))
			g.Close()
		}
		// The caffemodel alone carries its own net definition.
		if len(model) > 0 {
			os.Remove(textPath)
			g, err := Read(modelPath, formats.ReadOptions{})
			readcheck.CheckError(t, err)
			if err == nil {
				readcheck.CheckGraph(t, g, len(model))
				g.Close()
			}
		}
	})
}
