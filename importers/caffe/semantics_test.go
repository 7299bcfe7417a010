package caffeimport

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/caffepb"
	"github.com/modelbridge/modelbridge/interp"
)

// blob makes a BlobProto with a BlobShape.
func blob(shape []int64, v ...float32) *caffepb.BlobProto {
	return &caffepb.BlobProto{Shape: &caffepb.BlobShape{Dim: shape}, Data: v}
}

// netFiles writes text as net.prototxt and, when weights is not nil, a
// net.caffemodel holding those blobs by layer name.
func netFiles(t *testing.T, text string, weights map[string][]*caffepb.BlobProto) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "net.prototxt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if weights != nil {
		net := &caffepb.NetParameter{}
		for name, bl := range weights {
			net.Layer = append(net.Layer, &caffepb.LayerParameter{Name: proto.String(name), Blobs: bl})
		}
		b, err := proto.Marshal(net)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "net.caffemodel"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// runNet reads the net and runs it on x, returning the named output.
func runNet(t *testing.T, path string, x *canon.Tensor, out string) *canon.Tensor {
	t.Helper()
	g, err := Read(path, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := interp.Run(g, map[string]*canon.Tensor{g.Inputs[0].Name: x})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := res[out]
	if !ok {
		var names []string
		for _, o := range g.Outputs {
			names = append(names, o.Name)
		}
		t.Fatalf("no output %q (have %v)", out, names)
	}
	return r
}

func ramp(shape []int64) *canon.Tensor {
	n := canon.NumElements(shape)
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i + 1)
	}
	return canon.NewFloat32Tensor("data", shape, v)
}

func expect(t *testing.T, got *canon.Tensor, shape []int64, want []float64, tol float64) {
	t.Helper()
	if len(got.Shape) != len(shape) {
		t.Fatalf("shape %v, want %v", got.Shape, shape)
	}
	for i := range shape {
		if got.Shape[i] != shape[i] {
			t.Fatalf("shape %v, want %v", got.Shape, shape)
		}
	}
	v, err := got.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(v[i]-want[i]) > tol {
			t.Fatalf("output %v, want %v (element %d)", v, want, i)
		}
	}
}

const poolNet = `input: "data"
input_dim: 1 input_dim: 1 input_dim: %d input_dim: %d
layer { name: "pool" type: "Pooling" bottom: "data" top: "pool"
  pooling_param { pool: %s kernel_size: %d stride: %d pad: %d } }
`

func pool(t *testing.T, hw int64, method string, k, s, p int) *canon.Tensor {
	text := sprintf(poolNet, hw, hw, method, k, s, p)
	return runNet(t, netFiles(t, text, nil), ramp([]int64{1, 1, hw, hw}), "pool")
}

// TestCaffeAveragePooling checks Caffe's AVE pooling on a 4×4 ramp (1..16)
// with kernel 3, stride 2, pad 1. Caffe's output is ceil((4+2-3)/2)+1 = 3
// per axis; the windows start at -1, 1, 3 and the divisor counts padding
// only up to the padded edge (H+pad = 5): sizes 3, 3 and 2, so the last
// window covers input row 3 and one pad row. Worked by hand:
// rows {0,1},{1,2,3},{3} × cols the same, divided by 9, 9, 6 / 6, 6, 4.
func TestCaffeAveragePooling(t *testing.T) {
	got := pool(t, 4, "AVE", 3, 2, 1)
	expect(t, got, []int64{1, 1, 3, 3}, []float64{
		14.0 / 9, 30.0 / 9, 2,
		57.0 / 9, 11, 6,
		4.5, 7.5, 4,
	}, 1e-5)
}

// TestCaffePoolingDropsWindowInPadding: 5×5 ramp, kernel 2, stride 3, pad
// 1. ceil((5+2-2)/3)+1 = 3, but the third window would start at
// (3-1)·3 - 1 = 5, in the end padding (Caffe's test: (3-1)·3 >= H+pad = 6):
// Caffe drops it, leaving 2.
// Windows: rows {0} (size 2, one pad row) and {2,3}.
func TestCaffePoolingDropsWindowInPadding(t *testing.T) {
	expect(t, pool(t, 5, "MAX", 2, 3, 1), []int64{1, 1, 2, 2}, []float64{1, 4, 16, 19}, 0)
	expect(t, pool(t, 5, "AVE", 2, 3, 1), []int64{1, 1, 2, 2}, []float64{0.25, 1.75, 6.75, 16}, 1e-6)
	// Ceil keeps a partial last window when it starts inside the input:
	// 6×6, kernel 3, stride 2, pad 1 gives 4 (floor would give 3).
	expect(t, pool(t, 6, "MAX", 3, 2, 1), []int64{1, 1, 4, 4}, []float64{8, 10, 12, 12}, 0)
	if caffePooledSize(5, 2, 3, 1, true) != 2 || caffePooledSize(6, 3, 2, 1, true) != 4 || caffePooledSize(4, 3, 2, 1, true) != 3 {
		t.Fatal("caffePooledSize disagrees with Caffe")
	}
}

// TestCaffeBatchNormScaleFactor: Caffe's BatchNorm blobs are sums scaled
// by the third blob; mean 2,4 and variance 8,16 with factor 2 are the
// statistics 1,2 and 4,8. The Scale layer after it (bias_term) applies
// gamma 2,3 and beta 1,-1. x = 3, 6:
// y = ((3-1)/√(4+1e-5))·2+1 = 4.999995, ((6-2)/√(8+1e-5))·3-1 = 3.2426376.
// A zero factor makes the statistics zero, as Caffe does.
func TestCaffeBatchNormScaleFactor(t *testing.T) {
	text := `input: "data"
input_shape { dim: 1 dim: 2 dim: 1 dim: 1 }
layer { name: "bn" type: "BatchNorm" bottom: "data" top: "data" }
layer { name: "sc" type: "Scale" bottom: "data" top: "data" scale_param { bias_term: true } }
`
	x := canon.NewFloat32Tensor("data", []int64{1, 2, 1, 1}, []float32{3, 6})
	w := map[string][]*caffepb.BlobProto{
		"bn": {blob([]int64{2}, 2, 4), blob([]int64{2}, 8, 16), blob([]int64{1}, 2)},
		"sc": {blob([]int64{2}, 2, 3), blob([]int64{2}, 1, -1)},
	}
	y0 := (3-1)/math.Sqrt(4+1e-5)*2 + 1
	y1 := (6-2)/math.Sqrt(8+1e-5)*3 - 1
	// In place twice: the last version of blob "data" is the Scale layer's.
	expect(t, runNet(t, netFiles(t, text, w), x, "sc"), []int64{1, 2, 1, 1}, []float64{y0, y1}, 1e-5)
	w["bn"][2] = blob([]int64{1}, 0)
	expect(t, runNet(t, netFiles(t, text, w), x, "sc"), []int64{1, 2, 1, 1},
		[]float64{3/math.Sqrt(1e-5)*2 + 1, 6/math.Sqrt(1e-5)*3 - 1}, 1e-2)
}

// TestCaffeInnerProductTranspose: with transpose the weight is stored
// (K, N). x = (1, 2, 3), W stored [[1, 0], [0, 1], [1, 1]], bias (10, 20):
// y = (1+3+10, 2+3+20).
func TestCaffeInnerProductTranspose(t *testing.T) {
	text := `input: "data"
input_shape { dim: 1 dim: 3 }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
  inner_product_param { num_output: 2 transpose: true } }
`
	w := map[string][]*caffepb.BlobProto{"ip": {blob([]int64{3, 2}, 1, 0, 0, 1, 1, 1), blob([]int64{2}, 10, 20)}}
	expect(t, runNet(t, netFiles(t, text, w), ramp([]int64{1, 3}), "ip"), []int64{1, 2}, []float64{14, 25}, 1e-6)
}

// TestCaffeDeconvolutionGroups: weights (C_in, C_out/group, kH, kW) with
// group 2; each input channel paints its own output channel: stride 2,
// kernel 2, so each input pixel v becomes the block v·w.
func TestCaffeDeconvolutionGroups(t *testing.T) {
	text := `input: "data"
input_shape { dim: 1 dim: 2 dim: 1 dim: 1 }
layer { name: "up" type: "Deconvolution" bottom: "data" top: "up"
  convolution_param { num_output: 2 group: 2 kernel_size: 2 stride: 2 bias_term: false } }
`
	w := map[string][]*caffepb.BlobProto{"up": {blob([]int64{2, 1, 2, 2}, 1, 2, 3, 4, 5, 6, 7, 8)}}
	x := canon.NewFloat32Tensor("data", []int64{1, 2, 1, 1}, []float32{1, 10})
	expect(t, runNet(t, netFiles(t, text, w), x, "up"), []int64{1, 2, 2, 2}, []float64{1, 2, 3, 4, 50, 60, 70, 80}, 0)
}

// TestCaffeElementwiseLayers covers Eltwise coefficients, Slice, Concat,
// Power, in-place ReLU with negative_slope, Crop and Flatten, in V1 form.
func TestCaffeElementwiseLayers(t *testing.T) {
	text := `input: "data"
input_dim: 1 input_dim: 4 input_dim: 2 input_dim: 2
layers { name: "sl" type: SLICE bottom: "data" top: "a" top: "b" slice_param { slice_point: 1 } }
layers { name: "sum" type: ELTWISE bottom: "a" bottom: "a" eltwise_param { coeff: 2 coeff: -1 } top: "s" }
layers { name: "pw" type: POWER bottom: "s" top: "p" power_param { power: 2 scale: 0.5 shift: 1 } }
layers { name: "relu" type: RELU bottom: "b" top: "b" relu_param { negative_slope: 0.5 } }
layers { name: "cat" type: CONCAT bottom: "p" bottom: "b" top: "c" }
layers { name: "fl" type: FLATTEN bottom: "c" top: "f" }
`
	x := ramp([]int64{1, 4, 2, 2})
	g, err := Read(netFiles(t, text, nil), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res, err := interp.Run(g, map[string]*canon.Tensor{"data": x})
	if err != nil {
		t.Fatal(err)
	}
	// a = 1..4; s = 2a - a = a; p = (1 + a/2)²; b = 5..16 (positive).
	want := []float64{2.25, 4, 6.25, 9}
	for v := 5; v <= 16; v++ {
		want = append(want, float64(v))
	}
	expect(t, res["f"], []int64{1, 16}, want, 1e-6)
}

func TestCaffeCrop(t *testing.T) {
	text := `input: "data"
input: "ref"
input_shape { dim: 1 dim: 1 dim: 4 dim: 4 }
input_shape { dim: 1 dim: 1 dim: 2 dim: 2 }
layer { name: "crop" type: "Crop" bottom: "data" bottom: "ref" top: "crop" crop_param { axis: 2 offset: 1 } }
`
	g, err := Read(netFiles(t, text, nil), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := interp.Run(g, map[string]*canon.Tensor{"data": ramp([]int64{1, 1, 4, 4}), "ref": ramp([]int64{1, 1, 2, 2})})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, res["crop"], []int64{1, 1, 2, 2}, []float64{6, 7, 10, 11}, 0)
}

// TestCaffeRefusals: unknown layers and missing weights are named.
func TestCaffeRefusals(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`input: "data" input_dim: 1 input_dim: 1 input_dim: 2 input_dim: 2
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "data" bottom: "data" top: "l" }`, `layer loss (SoftmaxWithLoss): Caffe layer type "SoftmaxWithLoss" is not supported`},
		{`input: "data" input_dim: 1 input_dim: 1 input_dim: 2 input_dim: 2
layer { name: "odd" type: "Fancy" bottom: "data" top: "x" }`, `layer odd (Fancy): Caffe layer type "Fancy" is not supported`},
		{`input: "data" input_dim: 1 input_dim: 1 input_dim: 2 input_dim: 2
layer { name: "r" type: "ReLU" bottom: "nope" top: "x" }`, `bottom "nope" is not produced`},
	} {
		_, err := Read(netFiles(t, c.text, nil), formats.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", err, c.want)
		}
	}
	// A caffemodel whose blob does not match the layer's shape.
	text := `input: "data"
input_shape { dim: 1 dim: 3 }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 2 } }
`
	_, err := Read(netFiles(t, text, map[string][]*caffepb.BlobProto{"ip": {blob([]int64{2, 4}, 1, 2, 3, 4, 5, 6, 7, 8), blob([]int64{2}, 0, 0)}}), formats.ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "has shape [2 4]") {
		t.Errorf("error %v, want a shape mismatch", err)
	}
}

// TestCaffeWithoutWeights: a prototxt alone reads with weights as inputs.
func TestCaffeWithoutWeights(t *testing.T) {
	text := `input: "data"
input_dim: 1 input_dim: 3 input_dim: 8 input_dim: 8
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 4 kernel_size: 3 pad: 1 } }
`
	g, err := Read(netFiles(t, text, nil), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Meta.WeightsMissing || len(g.Inputs) != 3 {
		t.Fatalf("WeightsMissing %v with %d inputs, want true and 3 (data, weight, bias)", g.Meta.WeightsMissing, len(g.Inputs))
	}
	if s, _ := g.Outputs[0].StaticShape(); len(s) != 4 || s[1] != 4 || s[2] != 8 {
		t.Fatalf("output shape %v", s)
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
