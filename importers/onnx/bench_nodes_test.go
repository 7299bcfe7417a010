package onnximport

import (
	"fmt"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// BenchmarkReadNodes imports chains of 10^3 to 10^5 Relu nodes: the time
// per node (ns/node) must stay flat as the count grows, so that a 10^6-node
// model costs ten times a 10^5-node one and no more.
func BenchmarkReadNodes(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := graphSpec{inputs: []*onnxpb.ValueInfoProto{vinfo("v0", tFloat, 1, 4)}}
			for i := 0; i < n; i++ {
				out := fmt.Sprintf("v%d", i+1)
				s.nodes = append(s.nodes, node("Relu", fmt.Sprintf("r%d", i), []string{fmt.Sprintf("v%d", i)}, []string{out}))
			}
			s.outputs = []*onnxpb.ValueInfoProto{vinfo(fmt.Sprintf("v%d", n), tFloat, 1, 4)}
			path := write(b, s.model())
			b.ResetTimer()
			for b.Loop() {
				g, err := Read(path, formats.ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				g.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
		})
	}
}
