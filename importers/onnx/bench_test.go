package onnximport

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// BenchmarkRead imports a 64 MB model: 16 convolutions with 4 MB weights.
// Weights are mapped, not copied, so the time is that of parsing the small
// rest of the file, inference and validation.
func BenchmarkRead(b *testing.B) {
	s := graphSpec{inputs: []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 1, 256, 8, 8)}}
	prev := "x"
	for i := 0; i < 16; i++ {
		w, out := fmt.Sprintf("w%d", i), fmt.Sprintf("c%d", i)
		s.inits = append(s.inits, &onnxpb.TensorProto{Name: proto.String(w), DataType: proto.Int32(tFloat),
			Dims: []int64{256, 256, 4, 4}, RawData: make([]byte, 256*256*16*4)})
		s.nodes = append(s.nodes, node("Conv", "", []string{prev, w}, []string{out}, aInts("pads", 1, 1, 2, 2)))
		prev = out
	}
	s.outputs = []*onnxpb.ValueInfoProto{vinfo(prev, tFloat, 1, 256, 8, 8)}
	path := write(b, s.model())
	b.SetBytes(int64(16 * 256 * 256 * 16 * 4))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := Read(path, formats.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		g.Close()
	}
}
