package quantize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func TestStaticPlacement(t *testing.T) {
	g := smallCNN()
	q, rep, err := Static(g, randomInputs{g, 16, 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ops := countOps(q)
	// Relu and Clip(0, 6) are folded; Softmax stays float.
	for kind, want := range map[string]int{"Relu": 0, "Clip": 0, "Softmax": 1, "Conv": 3, "Linear": 1, "MaxPool": 1, "Add": 1, "Concat": 1, "GlobalAveragePool": 1, "Flatten": 1} {
		if ops[kind] != want {
			t.Errorf("%d %s nodes, want %d (ops %v)", ops[kind], kind, want, ops)
		}
	}
	if rep.Folded != 2 {
		t.Errorf("folded %d activations, want 2", rep.Folded)
	}
	prod := q.Producers()
	inits := q.InitializerIndex()
	dq := func(v string) *canon.Node {
		n := prod[v]
		if n == nil || n.Op.Kind() != "DequantizeLinear" {
			t.Fatalf("%q is not dequantized (producer %v)", v, n)
		}
		return n
	}
	for _, n := range q.Nodes {
		switch n.Op.(type) {
		case *canon.Conv, *canon.Linear:
			dq(n.Inputs[0])
			w := dq(n.Inputs[1])
			if wt := inits[w.Inputs[0]]; wt == nil || wt.DType != canon.Int8 || w.Op.(*canon.DequantizeLinear).Axis != 0 || len(inits[w.Inputs[1]].Shape) != 1 {
				t.Errorf("node %s: weight is not per-channel int8 on axis 0", n.Name)
			}
			if b := dq(n.Inputs[2]); inits[b.Inputs[0]].DType != canon.Int32 {
				t.Errorf("node %s: bias is not int32", n.Name)
			}
			// Its output is quantized right after it.
			if cons := q.Consumers()[n.Outputs[0]]; len(cons) != 1 || cons[0].Op.Kind() != "QuantizeLinear" {
				t.Errorf("node %s: output not quantized", n.Name)
			}
		case *canon.Binary, *canon.Concat, *canon.GlobalAveragePool, *canon.MaxPool:
			for _, in := range n.Inputs {
				dq(in)
			}
		case *canon.Softmax:
			dq(n.Inputs[0]) // reads the dequantized logits
		}
	}
	// Activations are uint8, per tensor; MaxPool's output shares its input's quantization.
	for _, n := range q.Nodes {
		if n.Op.Kind() == "QuantizeLinear" && (inits[n.Inputs[2]].DType != canon.Uint8 || len(inits[n.Inputs[1]].Shape) != 0) {
			t.Errorf("%s: activation quantization is not per-tensor uint8", n.Name)
		}
	}
	errs, err := Evaluate(g, q, randomInputs{g, 8, 99}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sqnrFloor(t, errs, 30)
}

// Resize shares its input's quantization; a constant operand of Mul is
// quantized like an activation (same integer type as the other input).
func TestStaticResizeMul(t *testing.T) {
	g := smallUpsampler()
	q, rep, err := Static(g, randomInputs{g, 8, 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"Resize", "Mul", "Concat", "pooling", "Conv"} {
		if rep.Quantized[c] == 0 {
			t.Errorf("%s not quantized: %v", c, rep.Quantized)
		}
	}
	prod := q.Producers()
	inits := q.InitializerIndex()
	for _, n := range q.Nodes {
		switch n.Op.(type) {
		case *canon.Resize:
			in := prod[n.Inputs[0]]
			var out *canon.Node
			for _, c := range q.Consumers()[n.Outputs[0]] {
				out = c
			}
			if in.Op.Kind() != "DequantizeLinear" || out.Op.Kind() != "QuantizeLinear" ||
				string(inits[in.Inputs[1]].Data) != string(inits[out.Inputs[1]].Data) {
				t.Errorf("Resize does not keep its input's scale")
			}
		case *canon.Binary:
			for _, in := range n.Inputs {
				d := prod[in]
				if d == nil || d.Op.Kind() != "DequantizeLinear" || inits[d.Inputs[2]] == nil || inits[d.Inputs[2]].DType != canon.Uint8 {
					t.Errorf("Mul operand %s is not a uint8 DequantizeLinear", in)
				}
			}
		}
	}
	errs, err := Evaluate(g, q, randomInputs{g, 4, 99}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sqnrFloor(t, errs, 30)
}

func TestCalibrationMethods(t *testing.T) {
	g := smallCNN()
	for _, m := range Methods {
		q, _, err := Static(g, randomInputs{g, 12, 1}, Options{Calibration: CalibrateOptions{Method: m}})
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		errs, err := Evaluate(g, q, randomInputs{g, 6, 99}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: SQNR %.1f / %.1f dB", m, errs[0].SQNR, errs[1].SQNR)
		sqnrFloor(t, errs, 25)
	}
	if _, _, err := Static(g, randomInputs{g, 2, 1}, Options{Calibration: CalibrateOptions{Method: "median"}}); err == nil {
		t.Error("an unknown method was accepted")
	}
}

func TestInt8Activations(t *testing.T) {
	g := smallCNN()
	q, rep, err := Static(g, randomInputs{g, 8, 1}, Options{Activations: canon.Int8})
	if err != nil {
		t.Fatal(err)
	}
	// Symmetric int8 cannot clamp at 0: Relu and Clip stay.
	if ops := countOps(q); ops["Relu"] != 1 || ops["Clip"] != 1 || rep.Folded != 0 {
		t.Errorf("int8 activations folded an activation: %v", ops)
	}
	errs, err := Evaluate(g, q, randomInputs{g, 4, 99}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sqnrFloor(t, errs, 25)
}

func TestKeepFloatClass(t *testing.T) {
	g := smallCNN()
	c, err := Prepare(g, randomInputs{g, 4, 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, rep, err := c.Build([]string{"depthwise Conv"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Quantized["depthwise Conv"] != 0 || rep.Quantized["Conv"] != 2 {
		t.Errorf("quantized %v", rep.Quantized)
	}
	for _, n := range q.Nodes {
		if op, ok := n.Op.(*canon.Conv); ok && op.Group > 1 && q.Initializer(n.Inputs[1]) == nil {
			t.Errorf("the depthwise conv's weight is not the float initializer")
		}
	}
}

// Percentile and entropy clip a lone outlier that min/max keeps.
func TestRangeMethods(t *testing.T) {
	s := &tensorStats{min: 0, max: 0}
	data := make([]float32, 100000)
	for i := range data {
		data[i] = float32(i%1000) / 1000 // uniform in [0, 1)
	}
	data[0] = 50
	raw := canon.NewFloat32Tensor("", []int64{int64(len(data))}, data).Data
	s.observe(raw)
	s.hist = make([]float64, histBins)
	s.histogram(raw)
	if s.max != 50 {
		t.Fatalf("max %g", s.max)
	}
	if p := s.percentile(99.9); p < 0.95 || p > 1.1 {
		t.Errorf("99.9th percentile %g, want about 1", p)
	}
	if e := s.entropyThreshold(entropyLevels); e < 0.9 || e > 5 {
		t.Errorf("entropy threshold %g, want near 1 (the outlier at 50 clipped)", e)
	}
}

func TestDynamic(t *testing.T) {
	b := newNet(3)
	x := b.input("x", 2, 5, 16)
	w1 := b.weight("w1", "", 0.3, 16, 32)
	h := b.node(&canon.MatMul{}, x, w1)
	h = b.node(&canon.Unary{Fn: canon.Relu}, h)
	flat := b.node(&canon.Reshape{}, h, shapeConst(b, 10, 32))
	w2 := b.weight("w2", "OI", 0.2, 8, 32)
	bias := b.weight("b2", "O", 0.1, 8)
	y := b.node(&canon.Linear{Alpha: 1, Beta: 1}, flat, w2, bias)
	g := b.output(y)
	q, rep, err := Dynamic(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ops := countOps(q)
	if ops["MatMulInteger"] != 2 || ops["DynamicQuantizeLinear"] != 2 || ops["MatMul"] != 0 || ops["Linear"] != 0 || rep.Quantized["MatMul"] != 1 || rep.Quantized["Linear"] != 1 {
		t.Errorf("ops %v, report %v", ops, rep.Quantized)
	}
	errs, err := Evaluate(g, q, randomInputs{g, 4, 9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sqnrFloor(t, errs, 30)
}

func shapeConst(b *netBuilder, dims ...int64) string {
	t := canon.NewInt64Tensor("shape_"+string(rune('a'+len(b.g.Initializers))), []int64{int64(len(dims))}, dims)
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

// Calibrating a few tensors at a time (a small memory budget) gives the
// same ranges as all at once.
func TestCalibrateInChunks(t *testing.T) {
	g := smallCNN()
	p := planStatic(g, nil)
	for _, m := range Methods {
		all, err := Calibrate(g, p.acts, randomInputs{g, 3, 1}, CalibrateOptions{Method: m})
		if err != nil {
			t.Fatal(err)
		}
		runs := int64(0)
		few, err := Calibrate(g, p.acts, randomInputs{g, 3, 1}, CalibrateOptions{Method: m, MaxBytes: 4 << 10, Progress: func(done, total int64) { runs = total }})
		if err != nil {
			t.Fatal(err)
		}
		if runs <= 3*2 {
			t.Errorf("%s: %d runs: not split", m, runs)
		}
		for _, a := range p.acts {
			if all[a] != few[a] {
				t.Errorf("%s %s: %v at once, %v in chunks", m, a, all[a], few[a])
			}
		}
	}
}
