package interp

// Tests of the fast paths against the straightforward ones they replace.

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// The row kernels of Reduce agree with the element-to-output map of
// reducePlan on reductions over trailing axes.
func TestReduceRowsMatchPlan(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	shapes := [][]int{{3, 5, 67}, {2, 4, 3, 9}, {1, 130}, {4, 0}, {600, 200}}
	fns := []canon.ReduceFn{canon.ReduceSum, canon.ReduceMean, canon.ReduceSumSquare, canon.ReduceL2, canon.ReduceL1}
	for _, shape := range shapes {
		for _, axes := range [][]int64{{-1}, {-2, -1}} {
			x := randTensor(r, "x", shape...)
			reduce := make([]bool, len(shape))
			for _, a := range axes {
				reduce[len(shape)+int(a)] = true
			}
			_, offs := reducePlan(shape, reduce, true)
			count := 1
			for i, d := range shape {
				if reduce[i] {
					count *= d
				}
			}
			xf := floats(t, x)
			m := len(xf) / max(count, 1)
			if count == 0 {
				m = numel(shape[:len(shape)-len(axes)])
			}
			for _, fn := range fns {
				want := reduceFloat(fn, xf, offs, m, count)
				got := floats(t, runMathGraph(t, &canon.Reduce{Fn: fn, Axes: axes, KeepDims: true}, x, canon.Float32))
				want32 := make([]float32, len(want))
				for i, v := range want {
					want32[i] = float32(v)
				}
				assertClose(t, fn.String(), got, want32, 1e-6)
			}
		}
	}
}

// TopK's heap selection gives what a stable sort of each row gives, ties
// to the lower index, along an inner axis too.
func TestTopKMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	shape := []int{3, 50, 4}
	v := make([]float32, numel(shape))
	for i := range v {
		v[i] = float32(r.Intn(20)) // many ties
	}
	x := canon.NewFloat32Tensor("x", i64s(shape), v)
	for _, k := range []int64{0, 1, 7, 50} {
		for _, largest := range []bool{true, false} {
			g := graphOf(&canon.TopK{Axis: 1, K: k, Largest: largest, Sorted: true}, map[string]*canon.Tensor{"x": x}, []string{"x"}, nil)
			g.Nodes[0].Outputs = []string{"y", "i"}
			g.Outputs = append(g.Outputs, canon.ValueInfo{Name: "i", DType: canon.Int64})
			res, err := Run(g, map[string]*canon.Tensor{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			gotV := floats(t, res["y"])
			gotI, err := res["i"].Int64s()
			if err != nil {
				t.Fatal(err)
			}
			for o := range shape[0] {
				for in := range shape[2] {
					order := make([]int, shape[1])
					for j := range order {
						order[j] = j
					}
					at := func(j int) float32 { return v[o*shape[1]*shape[2]+j*shape[2]+in] }
					sort.SliceStable(order, func(p, q int) bool {
						if largest {
							return at(order[p]) > at(order[q])
						}
						return at(order[p]) < at(order[q])
					})
					for j := range int(k) {
						dst := o*int(k)*shape[2] + j*shape[2] + in
						if gotI[dst] != int64(order[j]) || gotV[dst] != at(order[j]) {
							t.Fatalf("k=%d largest=%v row (%d,%d) entry %d: got %v@%d, want %v@%d", k, largest, o, in, j, gotV[dst], gotI[dst], at(order[j]), order[j])
						}
					}
				}
			}
		}
	}
}

// Where on operands of one shape (the parallel select) picks X where the
// condition holds and Y elsewhere, element by element.
func TestWhereSameShape(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	shape := []int{3, 70, 50}
	a, b := randTensor(r, "a", shape...), randTensor(r, "b", shape...)
	cond := make([]bool, numel(shape))
	raw := make([]byte, len(cond))
	for i := range cond {
		cond[i] = r.Intn(2) == 1
		if cond[i] {
			raw[i] = 1
		}
	}
	c := &canon.Tensor{Name: "c", DType: canon.Bool, Shape: i64s(shape), Data: raw}
	g := graphOf(&canon.Where{}, map[string]*canon.Tensor{"c": c, "a": a, "b": b}, []string{"c", "a", "b"}, nil)
	res, err := Run(g, map[string]*canon.Tensor{"c": c, "a": a, "b": b})
	if err != nil {
		t.Fatal(err)
	}
	got, av, bv := floats(t, res["y"]), floats(t, a), floats(t, b)
	for i, ok := range cond {
		want := bv[i]
		if ok {
			want = av[i]
		}
		if got[i] != want {
			t.Fatalf("element %d = %v, want %v", i, got[i], want)
		}
	}
}

// A run copies its float32 inputs: a kernel that writes over its input
// leaves the caller's tensor as it was, run after run.
func TestRunLeavesFloatInputsAlone(t *testing.T) {
	x := randTensor(rand.New(rand.NewSource(2)), "x", 4, 1000)
	before := append([]byte{}, x.Data...)
	nb := newNetBuilder("x", 4, 1000)
	p, err := New(nb.finish(t, nb.relu(nb.relu("x"))))
	if err != nil {
		t.Fatal(err)
	}
	var first []float32
	for run := range 3 {
		res, err := p.Run(map[string]*canon.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x.Data, before) {
			t.Fatalf("run %d changed the input", run)
		}
		got := floats(t, res[nb.g.Outputs[0].Name])
		if run == 0 {
			first = got
		} else if !slices.Equal(got, first) {
			t.Fatalf("run %d gave other values", run)
		}
	}
}

// dot32's vector code agrees with the float64 loop, tails included.
func TestDot32MatchesPlainLoop(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 23, 24, 256, 1001} {
		a, b := randTensor(r, "a", n), randTensor(r, "b", n+3)
		av, bv := floats(t, a), floats(t, b)
		got, want := dot32(av, bv), dotGo(av, bv)
		if d := math.Abs(float64(got - want)); d > 1e-5*(1+math.Sqrt(float64(n))) {
			t.Errorf("n=%d: %v, want %v", n, got, want)
		}
	}
}

// LSTM and GRU with the vector recurrent products agree with the plain
// float64 loop, over both directions and hidden sizes with a ragged tail.
func TestRecurrentVectorProducts(t *testing.T) {
	for _, hidden := range []int64{13, 40} {
		for _, c := range []struct {
			op    canon.RecurrentOp
			gates int64
		}{{&canon.LSTM{}, 4}, {&canon.GRU{}, 3}, {&canon.GRU{LinearBeforeReset: true}, 3}} {
			const seq, batch, in = 5, 2, 11
			c.op.Rec().Direction = canon.Bidirectional
			g := recurrentGraph(t, c.op, c.gates, hidden, 0.3, seq, batch, in)
			x := randTensor(rand.New(rand.NewSource(6)), "x", seq, batch, in)
			run := func() []float32 {
				res, err := Run(g, map[string]*canon.Tensor{"x": x})
				if err != nil {
					t.Fatal(err)
				}
				return floats(t, res[g.Outputs[0].Name])
			}
			got := run()
			recurrentPlain = true
			want := run()
			recurrentPlain = false
			assertClose(t, c.op.Kind(), got, want, 1e-5)
		}
	}
}

// meanVar's partial sums agree with the one-accumulator two-pass formula.
func TestMeanVarMatchesTwoPass(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for _, n := range []int{1, 3, 4, 5, 768, 3137} {
		v := floats(t, randTensor(r, "v", n))
		for i := range v {
			v[i] = v[i]*3 + 100 // an offset the variance must not lose
		}
		var mean, variance float64
		for _, e := range v {
			mean += float64(e)
		}
		mean /= float64(n)
		for _, e := range v {
			variance += (float64(e) - mean) * (float64(e) - mean)
		}
		variance /= float64(n)
		m, va := meanVar(v)
		if math.Abs(m-mean) > 1e-12*math.Abs(mean) || math.Abs(va-variance) > 1e-10*variance {
			t.Errorf("n=%d: meanVar = %v, %v; want %v, %v", n, m, va, mean, variance)
		}
	}
}

// A comparison without broadcasting (same shapes, or a scalar right side)
// agrees with the broadcasting walk, here forced by a size-1 leading axis.
func TestCompareUnbroadcast(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	a := randTensor(r, "a", 1, 40, 30)
	b := randTensor(r, "b", 1, 40, 30)
	b1 := randTensor(r, "b", 1, 1, 30) // broadcast: the general walk
	zero := canon.NewFloat32Tensor("b", nil, []float32{0})
	run := func(b *canon.Tensor, fn canon.CompareFn) []int64 {
		g := graphOf(&canon.Compare{Fn: fn}, map[string]*canon.Tensor{"a": a, "b": b}, []string{"a", "b"}, nil)
		g.Outputs[0].DType = canon.Bool
		res, err := Run(g, map[string]*canon.Tensor{"a": a, "b": b})
		if err != nil {
			t.Fatal(err)
		}
		v, err := res["y"].Int64s()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	av, bv, b1v := floats(t, a), floats(t, b), floats(t, b1)
	for _, fn := range []canon.CompareFn{canon.CmpGreater, canon.CmpLessOrEqual, canon.CmpEqual} {
		same, scalar, bcast := run(b, fn), run(zero, fn), run(b1, fn)
		for i := range av {
			if same[i] != b2i(fn.Holds(float64(av[i]), float64(bv[i]))) || scalar[i] != b2i(fn.Holds(float64(av[i]), 0)) ||
				bcast[i] != b2i(fn.Holds(float64(av[i]), float64(b1v[i%30]))) {
				t.Fatalf("%s: element %d differs", fn, i)
			}
		}
	}
}

// Transposes that swap two blocks of axes (the tiled path) agree with the
// general strided permute, for floats and integers.
func TestTransposeBlocksMatchPermute(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	shape := []int{2, 5, 37, 33}
	for _, perm := range [][]int64{{0, 2, 3, 1}, {0, 3, 1, 2}, {0, 1, 3, 2}, {1, 2, 3, 0}, {2, 3, 0, 1}, {0, 2, 1, 3}} {
		x := randTensor(r, "x", shape...)
		got := floats(t, runMathGraph(t, &canon.Transpose{Perm: perm}, x, canon.Float32))
		outShape := make([]int, 4)
		str := make([]int, 4)
		es := elemStrides(shape)
		for i, p := range perm {
			outShape[i], str[i] = shape[p], es[p]
		}
		want := make([]float32, len(got))
		permute(want, floats(t, x), outShape, str)
		if !slices.Equal(got, want) {
			t.Errorf("perm %v: values differ", perm)
		}
		wantI := make([]int64, len(got))
		src := make([]int64, len(got))
		for i := range src {
			src[i] = int64(i)
		}
		permute(wantI, src, outShape, str)
		if b, rows, cols, ok := blockSwap(shape, perm); ok {
			gotI := make([]int64, len(got))
			transposeBlocks(gotI, src, b, rows, cols)
			if !slices.Equal(gotI, wantI) {
				t.Errorf("perm %v: int64 values differ", perm)
			}
		} else if perm[1] != 2 {
			t.Errorf("perm %v: not taken as a block swap", perm)
		}
	}
}

// Attention's matrix-product form agrees with the definition computed
// element by element in float64: 3-D operands with grouped heads, past
// keys and values, an additive mask, a soft cap and causal masking.
func TestAttentionMatchesDefinition(t *testing.T) {
	const B, Sq, Skv, P, Hq, Hkv, D, Dv = 2, 5, 4, 3, 4, 2, 6, 3
	r := rand.New(rand.NewSource(12))
	q, k, v := randTensor(r, "q", B, Sq, Hq*D), randTensor(r, "k", B, Skv, Hkv*D), randTensor(r, "v", B, Skv, Hkv*Dv)
	pk, pv := randTensor(r, "pk", B, Hkv, P, D), randTensor(r, "pv", B, Hkv, P, Dv)
	mask := randTensor(r, "m", Sq, P+Skv)
	op := &canon.Attention{QNumHeads: Hq, KVNumHeads: Hkv, IsCausal: true, Softcap: 2}
	ins := map[string]*canon.Tensor{"q": q, "k": k, "v": v, "m": mask, "pk": pk, "pv": pv}
	g := graphOf(op, ins, []string{"q", "k", "v", "m", "pk", "pv"}, nil)
	g.Nodes[0].Outputs = []string{"y", "present_k", "present_v"}
	res, err := Run(g, ins)
	if err != nil {
		t.Fatal(err)
	}
	got := floats(t, res["y"])
	qf, kf, vf, pkf, pvf, mf := floats(t, q), floats(t, k), floats(t, v), floats(t, pk), floats(t, pv), floats(t, mask)
	want := make([]float32, len(got))
	scale := 1 / math.Sqrt(D)
	for b := range B {
		for h := range Hq {
			kvh := h / (Hq / Hkv)
			key := func(j, d int) float64 {
				if j < P {
					return float64(pkf[((b*Hkv+kvh)*P+j)*D+d])
				}
				return float64(kf[(b*Skv+j-P)*Hkv*D+kvh*D+d])
			}
			val := func(j, d int) float64 {
				if j < P {
					return float64(pvf[((b*Hkv+kvh)*P+j)*Dv+d])
				}
				return float64(vf[(b*Skv+j-P)*Hkv*Dv+kvh*Dv+d])
			}
			for i := range Sq {
				s := make([]float64, P+Skv)
				for j := range s {
					for d := range D {
						s[j] += float64(qf[(b*Sq+i)*Hq*D+h*D+d]) * key(j, d)
					}
					s[j] = 2 * math.Tanh(s[j]*scale/2)
					s[j] += float64(mf[i*(P+Skv)+j])
					if j > i+P {
						s[j] = math.Inf(-1)
					}
				}
				softmaxRow(s)
				for d := range Dv {
					var a float64
					for j, p := range s {
						a += p * val(j, d)
					}
					want[(b*Sq+i)*Hq*Dv+h*Dv+d] = float32(a)
				}
			}
		}
	}
	assertClose(t, "attention", got, want, 1e-5)
}

// Recurrent units split between cores give the same bits as one core
// (each unit's products and activations are its own).
func TestRecurrentUnitsSplitAcrossCores(t *testing.T) {
	defer func(on bool) { recurrentTwoCores = on }(recurrentTwoCores)
	recurrentTwoCores = true
	defer func(n int) { recurrentCrewBytes = n }(recurrentCrewBytes)
	recurrentCrewBytes = 0 // a crew for the small layers too
	const seq, batch, in, hidden = 3, 1, 7, 300
	for _, c := range []struct {
		op    canon.RecurrentOp
		gates int64
	}{{&canon.LSTM{}, 4}, {&canon.GRU{}, 3}, {&canon.GRU{LinearBeforeReset: true}, 3}} {
		g := recurrentGraph(t, c.op, c.gates, hidden, 0.1, seq, batch, in)
		x := randTensor(rand.New(rand.NewSource(9)), "x", seq, batch, in)
		run := func(procs int) []float32 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			res, err := Run(g, map[string]*canon.Tensor{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			return floats(t, res[g.Outputs[0].Name])
		}
		one, two := run(1), run(2)
		for i := range one {
			if math.Float32bits(one[i]) != math.Float32bits(two[i]) {
				t.Fatalf("%s: element %d is %v on one core, %v on two", c.op.Kind(), i, one[i], two[i])
			}
		}
	}
}

// recurrentGraph is op (its direction already set) over an input x of
// shape [seq, batch, in], with random W, R (scaled by rScale) and B.
func recurrentGraph(t *testing.T, op canon.RecurrentOp, gates, hidden int64, rScale float32, seq, batch, in int) *canon.Graph {
	t.Helper()
	r := op.Rec()
	dirs := r.Direction.NumDirections()
	r.HiddenSize = hidden
	r.Activations = canon.DefaultActivations(op, dirs)
	nb := newNetBuilder("x", int64(seq), int64(batch), int64(in))
	d := int64(dirs)
	w := nb.weight(0.3, d, gates*hidden, int64(in))
	rw := nb.weight(rScale, d, gates*hidden, hidden)
	bias := nb.weight(0.3, d, 2*gates*hidden)
	return nb.finish(t, nb.node(op, "x", w, rw, bias))
}

// A strided permute split between cores (rows of the last axis, each
// worker starting mid-shape) writes what one pass writes, element by
// element as the definition says.
func TestPermuteSplitRows(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for _, c := range []struct {
		shape []int
		perm  []int
	}{{[]int{12, 197, 64}, []int{1, 0, 2}}, {[]int{3, 70, 5, 131}, []int{2, 0, 1, 3}}, {[]int{5, 7, 9000}, []int{1, 0, 2}}} {
		src := floats(t, randTensor(r, "x", c.shape...))
		es := elemStrides(c.shape)
		out, str := make([]int, len(c.shape)), make([]int, len(c.shape))
		for i, p := range c.perm {
			out[i], str[i] = c.shape[p], es[p]
		}
		got := make([]float32, len(src))
		permute(got, src, out, str)
		want := make([]float32, len(src))
		forEachIndex(out, func(o []int) {
			off := 0
			for i, v := range o {
				off += v * str[i]
			}
			want[flat(out, o)] = src[off]
		})
		if !slices.Equal(got, want) {
			t.Errorf("shape %v perm %v: values differ", c.shape, c.perm)
		}
		rows := len(src) / out[len(out)-1]
		part := make([]float32, len(src))
		for _, cut := range []int{1, rows / 3, rows - 1} {
			permuteRows(part, src, out, str, 0, cut)
			permuteRows(part, src, out, str, cut, rows)
			if !slices.Equal(part, want) {
				t.Errorf("shape %v perm %v: rows cut at %d differ", c.shape, c.perm, cut)
			}
		}
	}
}

// A Concat split between cores (each worker's range of the output
// starting mid-input) gives the inputs' elements in order, along an inner
// axis with several outer rows and along the outermost axis, an empty
// input among them.
func TestConcatSplitBetweenCores(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for _, c := range []struct {
		axis   int64
		shapes [][]int
	}{
		{1, [][]int{{3, 250, 7, 11}, {3, 0, 7, 11}, {3, 333, 7, 11}, {3, 5, 7, 11}}},
		{0, [][]int{{1, 768}, {196, 768}}},
		{1, [][]int{{1, 256, 16, 16}, {1, 256, 16, 16}, {1, 256, 16, 16}, {1, 256, 16, 16}, {1, 256, 16, 16}}},
	} {
		in := map[string]*canon.Tensor{}
		var names []string
		var vals [][]float32
		for k, s := range c.shapes {
			name := fmt.Sprintf("x%d", k)
			in[name] = randTensor(r, name, s...)
			names = append(names, name)
			vals = append(vals, floats(t, in[name]))
		}
		out, err := Run(graphOf(&canon.Concat{Axis: c.axis}, in, names, nil), in)
		if err != nil {
			t.Fatal(err)
		}
		var want []float32
		outer := numel(c.shapes[0][:c.axis])
		for o := range outer {
			for k, s := range c.shapes {
				chunk := numel(s[c.axis:])
				want = append(want, vals[k][o*chunk:(o+1)*chunk]...)
			}
		}
		if got := floats(t, out["y"]); !slices.Equal(got, want) {
			t.Errorf("axis %d of %v: the concatenation differs", c.axis, c.shapes)
		}
	}
}
