package caffeimport

import (
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/caffepb"
)

// TestCaffeInnerProductAxis: Caffe's InnerProduct flattens the dims from
// axis into K and keeps the ones before it. x is the ramp 1..12 of shape
// (1, 2, 2, 3).
//
// axis 2: K = 2·3 = 6, output (1, 2, 2). W rows (1,0,0,0,0,0) and all ones,
// bias (10, 20): channel 0 holds 1..6, so y = (1+10, 21+20) = (11, 41);
// channel 1 holds 7..12: (7+10, 57+20) = (17, 77). The same weight stored
// (K, N) with transpose: true gives the same.
//
// axis -1: K = 3, output (1, 2, 2, 2). W rows (1, 0, -1) and (0, 2, 0), no
// bias: each row r of x gives (r0 - r2, 2·r1) = (-2, 4), (-2, 10), (-2,
// 16), (-2, 22).
func TestCaffeInnerProductAxis(t *testing.T) {
	const head = `input: "data"
input_shape { dim: 1 dim: 2 dim: 2 dim: 3 }
`
	x := ramp([]int64{1, 2, 2, 3})
	ax2 := head + `layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
  inner_product_param { num_output: 2 axis: 2 } }
`
	w := map[string][]*caffepb.BlobProto{"ip": {
		blob([]int64{2, 6}, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1), blob([]int64{2}, 10, 20)}}
	expect(t, runNet(t, netFiles(t, ax2, w), x, "ip"), []int64{1, 2, 2}, []float64{11, 41, 17, 77}, 0)

	ax2t := head + `layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
  inner_product_param { num_output: 2 axis: 2 transpose: true } }
`
	wt := map[string][]*caffepb.BlobProto{"ip": {
		blob([]int64{6, 2}, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1), blob([]int64{2}, 10, 20)}}
	expect(t, runNet(t, netFiles(t, ax2t, wt), x, "ip"), []int64{1, 2, 2}, []float64{11, 41, 17, 77}, 0)

	axLast := head + `layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
  inner_product_param { num_output: 2 axis: -1 bias_term: false } }
`
	wl := map[string][]*caffepb.BlobProto{"ip": {blob([]int64{2, 3}, 1, 0, -1, 0, 2, 0)}}
	expect(t, runNet(t, netFiles(t, axLast, wl), x, "ip"), []int64{1, 2, 2, 2}, []float64{-2, 4, -2, 10, -2, 16, -2, 22}, 0)
}

// TestCaffeTopProducedTwice: Caffe refuses a blob written by two layers
// unless the second works in place; the error names both.
func TestCaffeTopProducedTwice(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`input: "data" input_shape { dim: 1 dim: 3 }
layer { name: "r1" type: "ReLU" bottom: "data" top: "x" }
layer { name: "r2" type: "Sigmoid" bottom: "data" top: "x" }`, `layer r2 (Sigmoid): top "x" is already produced by layer r1`},
		{`input: "data" input_shape { dim: 1 dim: 3 }
layer { name: "r1" type: "ReLU" bottom: "data" top: "x" }
layer { name: "r2" type: "Sigmoid" bottom: "x" top: "data" }`, `layer r2 (Sigmoid): top "data" is already produced by the net's input "data"`},
	} {
		_, err := Read(netFiles(t, c.text, nil), formats.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", err, c.want)
		}
	}
	// In place is Caffe's way of writing a blob again.
	inPlace := `input: "data" input_shape { dim: 1 dim: 3 }
layer { name: "r1" type: "ReLU" bottom: "data" top: "x" }
layer { name: "r2" type: "Sigmoid" bottom: "x" top: "x" }`
	expect(t, runNet(t, netFiles(t, inPlace, nil), ramp([]int64{1, 3}), "r2"), []int64{1, 3}, []float64{0.7310586, 0.8807971, 0.9525741}, 1e-6)
}

// TestCaffeAliasOutputs: blobs no layer consumes are the net's outputs,
// whatever made them: a Dropout top, both tops of a Split and a ReLU top
// are four outputs, in order, under their own names; a net that is only a
// Dropout has one output. A net with no weighted layer needs no
// caffemodel.
func TestCaffeAliasOutputs(t *testing.T) {
	four := `input: "data" input_shape { dim: 1 dim: 3 }
layer { name: "drop" type: "Dropout" bottom: "data" top: "d" }
layer { name: "split" type: "Split" bottom: "data" top: "s1" top: "s2" }
layer { name: "relu" type: "ReLU" bottom: "data" top: "r" }
`
	g, err := Read(netFiles(t, four, nil), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range g.Outputs {
		names = append(names, o.Name)
	}
	if strings.Join(names, ",") != "d,s1,s2,r" || g.Meta.WeightsMissing {
		t.Fatalf("outputs %v (weights missing %v), want d,s1,s2,r and a complete model", names, g.Meta.WeightsMissing)
	}
	only := `input: "data" input_shape { dim: 1 dim: 3 }
layer { name: "drop" type: "Dropout" bottom: "data" top: "d" dropout_param { dropout_ratio: 0.3 } }
`
	x := ramp([]int64{1, 3})
	x.Data[3] ^= 0x80 // -1: Dropout passes negatives through too
	expect(t, runNet(t, netFiles(t, only, nil), x, "d"), []int64{1, 3}, []float64{-1, 2, 3}, 0)
}
