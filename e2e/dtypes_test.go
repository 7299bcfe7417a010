package e2e

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// dtypeGraph is a validated graph of nodes over the given run-time inputs.
func dtypeGraph(t *testing.T, inputs []*canon.Tensor, nodes []*canon.Node, outputs ...string) *canon.Graph {
	t.Helper()
	g := &canon.Graph{Name: "dtypes", Nodes: nodes}
	for _, in := range inputs {
		g.Inputs = append(g.Inputs, canon.ValueInfo{Name: in.Name, DType: in.DType, Shape: canon.DimsOf(in.Shape...), RankKnown: true})
	}
	for _, o := range outputs {
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	return g
}

func op1(op canon.Op, out string, ins ...string) *canon.Node {
	return &canon.Node{Name: out, Op: op, Inputs: ins, Outputs: []string{out}}
}

// rawTensor is a tensor of dtype dt and shape [n] whose element i is
// written by put into its bytes.
func rawTensor(name string, dt canon.DType, n int, put func(b []byte, i int)) *canon.Tensor {
	b := make([]byte, n*dt.Size())
	for i := range n {
		put(b, i)
	}
	return &canon.Tensor{Name: name, DType: dt, Shape: []int64{int64(n)}, Data: b}
}

// inORT exports g to ONNX, runs it in ONNX Runtime on inputs and returns
// its outputs by name, next to the interpreter's.
func inORT(t *testing.T, g *canon.Graph, inputs []*canon.Tensor) (inRuntime, ours map[string]*canon.Tensor) {
	t.Helper()
	rt := testfix.ORT(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.onnx")
	write(t, g, model, "onnx")
	inDir, outDir := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.MkdirAll(inDir, 0o755); err != nil {
		t.Fatal(err)
	}
	feed := map[string]*canon.Tensor{}
	for i, in := range inputs {
		feed[in.Name] = in
		if err := tensorfile.Save(in, filepath.Join(inDir, "input_"+strconv.Itoa(i)+".pb")); err != nil {
			t.Fatal(err)
		}
	}
	ours, err := interp.Run(g, feed)
	if err != nil {
		t.Fatalf("interpreter: %v", err)
	}
	if err := rt.RunDir(model, inDir, outDir, ort.Options{Level: "disabled"}); err != nil {
		t.Fatalf("ONNX Runtime: %v", err)
	}
	inRuntime = map[string]*canon.Tensor{}
	for i, o := range g.Outputs {
		v, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(i)))
		if err != nil {
			t.Fatal(err)
		}
		inRuntime[o.Name] = v
	}
	return inRuntime, ours
}

// TestFloat16ChainMatchesORT: a chain of float16 ops gives ONNX Runtime's
// bits exactly. ONNX Runtime's CPU provider computes float16 arithmetic in
// float32 between Casts it inserts and then removes, so the chain rounds
// only at its outputs and at an explicit Cast to float16 (here one read by
// a data-moving op, a Cast ONNX Runtime keeps).
func TestFloat16ChainMatchesORT(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 512
	half := func(name string, lo, hi float64) *canon.Tensor {
		return rawTensor(name, canon.Float16, n, func(b []byte, i int) {
			binary.LittleEndian.PutUint16(b[2*i:], canon.Float32ToHalf(float32(lo+(hi-lo)*r.Float64())))
		})
	}
	x, y := half("x", -8, 8), half("y", 0.5, 3)
	g := dtypeGraph(t, []*canon.Tensor{x, y}, []*canon.Node{
		op1(&canon.Binary{Fn: canon.Mul}, "m", "x", "y"),
		op1(&canon.Binary{Fn: canon.Add}, "a", "m", "x"),
		op1(&canon.Binary{Fn: canon.Div}, "d", "a", "y"),
		op1(&canon.Binary{Fn: canon.Sub}, "s", "d", "x"),
		op1(&canon.Binary{Fn: canon.Mul}, "s2", "s", "s"),
		op1(&canon.Unary{Fn: canon.Relu}, "rl", "s"),
		op1(&canon.Binary{Fn: canon.Add}, "z", "s2", "rl"),
		// a float32 detour back to float16 through an explicit Cast
		op1(&canon.Cast{To: canon.Float32}, "c32", "m"),
		op1(&canon.Cast{To: canon.Float32}, "c32b", "y"),
		op1(&canon.Binary{Fn: canon.Mul}, "c3", "c32", "c32b"),
		op1(&canon.Binary{Fn: canon.Add}, "w", "c32", "c3"),
		op1(&canon.Cast{To: canon.Float16}, "c16b", "c3"),
		op1(&canon.Unsqueeze{Axes: []int64{0}}, "u", "c16b"),
		op1(&canon.Binary{Fn: canon.Mul}, "v", "u", "u"),
	}, "z", "s", "v", "w")
	ort, ours := inORT(t, g, []*canon.Tensor{x, y})
	for _, name := range []string{"z", "s", "v"} {
		if ours[name].DType != canon.Float16 || ort[name].DType != canon.Float16 {
			t.Fatalf("%s: dtypes %s (interpreter) and %s (ONNX Runtime), want float16", name, ours[name].DType, ort[name].DType)
		}
		if !bytes.Equal(ours[name].Data, ort[name].Data) {
			diff := 0
			for i := 0; i < n; i++ {
				if binary.LittleEndian.Uint16(ours[name].Data[2*i:]) != binary.LittleEndian.Uint16(ort[name].Data[2*i:]) {
					diff++
				}
			}
			t.Errorf("%s: %d of %d float16 values differ from ONNX Runtime's", name, diff, n)
		}
	}
	// The float16 product m, read back as float32, is the unrounded float32
	// product in both.
	if ours["w"].DType != canon.Float32 || !bytes.Equal(ours["w"].Data, ort["w"].Data) {
		t.Errorf("w (float32 from an unrounded float16 chain) differs from ONNX Runtime's")
	}
	// Guard the test's reach: rounded to float16 after every op, the chain
	// would differ from ONNX Runtime somewhere.
	xs, _ := x.Float64s()
	ys, _ := y.Float64s()
	ss, _ := ort["s"].Float64s()
	h := func(v float32) float32 { return canon.HalfToFloat32(canon.Float32ToHalf(v)) }
	differs := false
	for i := range xs {
		xf, yf := float32(xs[i]), float32(ys[i])
		perOp := h(h(h(h(xf*yf)+xf)/yf) - xf)
		differs = differs || perOp != float32(ss[i])
	}
	if !differs {
		t.Fatal("rounding after every op gives ONNX Runtime's values too; the chain does not tell the two apart")
	}
}

// TestFloat64AndUint64MatchORT: float64 ops agree with ONNX Runtime to
// float64 precision, and uint64 values above 2^63 divide, compare and cast
// as ONNX Runtime does, exactly.
func TestFloat64AndUint64MatchORT(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 64
	f64 := func(name string, lo, hi float64) *canon.Tensor {
		return rawTensor(name, canon.Float64, n, func(b []byte, i int) {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(lo+(hi-lo)*r.Float64()))
		})
	}
	u64 := func(name string, gen func() uint64) *canon.Tensor {
		return rawTensor(name, canon.Uint64, n, func(b []byte, i int) { binary.LittleEndian.PutUint64(b[8*i:], gen()) })
	}
	x, y := f64("x", 1, 1+1e-9), f64("y", 0.5, 2)
	// The first values convert to float32 differently through float64
	// (rounded twice) than directly.
	first := []uint64{1<<60 + 1<<36 + 1, 1<<63 + 1<<39 + 1}
	k := 0
	ua := u64("ua", func() uint64 {
		if k++; k <= len(first) {
			return first[k-1]
		}
		return 1<<63 + r.Uint64N(1<<62)
	})
	ub := u64("ub", func() uint64 { return 1 + r.Uint64N(1<<40) })
	g := dtypeGraph(t, []*canon.Tensor{x, y, ua, ub}, []*canon.Node{
		op1(&canon.Binary{Fn: canon.Sub}, "fs", "x", "y"),
		op1(&canon.Binary{Fn: canon.Mul}, "fm", "fs", "x"),
		op1(&canon.Math{Fn: canon.MathLog}, "fl", "x"),
		op1(&canon.Reduce{Fn: canon.ReduceSum}, "fr", "fm"),
		op1(&canon.Softmax{Axis: -1}, "fsm", "fl"),
		op1(&canon.Unsqueeze{Axes: []int64{0}}, "xr", "x"),
		op1(&canon.Unsqueeze{Axes: []int64{1}}, "yc", "y"),
		op1(&canon.MatMul{}, "fmm", "yc", "xr"),
		op1(&canon.Reduce{Fn: canon.ReduceLogSumExp, Axes: []int64{1}}, "flse", "fmm"),
		op1(&canon.CumSum{Axis: 0}, "fcs", "fs"),
		op1(&canon.Binary{Fn: canon.Div}, "uq", "ua", "ub"),
		op1(&canon.Mod{}, "um", "ua", "ub"),
		op1(&canon.Compare{Fn: canon.CmpGreater}, "ug", "ua", "uq"),
		op1(&canon.Cast{To: canon.Float64}, "uf", "ua"),
		op1(&canon.Variadic{Fn: canon.VarMin}, "umin", "ua", "uq"),
		op1(&canon.Cast{To: canon.Float32}, "uf32", "ua"),
		op1(&canon.Cast{To: canon.Int64}, "ui", "ua"),
		op1(&canon.Cast{To: canon.Float32}, "if32", "ui"),
	}, "fs", "fm", "fl", "fr", "fsm", "fmm", "flse", "fcs", "uq", "um", "ug", "uf", "umin", "uf32", "if32")
	ort, ours := inORT(t, g, []*canon.Tensor{x, y, ua, ub})
	for _, o := range g.Outputs {
		a, b := ours[o.Name], ort[o.Name]
		if a.DType != b.DType {
			t.Errorf("%s: dtype %s, ONNX Runtime %s", o.Name, a.DType, b.DType)
			continue
		}
		if a.DType != canon.Float64 {
			if !bytes.Equal(a.Data, b.Data) {
				av, _ := a.Float64s()
				bv, _ := b.Float64s()
				t.Logf("%s: %v vs ONNX Runtime %v", o.Name, av[:4], bv[:4])
				t.Errorf("%s (%s): differs from ONNX Runtime", o.Name, a.DType)
			}
			continue
		}
		av, _ := a.Float64s()
		bv, _ := b.Float64s()
		for i := range av {
			if math.Abs(av[i]-bv[i]) > 1e-13*math.Max(1, math.Abs(bv[i])) {
				t.Errorf("%s[%d] = %.17g, ONNX Runtime %.17g", o.Name, i, av[i], bv[i])
				break
			}
		}
	}
	// x is within 1e-9 of 1, so log x is below 1e-9 and above 0: float32
	// holds such x as 1 (log 0) or 1+2^-23 (log 1.2e-7).
	fl, _ := ours["fl"].Float64s()
	for i, v := range fl {
		if v <= 0 || v > 1e-9 {
			t.Fatalf("log(x[%d]) = %g: x was not kept in float64", i, v)
		}
	}
}

// TestFloat16OpsMatchORT sandwiches each op between two float16 products:
// ONNX Runtime's CPU provider computes float16 ops without a float16 kernel
// in float32 and keeps the chain unrounded, which the interpreter
// reproduces; an op ONNX Runtime ran in float16 would round its input.
func TestFloat16OpsMatchORT(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const n = 256
	half := func(name string, lo, hi float64) *canon.Tensor {
		t := rawTensor(name, canon.Float16, n, func(b []byte, i int) {
			binary.LittleEndian.PutUint16(b[2*i:], canon.Float32ToHalf(float32(lo+(hi-lo)*r.Float64())))
		})
		t.Shape = []int64{16, 16}
		return t
	}
	x, y := half("x", -3, 3), half("y", 0.6, 1.7)
	ops := []struct {
		name string
		op   canon.Op
		ins  []string
	}{
		{"Relu", &canon.Unary{Fn: canon.Relu}, []string{"m"}},
		{"Sigmoid", &canon.Unary{Fn: canon.Sigmoid}, []string{"m"}},
		{"Tanh", &canon.Unary{Fn: canon.Tanh}, []string{"m"}},
		{"Exp", &canon.Math{Fn: canon.MathExp}, []string{"m"}},
		{"Abs", &canon.Math{Fn: canon.MathAbs}, []string{"m"}},
		{"Neg", &canon.Math{Fn: canon.MathNeg}, []string{"m"}},
		{"Softmax", &canon.Softmax{Axis: -1}, []string{"m"}},
		{"MatMul", &canon.MatMul{}, []string{"m", "y"}},
		{"Max", &canon.Variadic{Fn: canon.VarMax}, []string{"m", "y"}},
		{"ReduceSum", &canon.Reduce{Fn: canon.ReduceSum, Axes: []int64{1}, KeepDims: true}, []string{"m"}},
		{"Transpose", &canon.Transpose{Perm: []int64{1, 0}}, []string{"m"}},
		{"LeakyRelu", &canon.LeakyRelu{Alpha: 0.1}, []string{"m"}},
	}
	nodes := []*canon.Node{op1(&canon.Binary{Fn: canon.Mul}, "m", "x", "y")}
	var outs []string
	for _, o := range ops {
		nodes = append(nodes, op1(o.op, "o_"+o.name, o.ins...), op1(&canon.Binary{Fn: canon.Mul}, "z_"+o.name, "o_"+o.name, "y"))
		outs = append(outs, "z_"+o.name)
	}
	g := dtypeGraph(t, []*canon.Tensor{x, y}, nodes, outs...)
	ort, ours := inORT(t, g, []*canon.Tensor{x, y})
	for _, name := range outs {
		diff := 0
		for i := 0; i < len(ours[name].Data)/2; i++ {
			if binary.LittleEndian.Uint16(ours[name].Data[2*i:]) != binary.LittleEndian.Uint16(ort[name].Data[2*i:]) {
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("%s: %d of %d float16 values differ from ONNX Runtime's", name, diff, len(ours[name].Data)/2)
		}
	}
}
