package optimize

import (
	"slices"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

var (
	toNHWC = []int64{0, 2, 3, 1}
	toNCHW = []int64{0, 3, 1, 2}
)

func (b *gb) transpose(x string, perm []int64) string {
	return b.node(&canon.Transpose{Perm: perm}, x)
}

func (b *gb) binary(fn canon.BinaryFn, x, y string) string {
	return b.node(&canon.Binary{Fn: fn}, x, y)
}

// sinkOnly runs sink_transposes (and eliminate_dead), verifies the result
// through the interpreter and checks the graph outputs kept their names,
// order and count.
func sinkOnly(t *testing.T, g *canon.Graph) *canon.Graph {
	t.Helper()
	opt := runPasses(t, g, "sink_transposes")
	if got, want := outputNames(opt), outputNames(g); !slices.Equal(got, want) {
		t.Fatalf("outputs changed from %v to %v", want, got)
	}
	return opt
}

// A per-channel NHWC bias: the constant becomes [C,1,1] and both
// Transposes go.
func TestSinkTransposesPerChannelBias(t *testing.T) {
	b := newGB(21)
	x := b.input("x", 2, 5, 3, 4)
	y := b.transpose(x, toNHWC)
	y = b.binary(canon.Add, y, b.randW("", -1, 1, 5))
	y = b.transpose(y, toNCHW)
	opt := sinkOnly(t, b.output(y))
	if len(opt.Nodes) != 1 {
		t.Fatalf("%d nodes, want a single Add: %v", len(opt.Nodes), countOps(opt))
	}
	c := newIndex(opt).constant(opt.Nodes[0].Inputs[1])
	if c == nil || !slices.Equal(c.Shape, []int64{5, 1, 1}) {
		t.Fatalf("bias constant %+v, want shape [5 1 1]", c)
	}
}

// A constant with several non-1 axes has its data permuted, not just its
// shape; a Sub with the constant first keeps its operand order.
func TestSinkTransposesPermutesConstantData(t *testing.T) {
	b := newGB(22)
	x := b.input("x", 2, 5, 3, 4)
	y := b.transpose(x, toNHWC)
	y = b.binary(canon.Sub, b.randW("", -1, 1, 3, 4, 5), y)
	y = b.binary(canon.Mul, y, b.randW("", -1, 1, 1, 4, 1))
	y = b.transpose(y, toNCHW)
	opt := sinkOnly(t, b.output(y))
	wantOps(t, opt, map[string]int{"Transpose": 0, "Sub": 1, "Mul": 1})
}

// Add reading one transposed tensor twice, and Add of two tensors carrying
// the same Transpose: the Transpose moves below the Add.
func TestSinkTransposesThroughBinary(t *testing.T) {
	b := newGB(23)
	x := b.input("x", 2, 5, 3, 4)
	z := b.input("z", 2, 5, 3, 4)
	tx := b.transpose(x, toNHWC)
	y := b.binary(canon.Add, tx, tx)
	y = b.binary(canon.Mul, y, b.transpose(z, toNHWC))
	y = b.transpose(y, toNCHW)
	opt := sinkOnly(t, b.output(y))
	wantOps(t, opt, map[string]int{"Transpose": 0, "Add": 1, "Mul": 1})

	// Two transposed inputs and a transposed graph output: one Transpose
	// (at the output) instead of two.
	b = newGB(24)
	x = b.input("x", 2, 5, 3, 4)
	z = b.input("z", 2, 5, 3, 4)
	y = b.binary(canon.Add, b.transpose(x, toNHWC), b.transpose(z, toNHWC))
	y = b.relu(y)
	opt = sinkOnly(t, b.output(y))
	wantOps(t, opt, map[string]int{"Transpose": 1, "Add": 1, "Relu": 1})
}

// A Transpose read by several chains, each ending in the inverse
// Transpose, is sunk through all of them at once.
func TestSinkTransposesFanOut(t *testing.T) {
	b := newGB(25)
	x := b.input("x", 2, 5, 3, 4)
	tx := b.transpose(x, toNHWC)
	a := b.transpose(b.relu(tx), toNCHW)
	s := b.node(&canon.Unary{Fn: canon.Sigmoid}, tx)
	s = b.node(&canon.Clip{Min: -0.5, Max: 0.5}, s)
	s = b.transpose(s, toNCHW)
	h := b.transpose(b.node(&canon.HardSigmoid{Alpha: 0.2, Beta: 0.5}, tx), toNCHW)
	opt := sinkOnly(t, b.output(a, s, h))
	wantOps(t, opt, map[string]int{"Transpose": 0, "Relu": 1, "Sigmoid": 1, "Clip": 1, "HardSigmoid": 1})
}

// A fan-out where one branch cannot be moved: the Transpose stays for it,
// and the count never grows.
func TestSinkTransposesPartialFanOut(t *testing.T) {
	b := newGB(26)
	x := b.input("x", 2, 5, 3, 4)
	tx := b.transpose(x, toNHWC)
	a := b.transpose(b.relu(tx), toNCHW)
	m := b.node(&canon.MatMul{}, tx, b.randW("", -1, 1, 5, 2))
	opt := sinkOnly(t, b.output(a, m))
	wantOps(t, opt, map[string]int{"Transpose": 1, "Relu": 1, "MatMul": 1})
}

// The wrapper tf2onnx emits around a conv: NCHW -> NHWC, scale, bias,
// activation, a residual Add with another NHWC tensor, back to NCHW, Conv.
func TestSinkTransposesConvWrapper(t *testing.T) {
	b := newGB(27)
	x := b.input("x", 1, 4, 6, 6)
	y := b.conv(x, 4, 4, 3, 1, 1, 1, 1, true)
	nhwc := b.transpose(y, toNHWC)
	skip := b.transpose(x, toNHWC)
	h := b.binary(canon.Mul, nhwc, b.randW("", 0.5, 1.5, 4))
	h = b.binary(canon.Add, h, b.randW("", -1, 1, 4))
	h = b.node(&canon.LeakyRelu{Alpha: 0.1}, h)
	h = b.binary(canon.Add, h, skip)
	h = b.transpose(h, toNCHW)
	out := b.conv(h, 4, 8, 3, 1, 1, 1, 1, true)
	opt := sinkOnly(t, b.output(out))
	wantOps(t, opt, map[string]int{"Transpose": 0, "Conv": 2})
}

// Concat, Split, Softmax, Pad and ReduceMean have their axes remapped.
func TestSinkTransposesAxisOps(t *testing.T) {
	b := newGB(28)
	x := b.input("x", 2, 5, 3, 4)
	z := b.input("z", 2, 2, 3, 4)
	y := b.node(&canon.Concat{Axis: -1}, b.transpose(x, toNHWC), b.transpose(z, toNHWC)) // N,H,W,7
	y = b.node(&canon.Softmax{Axis: 2}, y)
	y = b.node(&canon.Pad{PadsBegin: []int64{0, 1, 0, 0}, PadsEnd: []int64{0, 0, 2, 1}, Value: 0.5}, y)
	split := &canon.Node{Name: "split", Op: &canon.Split{Axis: 3, Sizes: []int64{3, 5}}, Inputs: []string{y}, Outputs: []string{"s0", "s1"}}
	b.g.Nodes = append(b.g.Nodes, split)
	m := b.node(&canon.Reduce{Fn: canon.ReduceMean, Axes: []int64{1, 2}, KeepDims: true}, "s0")
	s0 := b.transpose(m, toNCHW)
	s1 := b.transpose("s1", toNCHW)
	// NHWC global average pool without keepdims: N,C either way.
	pooled := b.node(&canon.Reduce{Fn: canon.ReduceMean, Axes: []int64{1, 2}}, "s1")
	opt := sinkOnly(t, b.output(s0, s1, pooled))
	wantOps(t, opt, map[string]int{"Transpose": 0, "Concat": 1, "Softmax": 1, "Pad": 1, "Split": 1, "ReduceMean": 2})
}

// A Transpose whose move would pay nothing stays where it is.
func TestSinkTransposesLeavesUnprofitable(t *testing.T) {
	b := newGB(29)
	x := b.input("x", 2, 5, 3, 4)
	z := b.input("z", 2, 3, 4, 5)
	y := b.binary(canon.Add, b.transpose(x, toNHWC), z) // z would need a Transpose
	y = b.relu(y)
	g := b.output(y)
	opt := sinkOnly(t, g)
	wantOps(t, opt, map[string]int{"Transpose": 1})
	if countOps(opt)["Transpose"] > countOps(g)["Transpose"] {
		t.Error("more Transposes than before")
	}
}

// tf2onnxBlock builds what tf2onnx makes of a small NHWC residual network:
// every conv wrapped in Transposes, BiasAdd as an Add of a [C] constant in
// NHWC, a residual Add with an earlier NHWC tensor, NHWC outputs (the block
// output and its global average pool, in that order).
func tf2onnxBlock(seed uint64, residualFromInput bool) *canon.Graph {
	b := newGB(seed)
	x := b.input("input_nhwc", 1, 6, 6, 4)
	y := b.transpose(x, toNCHW)
	y = b.conv(y, 4, 4, 3, 1, 1, 1, 1, false)
	y = b.transpose(y, toNHWC)
	y = b.binary(canon.Add, y, b.randW("", -1, 1, 4)) // BiasAdd
	h := b.relu(y)
	y = b.transpose(h, toNCHW)
	y = b.conv(y, 4, 4, 3, 1, 1, 1, 1, false)
	y = b.transpose(y, toNHWC)
	y = b.binary(canon.Add, y, b.randW("", -1, 1, 4))
	skip := h
	if residualFromInput {
		skip = x
	}
	y = b.binary(canon.Add, y, skip)
	out := b.relu(y)
	pooled := b.node(&canon.Reduce{Fn: canon.ReduceMean, Axes: []int64{1, 2}}, out)
	return b.output(out, pooled)
}

func TestSinkTransposesTF2ONNXGraph(t *testing.T) {
	for _, fromInput := range []bool{false, true} {
		g := tf2onnxBlock(30, fromInput)
		before := countOps(g)["Transpose"]
		opt := sinkOnly(t, g)
		got := countOps(opt)["Transpose"]
		t.Logf("residual from input %v: %d -> %d nodes, %d -> %d Transposes", fromInput, len(g.Nodes), len(opt.Nodes), before, got)
		// One Transpose into the first conv's NCHW, one back to the NHWC
		// output; the pooled output needs none.
		if got != 2 {
			t.Errorf("residual from input %v: %d Transposes, want 2 (ops %v)", fromInput, got, countOps(opt))
		}

		// The whole pipeline then folds the biases into the convs.
		full, rep, err := Optimize(g, Options{Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(outputNames(full), outputNames(g)) {
			t.Errorf("outputs changed from %v to %v", outputNames(g), outputNames(full))
		}
		t.Logf("full pipeline: %d -> %d nodes, ops %v", rep.NodesBefore, rep.NodesAfter, countOps(full))
		wantOps(t, full, map[string]int{"Transpose": 2, "Conv": 2})
	}
}

func TestPermuteConstant(t *testing.T) {
	// c[h][w][c] = 100h + 10w + c, shape [2,3,4] aligned to N,H,W,C.
	v := make([]float32, 24)
	for h := range 2 {
		for w := range 3 {
			for c := range 4 {
				v[h*12+w*4+c] = float32(100*h + 10*w + c)
			}
		}
	}
	src := canon.NewFloat32Tensor("c", []int64{2, 3, 4}, v)
	out, ok := permuteConstant(src, toNHWC, "p")
	if !ok || !slices.Equal(out.Shape, []int64{4, 2, 3}) {
		t.Fatalf("shape %v, want [4 2 3]", out.Shape)
	}
	got, _ := out.Float64s()
	for c := range 4 {
		for h := range 2 {
			for w := range 3 {
				if want := float64(100*h + 10*w + c); got[c*6+h*3+w] != want {
					t.Fatalf("[%d,%d,%d] = %v, want %v", c, h, w, got[c*6+h*3+w], want)
				}
			}
		}
	}
}

// Random graphs of Transposes (any permutation of the last three axes of
// a [2,3,3,3] tensor keeps its shape, so everything composes), activations,
// binary ops between any two values or with constants, and Softmax: the
// pass must keep every output exact and never add a Transpose.
func TestSinkTransposesRandomGraphs(t *testing.T) {
	totalBefore, totalAfter := 0, 0
	perms := [][]int64{{0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {0, 3, 2, 1}}
	for seed := uint64(1); seed <= 60; seed++ {
		b := newGB(100 + seed)
		vals := []string{b.input("x", 2, 3, 3, 3), b.input("z", 2, 3, 3, 3)}
		pick := func() string { return vals[b.rng.IntN(len(vals))] }
		for range 14 {
			var v string
			switch k := b.rng.IntN(7); k {
			case 0, 1, 2:
				v = b.transpose(pick(), perms[b.rng.IntN(len(perms))])
			case 3:
				v = b.relu(pick())
			case 4:
				v = b.binary(canon.BinaryFn(b.rng.IntN(3)), pick(), pick())
			case 5:
				shapes := [][]int64{{3}, {3, 1, 1}, {3, 3, 3}, {1, 3, 1}}
				v = b.binary(canon.Mul, pick(), b.randW("", -1, 1, shapes[b.rng.IntN(len(shapes))]...))
			case 6:
				v = b.node(&canon.Softmax{Axis: int64(b.rng.IntN(4))}, pick())
			}
			vals = append(vals, v)
		}
		outs := []string{vals[len(vals)-1]}
		if o := vals[2+b.rng.IntN(len(vals)-3)]; o != outs[0] {
			outs = append(outs, o)
		}
		g := b.output(outs...)
		live := runPasses(t, g, "eliminate_dead") // the Transposes that matter
		opt := sinkOnly(t, g)
		before, after := countOps(live)["Transpose"], countOps(opt)["Transpose"]
		if after > before {
			t.Errorf("seed %d: %d -> %d Transposes", seed, before, after)
		}
		totalBefore += before
		totalAfter += after
	}
	t.Logf("%d -> %d live Transposes over all graphs", totalBefore, totalAfter)
	if totalAfter >= totalBefore {
		t.Error("the pass removed no Transpose from any random graph")
	}
}

// Every kind with the Elementwise trait lets a Transpose through, so the
// NHWC wrapper around it collapses; a broadcasting one takes a per-channel
// constant, which is stored permuted.
func TestSinkTransposesThroughEveryElementwiseOp(t *testing.T) {
	for _, d := range canon.Ops() {
		if !d.Traits.Elementwise {
			continue
		}
		t.Run(d.Kind, func(t *testing.T) {
			b := newGB(31)
			x := b.input("x", 2, 5, 3, 4)
			// Bool and integer ops (And, BitShift...) get their example's
			// input dtype through a Cast, and a constant of ones.
			dt := canon.Float32
			if ex := d.Example; ex != nil && len(ex().Inputs) > 0 {
				dt = ex().Inputs[0].DType
			}
			if dt != canon.Float32 {
				x = b.node(&canon.Cast{To: dt}, x)
			}
			in := []string{b.transpose(x, toNHWC)}
			if d.Traits.Broadcasts && dt != canon.Float32 {
				ones := &canon.Tensor{Name: b.name("c"), DType: dt, Shape: []int64{5}, Data: make([]byte, 5*dt.Size())}
				for i := range 5 {
					ones.Data[i*dt.Size()] = 1
				}
				b.g.Initializers = append(b.g.Initializers, ones)
				in = append(in, ones.Name)
			} else if d.Traits.Broadcasts {
				in = append(in, b.randW("", 0.5, 1.5, 5))
			}
			y := b.transpose(b.node(d.New(), in...), toNCHW)
			g := b.output(y)
			g.Outputs[0].DType = canon.Undefined // inferred: comparisons give bool
			opt := sinkOnly(t, g)
			if n := countOps(opt)["Transpose"]; n != 0 {
				t.Errorf("%d Transposes remain around %s: %v", n, d.Kind, countOps(opt))
			}
		})
	}
}
