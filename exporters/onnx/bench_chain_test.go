package onnxexport

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
)

// chainNodes is the depth of BenchmarkChainRoundTrip's graph.
const chainNodes = 1_000_000

// chainModel writes a chain of n nodes cycling through Relu, Neg and Add
// of a one-element constant, named as torch.onnx names them ("Relu_7"
// writing value "7"), and returns its path.
func chainModel(b *testing.B, n int) string {
	b.Helper()
	c := canon.NewFloat32Tensor("c", []int64{1}, []float32{0.5})
	g := &canon.Graph{
		Name:         "chain",
		Inputs:       []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 4), RankKnown: true}},
		Outputs:      []canon.ValueInfo{{Name: "y", DType: canon.Float32, Shape: canon.DimsOf(1, 4), RankKnown: true}},
		Initializers: []*canon.Tensor{c},
		Nodes:        make([]*canon.Node, 0, n),
	}
	prev := "x"
	for i := 1; i <= n; i++ {
		out := strconv.Itoa(i)
		if i == n {
			out = "y"
		}
		var nd *canon.Node
		switch i % 3 {
		case 0:
			nd = &canon.Node{Name: "Relu_" + out, Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{prev}}
		case 1:
			nd = &canon.Node{Name: "Neg_" + out, Op: &canon.Math{Fn: canon.MathNeg}, Inputs: []string{prev}}
		default:
			nd = &canon.Node{Name: "Add_" + out, Op: &canon.Binary{Fn: canon.Add}, Inputs: []string{prev, "c"}}
		}
		nd.Outputs = []string{out}
		g.Nodes = append(g.Nodes, nd)
		prev = out
	}
	path := filepath.Join(b.TempDir(), "chain.onnx")
	if err := Write(g, path, formats.WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkChainRoundTrip imports a 10^6-node chain and writes it back, per
// iteration (run with -benchtime 1x -benchmem). Goal: the peak memory
// growth per node (peak-B/node) stays near what the canonical graph and
// its type table need, with no copy of the file's nodes or of the output
// held beside them.
func BenchmarkChainRoundTrip(b *testing.B) {
	src := chainModel(b, chainNodes)
	dst := filepath.Join(b.TempDir(), "out.onnx")
	resetPeak()
	before := procStatus("VmRSS")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := onnximport.Read(src, formats.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := Write(g, dst, formats.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := g.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if peak := procStatus("VmHWM"); peak > 0 {
		b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		b.ReportMetric(float64(peak-before)/chainNodes, "peak-B/node")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/chainNodes, "ns/node")
}
