package interp

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/ortinstall"
)

// opFamilyCase is one small model that exercises one op family at a size
// real networks use.
type opFamilyCase struct {
	name  string
	build func(tb testing.TB) *canon.Graph
}

// input declares one more float32 graph input.
func (b *netBuilder) input(name string, shape ...int64) string {
	b.g.Inputs = append(b.g.Inputs, canon.ValueInfo{Name: name, DType: canon.Float32, Shape: canon.DimsOf(shape...), RankKnown: true})
	return name
}

// i64 adds an int64 initializer.
func (b *netBuilder) i64(shape []int64, v []int64) string {
	t := canon.NewInt64Tensor(b.name("i"), shape, v)
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

// oneOp is a graph of op applied to a fresh input x of the given shape and
// to extra random weights of the given shapes.
func oneOp(op canon.Op, x []int64, weights ...[]int64) func(tb testing.TB) *canon.Graph {
	return func(tb testing.TB) *canon.Graph {
		nb := newNetBuilder("x", x...)
		ins := []string{"x"}
		for _, w := range weights {
			ins = append(ins, nb.weight(1, w...))
		}
		return nb.finish(tb, nb.node(op, ins...))
	}
}

// twoInputs is a graph of op on two fresh inputs.
func twoInputs(op canon.Op, a, b []int64) func(tb testing.TB) *canon.Graph {
	return func(tb testing.TB) *canon.Graph {
		nb := newNetBuilder("a", a...)
		nb.input("b", b...)
		return nb.finish(tb, nb.node(op, "a", "b"))
	}
}

func recurrentCase(op canon.RecurrentOp, gates int64) func(tb testing.TB) *canon.Graph {
	return func(tb testing.TB) *canon.Graph {
		const seq, batch, in, hidden = 32, 1, 128, 256
		r := op.Rec()
		r.HiddenSize = hidden
		r.Activations = canon.DefaultActivations(op, 1)
		nb := newNetBuilder("x", seq, batch, in)
		w := nb.weight(0.1, 1, gates*hidden, in)
		rw := nb.weight(0.1, 1, gates*hidden, hidden)
		bias := nb.weight(0.1, 1, 2*gates*hidden)
		return nb.finish(tb, nb.node(op, "x", w, rw, bias))
	}
}

// attentionBlock is softmax(Q·Kᵀ/8)·V over 12 heads of 128 tokens × 64.
func attentionBlock(tb testing.TB) *canon.Graph {
	shape := []int64{1, 12, 128, 64}
	nb := newNetBuilder("q", shape...)
	nb.input("k", shape...)
	nb.input("v", shape...)
	kt := nb.node(&canon.Transpose{Perm: []int64{0, 1, 3, 2}}, "k")
	s := nb.node(&canon.MatMul{}, "q", kt)
	scale := canon.NewFloat32Tensor(nb.name("scale"), nil, []float32{0.125})
	nb.g.Initializers = append(nb.g.Initializers, scale)
	s = nb.node(&canon.Binary{Fn: canon.Mul}, s, scale.Name)
	p := nb.node(&canon.Softmax{Axis: -1}, s)
	return nb.finish(tb, nb.node(&canon.MatMul{}, p, "v"))
}

func attentionOp(tb testing.TB) *canon.Graph {
	shape := []int64{1, 12, 128, 64}
	nb := newNetBuilder("q", shape...)
	nb.input("k", shape...)
	nb.input("v", shape...)
	return nb.finish(tb, nb.node(&canon.Attention{}, "q", "k", "v"))
}

// whereCase is Where(x > 0, x, y).
func whereCase(tb testing.TB) *canon.Graph {
	shape := []int64{1, 64, 56, 56}
	nb := newNetBuilder("x", shape...)
	nb.input("y", shape...)
	zero := canon.NewFloat32Tensor(nb.name("zero"), nil, []float32{0})
	nb.g.Initializers = append(nb.g.Initializers, zero)
	c := nb.node(&canon.Compare{Fn: canon.CmpGreater}, "x", zero.Name)
	return nb.finish(tb, nb.node(&canon.Where{}, c, "x", "y"))
}

func gatherCase(tb testing.TB) *canon.Graph {
	nb := newNetBuilder("x", 1, 64, 56, 56)
	idx := make([]int64, 32)
	for i := range idx {
		idx[i] = int64(63 - 2*i)
	}
	return nb.finish(tb, nb.node(&canon.Gather{Axis: 1}, "x", nb.i64([]int64{32}, idx)))
}

func topKCase(k int64, shape ...int64) func(tb testing.TB) *canon.Graph {
	return func(tb testing.TB) *canon.Graph {
		nb := newNetBuilder("x", shape...)
		op := &canon.TopK{Axis: -1, K: k, Largest: true, Sorted: true}
		out := nb.name("topk")
		nb.g.Nodes = append(nb.g.Nodes, &canon.Node{Name: nb.name("TopK"), Op: op, Inputs: []string{"x"}, Outputs: []string{out, out + "_idx"}})
		g := nb.finish(tb, out)
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: out + "_idx", DType: canon.Int64})
		return g
	}
}

func opFamilyCases() []opFamilyCase {
	img := []int64{1, 64, 56, 56}
	tok := []int64{1, 128, 768}
	ffn := []int64{1, 128, 3072}
	head := []int64{1, 12, 128, 64}
	scores := []int64{1, 12, 128, 128}
	ch := []int64{64}
	resize := func(mode canon.ResizeMode) canon.Op {
		return &canon.Resize{Scales: []float32{1, 1, 2, 2}, Mode: mode, CoordTransform: canon.HalfPixel, Nearest: canon.RoundPreferFloor, CubicCoeffA: -0.75}
	}
	return []opFamilyCase{
		{"LayerNorm/1x128x768", oneOp(&canon.LayerNorm{Axis: -1, Epsilon: 1e-5, Stash: canon.Float32}, tok, []int64{768}, []int64{768})},
		{"GroupNorm/1x64x56x56", oneOp(&canon.GroupNorm{NumGroups: 32, Epsilon: 1e-5, Stash: canon.Float32}, img, ch, ch)},
		{"InstanceNorm/1x64x56x56", oneOp(&canon.InstanceNorm{Epsilon: 1e-5}, img, ch, ch)},
		{"BatchNorm/1x64x56x56", oneOp(&canon.BatchNorm{Epsilon: 1e-5}, img, ch, ch, ch, ch)},
		{"Softmax/1x12x128x128", oneOp(&canon.Softmax{Axis: -1}, scores)},
		{"Gelu/1x128x3072", oneOp(&canon.Gelu{}, ffn)},
		{"Erf/1x128x3072", oneOp(&canon.Math{Fn: canon.MathErf}, ffn)},
		{"MatMul/1x12x128x64@64x128", twoInputs(&canon.MatMul{}, head, []int64{1, 12, 64, 128})},
		{"AttentionBlock/1x12x128x64", attentionBlock},
		{"Attention/1x12x128x64", attentionOp},
		{"Einsum/bhid,bhjd->bhij", twoInputs(&canon.Einsum{Equation: "bhid,bhjd->bhij"}, head, head)},
		{"LSTM/32x1x128h256", recurrentCase(&canon.LSTM{}, 4)},
		{"GRU/32x1x128h256", recurrentCase(&canon.GRU{}, 3)},
		{"ResizeLinear/1x64x56x56x2", oneOp(resize(canon.ResizeLinear), img)},
		{"ResizeNearest/1x64x56x56x2", oneOp(resize(canon.ResizeNearest), img)},
		{"GridSample/1x64x56x56", twoInputs(&canon.GridSample{Mode: canon.ResizeLinear}, img, []int64{1, 56, 56, 2})},
		{"ReduceMean/1x128x3072", oneOp(&canon.Reduce{Fn: canon.ReduceMean, Axes: []int64{-1}, KeepDims: true}, ffn)},
		{"ReduceSum/1x64x56x56", oneOp(&canon.Reduce{Fn: canon.ReduceSum, Axes: []int64{-1}, KeepDims: true}, img)},
		{"Transpose/1x64x56x56-NHWC", oneOp(&canon.Transpose{Perm: []int64{0, 2, 3, 1}}, img)},
		{"Concat/2x1x64x56x56", twoInputs(&canon.Concat{Axis: 1}, img, img)},
		{"Slice/1x64x56x56", oneOp(&canon.Slice{Starts: []int64{8, 1, 1}, Ends: []int64{56, 55, 55}, Axes: []int64{1, 2, 3}, Steps: []int64{1, 1, 2}}, img)},
		{"Gather/1x64x56x56", gatherCase},
		{"Where/1x64x56x56", whereCase},
		{"PadReflect/1x64x56x56", oneOp(&canon.Pad{Mode: canon.PadReflect, PadsBegin: []int64{0, 0, 2, 2}, PadsEnd: []int64{0, 0, 2, 2}}, img)},
		{"TopK/128x1000k5", topKCase(5, 128, 1000)},
		{"TopK/1x100000k300", topKCase(300, 1, 100000)},
		{"CumSum/1x64x3136", oneOp(&canon.CumSum{Axis: -1}, []int64{1, 64, 3136})},
	}
}

// opFamilyOpset is the opset the models are written at: high enough that
// LayerNormalization, GroupNormalization, GridSample and Attention stay
// single nodes instead of being expanded into their function bodies.
const opFamilyOpset = 23

// BenchmarkOpFamilies runs each op family alone, in the interpreter and,
// when $MODELBRIDGE_ORT_DIR holds ONNX Runtime, in ONNX Runtime on the
// same ONNX file (all graph optimizations, GOMAXPROCS threads), in
// alternation as BenchmarkVsORT does: 7 rounds of 5 to 30 samples (about
// 0.2 s) on each side, a sample the mean of the runs that fill 5 ms (as
// ONNX Runtime's timer takes them), so that both meet the same machine
// load and are measured alike. It reports the median samples (ms/op,
// ort-ms), the median of the 7 paired ratios of the rounds' medians
// (x-ort) and the interpreter's CPU time a run (cpu-ms/op). The model goes through the ONNX exporter and importer, so the
// interpreter runs what ONNX Runtime runs. Run it with -benchtime 1x.
func BenchmarkOpFamilies(b *testing.B) {
	dir := os.Getenv(ortinstall.DirEnv)
	for _, c := range opFamilyCases() {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "model.onnx")
			if err := onnxexport.Write(c.build(b), path, formats.WriteOptions{Opset: opFamilyOpset}); err != nil {
				b.Fatal(err)
			}
			g, err := onnximport.Read(path, formats.ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			run, cpu := opFamilyRunner(b, g)
			// Warm the buffer pool, the caches and the machine: an op of
			// 0.1 ms timed right after ONNX Runtime's process exits would
			// otherwise measure that exit's aftermath.
			for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
				run(1, 1)
			}
			one := time.Duration(run(5, 1) * 1e6)
			reps := max(1, int(5*time.Millisecond/max(one, time.Microsecond)))
			samples := max(5, min(30, int(200*time.Millisecond/max(one*time.Duration(reps), time.Microsecond))))
			var ours, ort, ratio []float64
			for round := range 7 {
				o := run(samples, reps)
				ours = append(ours, o)
				if dir == "" {
					continue
				}
				r, err := ortRunN(dir, path, "all", samples)
				if err != nil {
					if round == 0 {
						b.Logf("ONNX Runtime: %v", err)
						break
					}
					b.Fatal(err)
				}
				ort, ratio = append(ort, r), append(ratio, o/r)
			}
			b.ReportMetric(median(ours), "ms/op")
			b.ReportMetric(cpu(), "cpu-ms/op")
			if len(ort) > 0 {
				b.ReportMetric(median(ort), "ort-ms")
				b.ReportMetric(median(ratio), "x-ort")
			}
		})
	}
}

// opFamilyRunner returns a function that times g on random values for
// every graph input: the median of n samples, each the mean milliseconds
// of reps runs; and one that gives the process's CPU time a run over every
// timed run so far (on a busy machine the steadier measure of the work).
func opFamilyRunner(b *testing.B, g *canon.Graph) (run func(n, reps int) float64, cpu func() float64) {
	p, err := New(g)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(7))
	inputs := map[string]*canon.Tensor{}
	for _, in := range g.Inputs {
		shape := make([]int, len(in.Shape))
		for i, d := range in.Shape {
			shape[i] = int(d.Size)
		}
		inputs[in.Name] = randTensor(r, in.Name, shape...)
	}
	var cpuSum time.Duration
	var runs int
	// Outputs overwrite the last run's, as a caller repeating runs keeps
	// them (RunInto): a fresh output a run is garbage the collector
	// would take a core for at two threads.
	outs := map[string]*canon.Tensor{}
	run = func(n, reps int) float64 {
		times := make([]float64, 0, n)
		c0 := cpuTime()
		defer func() { cpuSum += cpuTime() - c0; runs += n * reps }()
		for range n {
			start := time.Now()
			for range reps {
				if err := p.RunInto(inputs, outs); err != nil {
					b.Fatal(err)
				}
			}
			times = append(times, float64(time.Since(start).Nanoseconds())/1e6/float64(reps))
		}
		return median(times)
	}
	cpu = func() float64 { return float64(cpuSum.Microseconds()) / 1000 / float64(max(runs, 1)) }
	return run, cpu
}
