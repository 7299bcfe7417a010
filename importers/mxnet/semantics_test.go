package mxnetimport

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mxparams"
	"github.com/modelbridge/modelbridge/interp"
)

// checkpoint writes m-symbol.json and, when params is not nil, m-0000.params.
func checkpoint(t *testing.T, symbol string, params map[string]*canon.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	sym := filepath.Join(dir, "m-symbol.json")
	if err := os.WriteFile(sym, []byte(symbol), 0o644); err != nil {
		t.Fatal(err)
	}
	if params != nil {
		var names []string
		var ts []*canon.Tensor
		for n, v := range params {
			names = append(names, n)
			ts = append(ts, v)
		}
		var buf bytes.Buffer
		if err := mxparams.Write(&buf, names, ts); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "m-0000.params"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return sym
}

func f32s(shape []int64, v ...float32) *canon.Tensor { return canon.NewFloat32Tensor("", shape, v) }

// run imports the symbol and runs it on x (fed to "data").
func run(t *testing.T, sym string, x *canon.Tensor) *canon.Tensor {
	t.Helper()
	g, err := Read(sym, formats.ReadOptions{InputShapes: map[string][]int64{"data": x.Shape}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := interp.Run(g, map[string]*canon.Tensor{"data": x})
	if err != nil {
		t.Fatal(err)
	}
	return out[g.Outputs[0].Name]
}

func expect(t *testing.T, got *canon.Tensor, shape []int64, want ...float64) {
	t.Helper()
	if !equalInts(got.Shape, shape) {
		t.Fatalf("shape %v, want %v", got.Shape, shape)
	}
	v, err := got.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(v[i]-want[i]) > 1e-5 {
			t.Fatalf("got %v, want %v", v, want)
		}
	}
}

// A one-op symbol over data plus the named parameters.
func oneOp(op, attrs string, params ...string) string {
	nodes := `{"op":"null","name":"data","inputs":[]}`
	inputs := `[0,0,0]`
	for i, p := range params {
		nodes += `,{"op":"null","name":"` + p + `","inputs":[]}`
		inputs += `,[` + string(rune('1'+i)) + `,0,0]`
	}
	n := len(params) + 1
	return `{"nodes":[` + nodes + `,{"op":"` + op + `","name":"op","attrs":` + attrs + `,"inputs":[` + inputs + `]}],
		"arg_nodes":[0],"heads":[[` + string(rune('0'+n)) + `,0,0]],"attrs":{"mxnet_version":["int",10300]}}`
}

func TestFixGammaIgnoresFileGamma(t *testing.T) {
	sym := checkpoint(t, oneOp("BatchNorm", `{}`, "g", "b", "m", "v"), map[string]*canon.Tensor{
		"arg:g": f32s([]int64{2}, 5, 5), "arg:b": f32s([]int64{2}, 0, 0.5),
		"aux:m": f32s([]int64{2}, 0, 0), "aux:v": f32s([]int64{2}, 1, 1),
	})
	got := run(t, sym, f32s([]int64{1, 2, 1, 1}, 1, 2))
	// fix_gamma defaults to True (gamma = 1) and eps to 1e-3.
	s := 1 / math.Sqrt(1.001)
	expect(t, got, []int64{1, 2, 1, 1}, s, 2*s+0.5)

	sym = checkpoint(t, oneOp("BatchNorm", `{"fix_gamma":"False","eps":"1e-5"}`, "g", "b", "m", "v"), map[string]*canon.Tensor{
		"arg:g": f32s([]int64{2}, 5, 5), "arg:b": f32s([]int64{2}, 0, 0.5),
		"aux:m": f32s([]int64{2}, 0, 0), "aux:v": f32s([]int64{2}, 1, 1),
	})
	s = 5 / math.Sqrt(1.00001)
	expect(t, run(t, sym, f32s([]int64{1, 2, 1, 1}, 1, 2)), []int64{1, 2, 1, 1}, s, 2*s+0.5)
}

func arange(shape []int64) *canon.Tensor {
	v := make([]float32, canon.NumElements(shape))
	for i := range v {
		v[i] = float32(i)
	}
	return f32s(shape, v...)
}

func TestPoolingConventions(t *testing.T) {
	x := arange([]int64{1, 1, 3, 3})
	full := checkpoint(t, oneOp("Pooling", `{"kernel":"(2, 2)","stride":"(2, 2)","pool_type":"max","pooling_convention":"full"}`), nil)
	expect(t, run(t, full, x), []int64{1, 1, 2, 2}, 4, 5, 7, 8)
	valid := checkpoint(t, oneOp("Pooling", `{"kernel":"(2,2)","stride":"[2,2]","pool_type":"max"}`), nil)
	expect(t, run(t, valid, x), []int64{1, 1, 1, 1}, 4)
}

func TestAvgPoolCountIncludePad(t *testing.T) {
	x := f32s([]int64{1, 1, 2, 2}, 1, 1, 1, 1)
	// MXNet counts padding by default: each 3x3 window holds 4 ones.
	def := checkpoint(t, oneOp("Pooling", `{"kernel":"(3,3)","pad":"(1,1)","pool_type":"avg"}`), nil)
	expect(t, run(t, def, x), []int64{1, 1, 2, 2}, 4.0/9, 4.0/9, 4.0/9, 4.0/9)
	excl := checkpoint(t, oneOp("Pooling", `{"kernel":"(3,3)","pad":"(1,1)","pool_type":"avg","count_include_pad":"False"}`), nil)
	expect(t, run(t, excl, x), []int64{1, 1, 2, 2}, 1, 1, 1, 1)
	sum := checkpoint(t, oneOp("Pooling", `{"kernel":"(3,3)","pad":"(1,1)","pool_type":"sum"}`), nil)
	expect(t, run(t, sum, x), []int64{1, 1, 2, 2}, 4, 4, 4, 4)
}

func TestDeconvolutionAdjAndTargetShape(t *testing.T) {
	w := map[string]*canon.Tensor{"arg:w": f32s([]int64{1, 1, 3, 3}, 1, 1, 1, 1, 1, 1, 1, 1, 1)}
	x := f32s([]int64{1, 1, 2, 2}, 1, 1, 1, 1)
	// Full output per axis is [1 1 2 1 1]; target 4 gives total 1: pad 1 on
	// both sides and adj 1, so rows [1 2 1 1].
	sym := checkpoint(t, oneOp("Deconvolution", `{"kernel":"(3,3)","stride":"(2,2)","num_filter":"1","target_shape":"(4,4)"}`, "w"), w)
	r := []float64{1, 2, 1, 1}
	var want []float64
	for _, a := range r {
		for _, b := range r {
			want = append(want, a*b)
		}
	}
	expect(t, run(t, sym, x), []int64{1, 1, 4, 4}, want...)
	// adj alone adds a zero row/column at the end.
	sym = checkpoint(t, oneOp("Deconvolution", `{"kernel":"(3,3)","stride":"(2,2)","num_filter":"1","adj":"(1,1)"}`, "w"), w)
	got := run(t, sym, x)
	v, _ := got.Float64s()
	if !equalInts(got.Shape, []int64{1, 1, 6, 6}) || v[5] != 0 || v[35] != 0 || v[0] != 1 || v[2*6+2] != 4 {
		t.Fatalf("adj: shape %v values %v", got.Shape, v)
	}
}

func TestReshapeCodes(t *testing.T) {
	cases := []struct {
		in, codes, want []int64
		reverse         bool
	}{
		{[]int64{2, 3, 4}, []int64{4, 0, 2}, []int64{4, 3, 2}, false},
		{[]int64{2, 3, 4}, []int64{6, 1, -1}, []int64{6, 1, 4}, false},
		{[]int64{2, 3, 4}, []int64{-2, 1, 1}, []int64{2, 3, 4, 1, 1}, false},
		{[]int64{2, 3, 4, 5}, []int64{-3, -3}, []int64{6, 20}, false},
		{[]int64{2, 3, 4}, []int64{0, -3}, []int64{2, 12}, false},
		{[]int64{2, 3, 4}, []int64{-3, -2}, []int64{6, 4}, false},
		{[]int64{2, 3, 4}, []int64{-4, 1, 2, -2}, []int64{1, 2, 3, 4}, false},
		{[]int64{2, 3, 4}, []int64{2, -4, -1, 3, -2}, []int64{2, 1, 3, 4}, false},
		{[]int64{10, 5, 4}, []int64{-1, 0}, []int64{40, 5}, false},
		{[]int64{10, 5, 4}, []int64{-1, 0}, []int64{50, 4}, true},
	}
	for _, c := range cases {
		got, err := mxReshape(c.in, c.codes, c.reverse)
		if err != nil || !equalInts(got, c.want) {
			t.Errorf("reshape %v by %v (reverse %v) = %v, %v; want %v", c.in, c.codes, c.reverse, got, err, c.want)
		}
	}
	if _, err := mxReshape([]int64{2, 3}, []int64{-1, -1}, false); err == nil {
		t.Error("two -1 codes accepted")
	}
	x := arange([]int64{2, 3, 4})
	sym := checkpoint(t, oneOp("Reshape", `{"shape":"(-4, 1, 2, -2)"}`), nil)
	got := run(t, sym, x)
	expect(t, got, []int64{1, 2, 3, 4}, 0, 1, 2, 3)
	sym = checkpoint(t, oneOp("Reshape", `{"shape":"(-1, 0)","reverse":"True"}`), nil)
	expect(t, run(t, sym, arange([]int64{10, 5, 4})), []int64{50, 4}, 0, 1, 2)
}

func TestFullyConnectedFlattens(t *testing.T) {
	sym := checkpoint(t, oneOp("FullyConnected", `{"num_hidden":"1"}`, "w", "b"), map[string]*canon.Tensor{
		"arg:w": f32s([]int64{1, 4}, 1, 1, 1, 1), "arg:b": f32s([]int64{1}, 10),
	})
	expect(t, run(t, sym, arange([]int64{1, 2, 2})), []int64{1, 1}, 16)
}

func TestScalarOps(t *testing.T) {
	x := f32s([]int64{2}, 1, 4)
	expect(t, run(t, checkpoint(t, oneOp("_rminus_scalar", `{"scalar":"10"}`), nil), x), []int64{2}, 9, 6)
	expect(t, run(t, checkpoint(t, oneOp("_rdiv_scalar", `{"scalar":"8"}`), nil), x), []int64{2}, 8, 2)
	expect(t, run(t, checkpoint(t, oneOp("_DivScalar", `{"scalar":"2"}`), nil), x), []int64{2}, 0.5, 2)
}

func TestUpSamplingNearest(t *testing.T) {
	sym := checkpoint(t, oneOp("UpSampling", `{"scale":"2","sample_type":"nearest","num_args":"1"}`), nil)
	expect(t, run(t, sym, f32s([]int64{1, 1, 1, 2}, 1, 2)), []int64{1, 1, 2, 4}, 1, 1, 2, 2, 1, 1, 2, 2)
}

// TestUpSamplingNearestPerChannel checks scale-2 nearest upsampling of a
// 2-channel 2x2 map: every input pixel becomes a 2x2 block. By numpy:
//
//	u = np.arange(8).reshape(1, 2, 2, 2); u.repeat(2, axis=2).repeat(2, axis=3).ravel()
func TestUpSamplingNearestPerChannel(t *testing.T) {
	sym := checkpoint(t, oneOp("UpSampling", `{"scale":"2","sample_type":"nearest","num_args":"1"}`), nil)
	expect(t, run(t, sym, arange([]int64{1, 2, 2, 2})), []int64{1, 2, 4, 4},
		0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3,
		4, 4, 5, 5, 4, 4, 5, 5, 6, 6, 7, 7, 6, 6, 7, 7)
}

// TestSoftmaxActivationModes checks both modes of SoftmaxActivation on
// x = [0, 1, 2, 3, -1, 0.5, 4, -2] of shape (1, 2, 2, 2). Values by numpy
// (float64, rounded to float32):
//
//	instance: f = x.reshape(1, -1); e = np.exp(f - f.max(1, keepdims=True)); e / e.sum(1, keepdims=True)
//	channel:  e = np.exp(x - x.max(1, keepdims=True)); e / e.sum(1, keepdims=True)
func TestSoftmaxActivationModes(t *testing.T) {
	x := f32s([]int64{1, 2, 2, 2}, 0, 1, 2, 3, -1, 0.5, 4, -2)
	instance := checkpoint(t, oneOp("SoftmaxActivation", `{}`), nil) // mode defaults to instance
	expect(t, run(t, instance, x), []int64{1, 2, 2, 2},
		0.011371007, 0.030909602, 0.08402101, 0.22839278, 0.0041831597, 0.01874762, 0.62083596, 0.0015388984)
	channel := checkpoint(t, oneOp("SoftmaxActivation", `{"mode":"channel"}`), nil)
	expect(t, run(t, channel, x), []int64{1, 2, 2, 2},
		0.7310586, 0.62245935, 0.11920292, 0.9933072, 0.26894143, 0.37754068, 0.8807971, 0.006692851)
	// instance normalizes each batch item on its own:
	//	f = np.arange(8.).reshape(2, -1); e = np.exp(f - f.max(1, keepdims=True)); e / e.sum(1, keepdims=True)
	expect(t, run(t, instance, arange([]int64{2, 1, 2, 2})), []int64{2, 1, 2, 2},
		0.032058604, 0.087144315, 0.23688282, 0.6439143, 0.032058604, 0.087144315, 0.23688282, 0.6439143)
}

func TestFloatToHalf(t *testing.T) {
	for _, f := range []float32{0, 1, -2.5, 65504, 6.1035156e-05, 5.9604645e-08, 0.1, 1e-3} {
		h := FloatToHalf(f)
		back := canon.HalfToFloat32(h)
		if FloatToHalf(back) != h || math.Abs(float64(back-f)) > math.Abs(float64(f))*1e-3+6e-8 {
			t.Errorf("%g -> %#x -> %g", f, h, back)
		}
	}
}

func TestBadInputs(t *testing.T) {
	fixture := mxFixture(t, "tutorial_fc/Neural_Net-0100.params")
	good, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fcSym := oneOp("FullyConnected", `{"num_hidden":"2"}`, "w", "b")
	cases := []struct {
		name string
		path func() string
		want []string
	}{
		{"truncated params", func() string { return write("trunc.params", good[:len(good)/2]) }, []string{"trunc.params", "array 0", "byte offset", "truncated"}},
		{"wrong magic", func() string {
			b := bytes.Clone(good[:64])
			b[0] = 0x13
			return write("magic.params", b)
		}, []string{"magic.params", "magic"}},
		{"huge count", func() string {
			b := bytes.Clone(good[:64])
			copy(b[16:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
			return write("count.params", b)
		}, []string{"count.params", "declares"}},
		{"huge dims", func() string {
			// A V2 record whose shape claims 2^40 x 2^40 elements.
			b := append(bytes.Clone(good[:24]), 0xc9, 0xfa, 0x93, 0xf9, 0, 0, 0, 0, 2, 0, 0, 0)
			b = append(b, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
			return write("dims.params", b)
		}, []string{"dims.params", "array 0"}},
		{"shape mismatch", func() string {
			return checkpoint(t, fcSym, map[string]*canon.Tensor{"arg:w": f32s([]int64{3, 2}, 1, 2, 3, 4, 5, 6), "arg:b": f32s([]int64{2}, 0, 0)})
		}, []string{"node op", "parameter w", "(3, 2)", "(2, 2)"}},
		{"missing param", func() string {
			return checkpoint(t, fcSym, map[string]*canon.Tensor{"arg:w": f32s([]int64{2, 2}, 1, 2, 3, 4)})
		}, []string{"node op", "parameter b", "m-0000.params"}},
		{"cycle", func() string {
			return checkpoint(t, `{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"relu","name":"a","inputs":[[2,0,0]]},{"op":"relu","name":"b","inputs":[[1,0,0]]}],"arg_nodes":[0],"heads":[[2,0,0]]}`, nil)
		}, []string{"m-symbol.json", "node 1 (a)", "cycle"}},
		{"malformed json", func() string { return checkpoint(t, `{"nodes": [ {"op": "null", `, nil) }, []string{"m-symbol.json", "not a valid MXNet symbol JSON"}},
		{"bad input ref", func() string {
			return checkpoint(t, `{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"relu","name":"a","inputs":[["x",0,0]]}],"arg_nodes":[0],"heads":[[1,0,0]]}`, nil)
		}, []string{"m-symbol.json"}},
		{"unknown op", func() string { return checkpoint(t, oneOp("FancyOp", `{}`), nil) }, []string{"node op", `"FancyOp"`, "not supported"}},
		{"unsupported activation", func() string { return checkpoint(t, oneOp("Activation", `{"act_type":"mish"}`), nil) }, []string{"node op", "act_type=mish", "not supported"}},
		{"bad tuple", func() string { return checkpoint(t, oneOp("Pooling", `{"kernel":"(2,x)"}`), nil) }, []string{"node op", "kernel"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(c.path(), formats.ReadOptions{InputShapes: map[string][]int64{"data": {1, 2}}})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestSymbolOnlyWeightsBecomeInputs(t *testing.T) {
	g, err := Read(mxFixture(t, "symbols/resnet18_v1-symbol.json"), formats.ReadOptions{InputShapes: map[string][]int64{"data": {1, 3, 224, 224}}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, in := range g.Inputs {
		if in.Name == "resnetv10_conv0_weight" {
			found = true
			if s, ok := in.StaticShape(); !ok || !equalInts(s, []int64{64, 3, 7, 7}) {
				t.Errorf("conv0 weight input shape %v", in.Shape)
			}
		}
	}
	if !found || g.Inputs[0].Name != "data" {
		t.Fatalf("inputs %v", names(g.Inputs))
	}
	if s, _ := g.Values.Get(g.Outputs[0].Name).StaticShape(); !equalInts(s, []int64{1, 1000}) {
		t.Errorf("output shape %v", s)
	}
}

func TestSniff(t *testing.T) {
	if !Sniff([]byte("{\n  \"nodes\": [")) || Sniff([]byte("{\"graph\": 1}")) || !Sniff(append([]byte{0x12, 1, 0, 0, 0, 0, 0, 0}, make([]byte, 8)...)) {
		t.Error("sniff")
	}
}

// TestHostileParams mutates a real file in many ways: every result must be
// an error or a valid list, never a panic.
func TestHostileParams(t *testing.T) {
	for _, f := range []string{"tutorial_sparse/mod-10.params", "mtcnn/det1-0001.params", "go_test/go_test-0001.params"} {
		good, err := os.ReadFile(mxFixture(t, f))
		if err != nil {
			t.Fatal(err)
		}
		for cut := 0; cut < min(len(good), 400); cut++ {
			if _, err := mxparams.Parse(good[:cut], f); err == nil {
				t.Fatalf("%s cut at %d: no error", f, cut)
			}
		}
		for i := 0; i < min(len(good), 300); i++ {
			for _, v := range []byte{0, 0xff, 0x7f, 0x80, 3} {
				b := bytes.Clone(good)
				b[i] = v
				mxparams.Parse(b, f) // must not panic
			}
		}
	}
}

func TestHostileSymbols(t *testing.T) {
	for _, s := range []string{
		`{"nodes":[{"op":"null","name":"data","inputs":[]}],"heads":[[0,5,0]]}`,
		`{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"relu","name":"r","inputs":[[0,0,0]]}],"heads":[[1,3,0]]}`,
		`{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"SliceChannel","name":"s","attrs":{"num_outputs":"99999999"},"inputs":[[0,0,0]]}],"heads":[[1,0,0]]}`,
		`{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"Reshape","name":"s","attrs":{"shape":"(-4,-1,-1)"},"inputs":[[0,0,0]]}],"heads":[[1,0,0]]}`,
		`{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"Concat","name":"c","inputs":[]}],"heads":[[1,0,0]]}`,
		`{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"Convolution","name":"c","attrs":{"kernel":"(3,3)","num_filter":"0"},"inputs":[[0,0,0]]}],"heads":[[1,0,0]]}`,
		`{"nodes":[],"heads":[]}`,
		`[]`,
		`{"nodes":[null],"heads":[[0,0]]}`,
		`{"nodes":[{"op":"null","name":"data","inputs":[[0,0]]}],"heads":[[0,0]]}`,
	} {
		sym := checkpoint(t, s, nil)
		if _, err := Read(sym, formats.ReadOptions{InputShapes: map[string][]int64{"data": {1, 4, 2, 2}}}); err == nil {
			t.Errorf("no error for %s", s)
		}
	}
}

func TestConvolutionNHWC(t *testing.T) {
	// NHWC data, OHWI weight (1, 1, 1, 3): y = x·(1, 2, 3) per pixel.
	sym := checkpoint(t, oneOp("Convolution", `{"kernel":"(1,1)","num_filter":"1","no_bias":"True","layout":"NHWC"}`, "w"), map[string]*canon.Tensor{
		"arg:w": f32s([]int64{1, 1, 1, 3}, 1, 2, 3),
	})
	x := arange([]int64{1, 1, 2, 3})
	expect(t, run(t, sym, x), []int64{1, 1, 2, 1}, 0*1+1*2+2*3, 3*1+4*2+5*3)
}

func TestPReluPerChannel(t *testing.T) {
	sym := checkpoint(t, oneOp("LeakyReLU", `{"act_type":"prelu"}`, "g"), map[string]*canon.Tensor{
		"arg:g": f32s([]int64{2}, 0.5, 0.25),
	})
	x := f32s([]int64{1, 2, 1, 2}, -2, 2, -4, 4)
	expect(t, run(t, sym, x), []int64{1, 2, 1, 2}, -1, 2, -1, 4)
	rrelu := checkpoint(t, oneOp("LeakyReLU", `{"act_type":"rrelu","lower_bound":"0.1","upper_bound":"0.3"}`), nil)
	expect(t, run(t, rrelu, f32s([]int64{2}, -10, 3)), []int64{2}, -2, 3)
}

// TestHostileShapes covers symbols that once crashed the importer: shapes
// come only from the file (a variable's __shape__, a reduction to a
// scalar), as in the fuzz target. Each must give an error naming the node.
func TestHostileShapes(t *testing.T) {
	data := func(shape string) string {
		return `{"op":"null","name":"data","attrs":{"__shape__":"` + shape + `"},"inputs":[]}`
	}
	sym := func(nodes ...string) string {
		return `{"nodes":[` + strings.Join(nodes, ",") + `],"arg_nodes":[0],"heads":[[` + string(rune('0'+len(nodes)-1)) + `,0,0]],"attrs":{"mxnet_version":["int",10300]}}`
	}
	cases := []struct{ name, sym, want string }{
		{"FullyConnected on a scalar", sym(data("(2,3)"),
			`{"op":"mean","name":"m","inputs":[[0,0,0]]}`,
			`{"op":"FullyConnected","name":"fc","attrs":{"num_hidden":"2"},"inputs":[[1,0,0]]}`), "scalar"},
		{"FullyConnected flatten=False on a scalar", sym(data("(2,3)"),
			`{"op":"mean","name":"m","inputs":[[0,0,0]]}`,
			`{"op":"FullyConnected","name":"fc","attrs":{"num_hidden":"2","flatten":"False"},"inputs":[[1,0,0]]}`), "scalar"},
		{"BatchNorm axis 0 of rank 1", sym(data("(3,)"),
			`{"op":"BatchNorm","name":"bn","attrs":{"axis":"0","fix_gamma":"False"},"inputs":[[0,0,0]]}`), "rank 2 or more"},
		{"BatchNorm with a huge channel count", sym(data("(1,140737488355328)"),
			`{"op":"BatchNorm","name":"bn","attrs":{"fix_gamma":"True"},"inputs":[[0,0,0]]}`), "unit scale"},
		{"BatchNorm with a large channel count", sym(data("(1,100000000)"),
			`{"op":"BatchNorm","name":"bn","attrs":{"fix_gamma":"True"},"inputs":[[0,0,0]]}`), "unit scale"},
		{"global sum pooling of rank 1", sym(data("(4,)"),
			`{"op":"Pooling","name":"p","attrs":{"global_pool":"True","pool_type":"sum"},"inputs":[[0,0,0]]}`), "rank 3 or more"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(checkpoint(t, c.sym, nil), formats.ReadOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "internal error") {
				t.Fatalf("want an error mentioning %q, got %v", c.want, err)
			}
		})
	}
}

// TestBatchNormAxis0 normalizes over axis 0 of an NC input: the axis must
// be moved to position 1 and back.
func TestBatchNormAxis0(t *testing.T) {
	sym := checkpoint(t, oneOp("BatchNorm", `{"axis":"0","fix_gamma":"False","eps":"0"}`, "g", "b", "m", "v"), map[string]*canon.Tensor{
		"arg:g": f32s([]int64{2}, 1, 2), "arg:b": f32s([]int64{2}, 0, 10),
		"aux:m": f32s([]int64{2}, 0, 0), "aux:v": f32s([]int64{2}, 1, 1),
	})
	x := f32s([]int64{2, 3}, 1, 2, 3, 4, 5, 6)
	expect(t, run(t, sym, x), []int64{2, 3}, 1, 2, 3, 18, 20, 22)
}
