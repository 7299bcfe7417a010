package pipeline

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/modelbridge/modelbridge/allformats"
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/optimize"
)

func tinyConvnet(t *testing.T) string {
	return filepath.Join(testfix.RepoRoot(), "testdata", "tiny_convnet.onnx")
}

// wholeONNX reads ONNX files whole: an importer without ReadCut, so that
// Extract takes the path of the formats that cannot read a cut.
var wholeONNX = sync1(func() {
	onnx, err := formats.FindImporter("", "onnx")
	if err != nil {
		panic(err)
	}
	formats.RegisterImporter(&formats.Importer{Name: "onnx-whole", Extensions: []string{".onnx-whole"}, Read: onnx.Read})
	formats.RegisterImporter(&formats.Importer{Name: "onnx-cut", Extensions: []string{".onnx-cut"}, Read: onnx.Read,
		ReadCut: func(path string, opts formats.ReadOptions, cut formats.Cut) (*canon.Graph, error) {
			cutsRead++
			return onnx.ReadCut(path, opts, cut)
		}})
})

// cutsRead counts the reads of the onnx-cut importer's ReadCut.
var cutsRead int

func sizes(dims []canon.Dim) string {
	var out []int64
	for _, d := range dims {
		out = append(out, d.Size)
	}
	return fmt.Sprint(out)
}

func sync1(f func()) func() {
	done := false
	return func() {
		if !done {
			done = true
			f()
		}
	}
}

// A cut read by the importer (ONNX's ReadCut) and a cut of the whole
// imported graph are the same nodes with the same typed inputs.
func TestExtractWithAndWithoutReadCut(t *testing.T) {
	wholeONNX()
	path := tinyConvnet(t)
	ins, outs := []string{"/Relu_output_0"}, []string{"/Relu_1_output_0"}
	for _, format := range []string{"", "onnx-whole", "onnx-cut"} {
		cut, total, err := Extract(path, format, formats.ReadOptions{}, ins, outs)
		if err != nil {
			t.Fatalf("%q: %v", format, err)
		}
		var kinds []string
		for _, n := range cut.Nodes {
			kinds = append(kinds, n.Op.Kind())
		}
		if total != 10 || !slices.Equal(kinds, []string{"Conv", "Relu"}) {
			t.Errorf("%q: %d of %d nodes %v, want Conv, Relu of 10", format, len(cut.Nodes), total, kinds)
		}
		if len(cut.Inputs) != 1 || cut.Inputs[0].Name != ins[0] || cut.Inputs[0].DType != canon.Float32 || sizes(cut.Inputs[0].Shape) != "[1 8 32 32]" {
			t.Errorf("%q: cut inputs %+v", format, cut.Inputs)
		}
		cut.Close()
	}
	if cutsRead != 2 { // the cut's inputs are typed by a first cut
		t.Errorf("ReadCut read %d cuts, want 2", cutsRead)
	}
	if _, _, err := Extract(path, "no-such-format", formats.ReadOptions{}, nil, outs); !errors.As(err, new(*UsageError)) {
		t.Errorf("unknown format: %v, want a usage error", err)
	}
}

func TestPlanApply(t *testing.T) {
	g, _, err := Read(tinyConvnet(t), "", formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	onnx, _ := formats.FindExporter("x.onnx", "")

	same, rep, err := Plan{}.Apply(g, onnx)
	if err != nil || same != g || rep.Bind != nil || rep.Optimize != nil || rep.Float16 != nil {
		t.Fatalf("an empty plan changed something: %v %+v", err, rep)
	}

	var seen []string
	plan := Plan{
		Optimize: &optimize.Options{Verify: true},
		Started:  func(s Step) { seen = append(seen, "start "+string(s)) },
		Finished: func(s Step, _ *Report, err error) { seen = append(seen, "end "+string(s)) },
	}
	opt, rep, err := plan.Apply(g, onnx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Optimize == nil || !rep.Optimize.Verified || len(opt.Nodes) >= len(g.Nodes) {
		t.Errorf("optimize: %d -> %d nodes, report %+v", len(g.Nodes), len(opt.Nodes), rep.Optimize)
	}
	if want := []string{"start optimize", "end optimize"}; !slices.Equal(seen, want) {
		t.Errorf("steps seen %v, want %v", seen, want)
	}

	// ONNX cannot record a kernel layout: the step fails, naming itself,
	// as a usage error.
	_, _, err = Plan{KernelLayout: "HWIO"}.Apply(g, onnx)
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepKernelLayout || !errors.As(err, new(*UsageError)) {
		t.Errorf("kernel layout for ONNX: %v", err)
	}
}

func TestRequireModelNamesWhereWeightsSit(t *testing.T) {
	for format, want := range map[string]string{"caffe": ".caffemodel", "mxnet": "-NNNN.params"} {
		g := &canon.Graph{Meta: canon.Metadata{SourceFormat: format, WeightsMissing: true}}
		err := RequireModel("m", g, true)
		if err == nil || !strings.Contains(err.Error(), "no matching "+want+" file") {
			t.Errorf("%s: %v", format, err)
		}
	}
	weights := &canon.Graph{Initializers: []*canon.Tensor{canon.NewFloat32Tensor("w", []int64{1}, []float32{1})}}
	if RequireModel("w.pt", weights, true) != nil || RequireModel("w.pt", weights, false) == nil {
		t.Error("weights without a graph: allowed only when asked")
	}
}

// An exporter that types its own copy gets the graph without the reader's
// value table; what it writes reads back the same.
func TestWriteDropsValueTableForOwnTyping(t *testing.T) {
	g, _, err := Read(tinyConvnet(t), "", formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Values == nil {
		t.Fatal("the reader left no value table")
	}
	onnx, _ := formats.FindExporter("x.onnx", "")
	out := filepath.Join(t.TempDir(), "x.onnx")
	if err := Write(g, onnx, out, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if g.Values != nil {
		t.Error("value table kept for an exporter that types its own copy")
	}
	back, _, err := Read(out, "", formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if len(back.Nodes) != len(g.Nodes) || back.Outputs[0].DType != canon.Float32 {
		t.Errorf("read back %d nodes, outputs %+v", len(back.Nodes), back.Outputs)
	}
}
