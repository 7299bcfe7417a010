package interp

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/ortinstall"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
)

// netBuilder assembles canonical graphs with random weights.
type netBuilder struct {
	g   *canon.Graph
	r   *rand.Rand
	seq int
}

func newNetBuilder(input string, shape ...int64) *netBuilder {
	g := &canon.Graph{Name: "bench"}
	g.Inputs = []canon.ValueInfo{{Name: input, DType: canon.Float32, Shape: canon.DimsOf(shape...), RankKnown: true}}
	return &netBuilder{g: g, r: rand.New(rand.NewSource(1))}
}

func (b *netBuilder) name(kind string) string {
	b.seq++
	return fmt.Sprintf("%s_%d", kind, b.seq)
}

// weight adds a random initializer; finish labels it with the layout its
// consumer's role needs.
func (b *netBuilder) weight(scale float32, shape ...int64) string {
	n := canon.NumElements(shape)
	v := make([]float32, n)
	for i := range v {
		v[i] = (b.r.Float32()*2 - 1) * scale
	}
	t := canon.NewFloat32Tensor(b.name("w"), shape, v)
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

// finish declares the graph outputs, labels the weights' layouts and
// validates the graph, as the interpreter expects of its callers.
func (b *netBuilder) finish(tb testing.TB, outs ...string) *canon.Graph {
	tb.Helper()
	for _, o := range outs {
		b.g.Outputs = append(b.g.Outputs, canon.ValueInfo{Name: o, DType: canon.Float32})
	}
	canon.AssignLayouts(b.g)
	if err := b.g.Validate(); err != nil {
		tb.Fatal(err)
	}
	return b.g
}

func (b *netBuilder) node(op canon.Op, ins ...string) string {
	out := b.name(op.Kind() + "_out")
	b.g.Nodes = append(b.g.Nodes, &canon.Node{Name: b.name(op.Kind()), Op: op, Inputs: ins, Outputs: []string{out}})
	return out
}

func (b *netBuilder) conv(x string, cin, cout, k, stride, pad, group int64, bias bool) string {
	fan := float32(cin / group * k * k)
	w := b.weight(1/sqrt32(fan), cout, cin/group, k, k)
	ins := []string{x, w}
	if bias {
		ins = append(ins, b.weight(0.1, cout))
	}
	return b.node(&canon.Conv{Strides: []int64{stride, stride}, Dilations: []int64{1, 1}, PadsBegin: []int64{pad, pad}, PadsEnd: []int64{pad, pad}, Group: group}, ins...)
}

func (b *netBuilder) bn(x string, c int64) string {
	scale := b.weight(0.2, c)
	bias := b.weight(0.1, c)
	mean := b.weight(0.1, c)
	v := make([]float32, c)
	for i := range v {
		v[i] = 0.5 + b.r.Float32()
	}
	vt := canon.NewFloat32Tensor(b.name("var"), []int64{c}, v)
	b.g.Initializers = append(b.g.Initializers, vt)
	return b.node(&canon.BatchNorm{Epsilon: 1e-5}, x, scale, bias, mean, vt.Name)
}

func (b *netBuilder) relu(x string) string { return b.node(&canon.Unary{Fn: canon.Relu}, x) }

func sqrt32(x float32) float32 {
	z := x
	for range 20 {
		z = (z + x/z) / 2
	}
	return z
}

// resnet18 builds torchvision's resnet18 (BatchNorm kept as nodes).
func resnet18(tb testing.TB) *canon.Graph {
	b := newNetBuilder("data", 1, 3, 224, 224)
	x := b.relu(b.bn(b.conv("data", 3, 64, 7, 2, 3, 1, false), 64))
	x = b.node(&canon.MaxPool{Kernel: []int64{3, 3}, Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}}, x)
	cin := int64(64)
	for stage, cout := range []int64{64, 128, 256, 512} {
		for blk := 0; blk < 2; blk++ {
			stride := int64(1)
			if stage > 0 && blk == 0 {
				stride = 2
			}
			y := b.relu(b.bn(b.conv(x, cin, cout, 3, stride, 1, 1, false), cout))
			y = b.bn(b.conv(y, cout, cout, 3, 1, 1, 1, false), cout)
			short := x
			if stride != 1 || cin != cout {
				short = b.bn(b.conv(x, cin, cout, 1, stride, 0, 1, false), cout)
			}
			x = b.relu(b.node(&canon.Binary{Fn: canon.Add}, y, short))
			cin = cout
		}
	}
	x = b.node(&canon.GlobalAveragePool{}, x)
	x = b.node(&canon.Flatten{Axis: 1}, x)
	x = b.node(&canon.Linear{Alpha: 1, Beta: 1}, x, b.weight(0.05, 1000, 512), b.weight(0.1, 1000))
	return b.finish(tb, x)
}

// peakMB reads the process's peak resident set size (VmHWM) in MB.
func peakMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func benchGraph(b *testing.B, g *canon.Graph, shape ...int64) {
	// MODELBRIDGE_NO_WINOGRAD=1 times the im2col path for comparison.
	useWinograd = os.Getenv("MODELBRIDGE_NO_WINOGRAD") == ""
	defer func() { useWinograd = true }()
	p, err := New(g)
	if err != nil {
		b.Fatal(err)
	}
	in := randTensor(rand.New(rand.NewSource(7)), "x", ints(shape)...)
	inputs := map[string]*canon.Tensor{g.Inputs[0].Name: in}
	for range 2 { // warm the buffer pool; Winograd weights are made on the second run
		if _, err := p.Run(inputs); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := p.Run(inputs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(peakMB(), "peak-MB")
}

func BenchmarkResNet18(b *testing.B) {
	benchGraph(b, resnet18(b), 1, 3, 224, 224)
}

// BenchmarkResNet18ONNX runs torchvision's resnet18 exported to ONNX at
// $MODELBRIDGE_RESNET18_ONNX (default /tmp/resnet18.onnx), for a side by
// side comparison with ONNX Runtime on the same file.
func BenchmarkResNet18ONNX(b *testing.B) {
	benchONNX(b, "MODELBRIDGE_RESNET18_ONNX", "/tmp/resnet18.onnx", 1, 3, 224, 224)
}

func BenchmarkGroupedConv(b *testing.B) {
	nb := newNetBuilder("x", 1, 256, 56, 56)
	y := nb.conv("x", 256, 256, 3, 1, 1, 32, true)
	benchGraph(b, nb.finish(b, y), 1, 256, 56, 56)
}

func BenchmarkGroupedConvTranspose(b *testing.B) {
	nb := newNetBuilder("x", 1, 128, 28, 28)
	w := nb.weight(0.05, 128, 16, 4, 4) // IOHW: 128 in, 4 groups of 16 out
	y := nb.node(&canon.ConvTranspose{Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}, OutputPadding: []int64{0, 0}, Group: 4}, "x", w, nb.weight(0.1, 64))
	benchGraph(b, nb.finish(b, y), 1, 128, 28, 28)
}

// benchONNX runs the ONNX file at $env (default def) on a random input of
// the given shape; BenchmarkORT runs the same file in ONNX Runtime.
func benchONNX(b *testing.B, env, def string, shape ...int64) {
	g, _ := benchModel(b, env, def)
	benchGraph(b, g, shape...)
}

// benchModel reads the benchmark model at $env (default def), skipping the
// benchmark when it is missing; it returns the graph and the file's path.
//
// MODELBRIDGE_BENCH_DIR names the directory make_bench_models.py wrote
// into (default /tmp): each default path keeps its file name there.
func benchModel(b testing.TB, env, def string) (*canon.Graph, string) {
	path := os.Getenv(env)
	if path == "" {
		path = def
		if dir := os.Getenv("MODELBRIDGE_BENCH_DIR"); dir != "" && def != "" {
			path = filepath.Join(dir, filepath.Base(def))
		}
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("skipping: %s not found (make it with /usr/bin/python3 testdata/make_bench_models.py [DIR] and set MODELBRIDGE_BENCH_DIR=DIR, or set %s)", path, env)
	}
	g, err := onnximport.Read(path, formats.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	return g, path
}

// vsORTModel is one of BenchmarkVsORT's ONNX files: its path is $env, or
// def, and it takes one float32 input of the given shape.
type vsORTModel struct {
	name, env, def string
	shape          []int64
}

// BenchmarkVsORT times each benchmark model in the interpreter and in ONNX
// Runtime (`--opt all`, as many threads as GOMAXPROCS) in alternation, 7
// rounds of 20 runs each (fewer for models slower than 50 ms: vsORTRuns),
// so that both meet the same machine load; a round's figure is the median
// of its runs on either side. It reports the medians of the rounds
// (ms/op, ort-ms) and the median of the 7 paired ratios (x-ort). Run it
// with -benchtime 1x.
func BenchmarkVsORT(b *testing.B) {
	dir := ortDir(b)
	models := []vsORTModel{
		{"ResNet18", "MODELBRIDGE_RESNET18_ONNX", "/tmp/resnet18.onnx", []int64{1, 3, 224, 224}},
		{"MobileNetV2", "MODELBRIDGE_MOBILENETV2_ONNX", "/tmp/mobilenet_v2.onnx", []int64{1, 3, 224, 224}},
		{"ResNeXtBlock", "MODELBRIDGE_RESNEXT_BLOCK_ONNX", "/tmp/resnext50_block.onnx", []int64{1, 256, 56, 56}},
	}
	models = append(models, recurrentSegmentationModels...)
	models = append(models, transformerVsORT...)
	for _, m := range models {
		b.Run(m.name, func(b *testing.B) {
			g, path := benchModel(b, m.env, m.def)
			p, err := New(g)
			if err != nil {
				b.Fatal(err)
			}
			inputs := map[string]*canon.Tensor{g.Inputs[0].Name: randTensor(rand.New(rand.NewSource(7)), "x", ints(m.shape)...)}
			outs := map[string]*canon.Tensor{} // each run's outputs overwrite the last's (RunInto)
			// run returns the median of n runs' milliseconds, each run timed
			// on its own, as ONNX Runtime's timer (ortRunN) takes its samples:
			// a mean would count a run the machine's other load held up.
			run := func(n int) float64 {
				ms := make([]float64, n)
				for i := range ms {
					start := time.Now()
					if err := p.RunInto(inputs, outs); err != nil {
						b.Fatal(err)
					}
					ms[i] = float64(time.Since(start).Microseconds()) / 1000
				}
				return median(ms)
			}
			run(1)
			runs := vsORTRuns(time.Duration(run(1) * float64(time.Millisecond))) // Winograd weights are made on the second run
			var ours, ort, ratio []float64
			for range 7 {
				o := run(runs)
				r, err := ortRunN(dir, path, "all", runs)
				if err != nil {
					b.Fatal(err)
				}
				ours, ort, ratio = append(ours, o), append(ort, r), append(ratio, o/r)
			}
			b.ReportMetric(median(ours), "ms/op")
			b.ReportMetric(median(ort), "ort-ms")
			b.ReportMetric(median(ratio), "x-ort")
		})
	}
}

// BenchmarkMobileNetV2ONNX runs torchvision's mobilenet_v2 exported to ONNX
// (depthwise convolutions and Clip(0, 6) epilogues).
func BenchmarkMobileNetV2ONNX(b *testing.B) {
	benchONNX(b, "MODELBRIDGE_MOBILENETV2_ONNX", "/tmp/mobilenet_v2.onnx", 1, 3, 224, 224)
}

// BenchmarkResNeXtBlockONNX runs torchvision resnext50_32x4d's layer1[1]
// (1×1, grouped 3×3 with 32 groups of 4 channels, 1×1, residual add)
// exported to ONNX, on a 256×56×56 input.
func BenchmarkResNeXtBlockONNX(b *testing.B) {
	benchONNX(b, "MODELBRIDGE_RESNEXT_BLOCK_ONNX", "/tmp/resnext50_block.onnx", 1, 256, 56, 56)
}

// resnextBlock builds the same block with BatchNorm kept as nodes.
func resnextBlock(tb testing.TB) *canon.Graph {
	b := newNetBuilder("x", 1, 256, 56, 56)
	y := b.relu(b.bn(b.conv("x", 256, 128, 1, 1, 0, 1, false), 128))
	y = b.relu(b.bn(b.conv(y, 128, 128, 3, 1, 1, 32, false), 128))
	y = b.bn(b.conv(y, 128, 256, 1, 1, 0, 1, false), 256)
	return b.finish(tb, b.relu(b.node(&canon.Binary{Fn: canon.Add}, y, "x")))
}

func BenchmarkResNeXtBlock(b *testing.B) {
	benchGraph(b, resnextBlock(b), 1, 256, 56, 56)
}

// BenchmarkORT runs the same ONNX files in ONNX Runtime (the install in
// $MODELBRIDGE_ORT_DIR) with as many threads as GOMAXPROCS, with graph
// optimizations on and off, so one `go test -bench 'ONNX|ORT'` compares
// both on the same machine and load. Its ms/op metric is ONNX Runtime's
// median latency over 20 samples (package ort's Time).
func BenchmarkORT(b *testing.B) {
	dir := ortDir(b)
	models := []struct{ name, env, def string }{
		{"ResNet18", "MODELBRIDGE_RESNET18_ONNX", "/tmp/resnet18.onnx"},
		{"MobileNetV2", "MODELBRIDGE_MOBILENETV2_ONNX", "/tmp/mobilenet_v2.onnx"},
		{"ResNeXtBlock", "MODELBRIDGE_RESNEXT_BLOCK_ONNX", "/tmp/resnext50_block.onnx"},
	}
	for _, m := range models {
		for _, opt := range []string{"all", "disabled"} {
			b.Run(m.name+"/"+opt, func(b *testing.B) {
				path := os.Getenv(m.env)
				if path == "" {
					path = m.def
				}
				if _, err := os.Stat(path); err != nil {
					b.Skipf("skipping: %s not found", path)
				}
				ms, err := ortRun(dir, path, opt)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(ms, "ms/op")
			})
		}
	}
}

// ortDir is $MODELBRIDGE_ORT_DIR, where ONNX Runtime is installed; the ONNX Runtime benchmarks run only when it is set, and skip
// saying what is missing when the install there is not usable.
func ortDir(b *testing.B) string {
	dir := os.Getenv(ortinstall.DirEnv)
	if dir == "" {
		b.Skipf("skipping: %s is not set", ortinstall.DirEnv)
	}
	if _, err := ort.Find(dir); err != nil {
		b.Skipf("skipping: %v", err)
	}
	return dir
}

// ortRun times the ONNX file at path in the ONNX Runtime installed in
// dir, with as many threads as GOMAXPROCS and graph optimization level
// opt, and returns its median latency over 20 samples in ms.
func ortRun(dir, path, opt string) (float64, error) { return ortRunN(dir, path, opt, 20) }

// ortRunN is ortRun over the given number of samples.
func ortRunN(dir, path, opt string, runs int) (float64, error) {
	rt, err := ort.Find(dir)
	if err != nil {
		return 0, err
	}
	times, err := rt.Time([]string{path}, ort.TimeOptions{Level: opt, Threads: runtime.GOMAXPROCS(0), Runs: runs})
	if err != nil {
		return 0, err
	}
	s := slices.Sorted(slices.Values(times[0]))
	return s[len(s)/2] * 1e3, nil
}

// BenchmarkConv3x3 times resnet18's 3×3 stride-1 layers alone: Winograd
// with the tiles the interpreter picks, then with F(2×2) and F(4×4) tiles
// everywhere (or, with MODELBRIDGE_NO_WINOGRAD=1, im2col).
func BenchmarkConv3x3(b *testing.B) {
	picked := wino4MinSize
	defer func() { wino4MinSize = picked }()
	for _, c := range []struct{ ch, size int64 }{{64, 56}, {128, 28}, {256, 14}, {512, 7}} {
		for _, t := range []struct {
			name string
			min  int
		}{{"", picked}, {"/F2x2", 1 << 30}, {"/F4x4", 4}} {
			b.Run(fmt.Sprintf("%dx%d%s", c.ch, c.size, t.name), func(b *testing.B) {
				wino4MinSize = t.min
				nb := newNetBuilder("x", 1, c.ch, c.size, c.size)
				y := nb.relu(nb.conv("x", c.ch, c.ch, 3, 1, 1, 1, true))
				benchGraph(b, nb.finish(b, y), 1, c.ch, c.size, c.size)
			})
		}
	}
}

// BenchmarkResNet18ONNXOnce compiles and runs resnet18 once per iteration,
// as a verification or `check` does: weight packing and Winograd
// transforms are paid every time.
func BenchmarkResNet18ONNXOnce(b *testing.B) {
	g, _ := benchModel(b, "MODELBRIDGE_RESNET18_ONNX", "/tmp/resnet18.onnx")
	useWinograd = os.Getenv("MODELBRIDGE_NO_WINOGRAD") == ""
	defer func() { useWinograd = true }()
	in := randTensor(rand.New(rand.NewSource(7)), "x", 1, 3, 224, 224)
	for range b.N {
		p, err := New(g)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Run(map[string]*canon.Tensor{g.Inputs[0].Name: in}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// BenchmarkPool times resnet18's 3×3 stride-2 max pool on 64×112×112 and
// an average pool of the same geometry.
func BenchmarkPool(b *testing.B) {
	pads := []int64{1, 1}
	for _, op := range []canon.Op{
		&canon.MaxPool{Kernel: []int64{3, 3}, Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: pads, PadsEnd: pads},
		&canon.AveragePool{Kernel: []int64{3, 3}, Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: pads, PadsEnd: pads},
	} {
		b.Run(op.Kind(), func(b *testing.B) {
			nb := newNetBuilder("x", 1, 64, 112, 112)
			benchGraph(b, nb.finish(b, nb.node(op, "x")), 1, 64, 112, 112)
		})
	}
}

// BenchmarkSmallHotSpots times, alone, the layers of mobilenet_v2 and
// resnet18 that are small but slow: the stem convolutions over 3 input
// channels, the one-row classifier, and the global average pool.
func BenchmarkSmallHotSpots(b *testing.B) {
	b.Run("StemConv3x3s2/3to32", func(b *testing.B) {
		nb := newNetBuilder("x", 1, 3, 224, 224)
		benchGraph(b, nb.finish(b, nb.conv("x", 3, 32, 3, 2, 1, 1, true)), 1, 3, 224, 224)
	})
	b.Run("StemConv7x7s2/3to64", func(b *testing.B) {
		nb := newNetBuilder("x", 1, 3, 224, 224)
		benchGraph(b, nb.finish(b, nb.conv("x", 3, 64, 7, 2, 3, 1, true)), 1, 3, 224, 224)
	})
	b.Run("Linear/1x1280to1000", func(b *testing.B) {
		nb := newNetBuilder("x", 1, 1280)
		y := nb.node(&canon.Linear{Alpha: 1, Beta: 1}, "x", nb.weight(0.03, 1000, 1280), nb.weight(0.1, 1000))
		benchGraph(b, nb.finish(b, y), 1, 1280)
	})
	b.Run("GlobalAveragePool/1280x7x7", func(b *testing.B) {
		nb := newNetBuilder("x", 1, 1280, 7, 7)
		benchGraph(b, nb.finish(b, nb.node(&canon.GlobalAveragePool{}, "x")), 1, 1280, 7, 7)
	})
}

// vsORTRuns is how many runs a round of BenchmarkVsORT times, given one
// run's time: 20, or as many as take about a second, at least 5.
func vsORTRuns(one time.Duration) int {
	return max(5, min(20, int(time.Second/max(one, time.Millisecond))))
}

// median is the median of v (which it sorts): the middle value, or the
// mean of the two middle ones.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[n/2]
}
