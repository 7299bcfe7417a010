package optimize

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
)

func TestFuseBiasAdd(t *testing.T) {
	for _, shape := range [][]int64{{8, 1, 1}, {1, 8, 1, 1}, {1}, {}} {
		t.Run(fmt.Sprint(shape), func(t *testing.T) {
			b := newGB(5)
			x := b.input("x", 2, 4, 6, 6)
			y := b.conv(x, 4, 8, 3, 1, 1, 1, 2, false)
			y = b.node(&canon.Binary{Fn: canon.Add}, b.randW("", -1, 1, shape...), y)
			y = b.node(&canon.Binary{Fn: canon.Sub}, y, b.randW("", -1, 1, shape...))
			opt := runPasses(t, b.output(b.relu(y)), "fuse_bias_add")
			wantOps(t, opt, map[string]int{"Add": 0, "Sub": 0, "Conv": 1})
		})
	}
}

// A per-element (not per-channel) Add must stay.
func TestFuseBiasAddRefusesSpatial(t *testing.T) {
	b := newGB(6)
	x := b.input("x", 1, 4, 3, 3)
	y := b.conv(x, 4, 4, 1, 1, 0, 1, 1, true)
	y = b.node(&canon.Binary{Fn: canon.Add}, y, b.randW("", -1, 1, 4, 3, 1))
	opt := runPasses(t, b.output(y), "fuse_bias_add")
	wantOps(t, opt, map[string]int{"Add": 1})
}

func TestFuseBiasAddMatMul(t *testing.T) {
	b := newGB(7)
	x := b.input("x", 3, 5)
	y := b.node(&canon.MatMul{}, x, b.randW("", -1, 1, 5, 4))
	y = b.node(&canon.Binary{Fn: canon.Add}, y, b.randW("", -1, 1, 4))
	opt := runPasses(t, b.output(y), "fuse_bias_add")
	wantOps(t, opt, map[string]int{"Add": 0, "MatMul": 0, "Linear": 1})
}

func TestFuseScaleMul(t *testing.T) {
	b := newGB(8)
	x := b.input("x", 2, 6, 5, 5)
	y := b.conv(x, 6, 6, 3, 1, 1, 1, 3, true)
	y = b.node(&canon.Binary{Fn: canon.Mul}, y, b.randW("", 0.5, 2, 6, 1, 1))
	w := b.randW("IOHW", -0.5, 0.5, 6, 3, 2, 2)
	y = b.node(&canon.ConvTranspose{Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}, OutputPadding: []int64{1, 0}, Group: 3}, y, w)
	y = b.node(&canon.Binary{Fn: canon.Mul}, b.randW("", 0.5, 2, 1, 9, 1, 1), y)
	f := b.input("f", 2, 3)
	l := b.node(&canon.Linear{Alpha: 1, Beta: 1}, f, b.randW("OI", -1, 1, 4, 3), b.randW("", -1, 1, 1, 4))
	l = b.node(&canon.Binary{Fn: canon.Mul}, l, b.randW("", -1, 1, 4))
	opt := runPasses(t, b.output(y, l), "fuse_scale_mul")
	wantOps(t, opt, map[string]int{"Mul": 0})
}

func TestEliminateIdentityAndNoop(t *testing.T) {
	b := newGB(9)
	x := b.input("x", 2, 3, 4, 5)
	y := b.node(&canon.Identity{}, x)
	y = b.node(&canon.Dropout{Ratio: 0.5}, y)
	y = b.relu(y)
	y = b.node(&canon.Reshape{Shape: []int64{2, 3, 4, 5}}, y)
	y = b.node(&canon.Transpose{Perm: []int64{0, 1, 2, 3}}, y)
	y = b.node(&canon.Pad{PadsBegin: make([]int64, 4), PadsEnd: make([]int64, 4)}, y)
	y = b.node(&canon.Slice{Starts: []int64{0}, Ends: []int64{1 << 40}, Axes: []int64{2}, Steps: []int64{1}}, y)
	y = b.node(&canon.Transpose{Perm: []int64{0, 2, 3, 1}}, y)
	y = b.node(&canon.Transpose{Perm: []int64{0, 3, 1, 2}}, y) // composes to identity
	y = b.node(&canon.Transpose{Perm: []int64{1, 0, 2, 3}}, y)
	y = b.node(&canon.Transpose{Perm: []int64{0, 1, 3, 2}}, y) // composes to one Transpose
	y = b.node(&canon.Reshape{Shape: []int64{6, -1}}, y)
	y = b.node(&canon.Reshape{Shape: []int64{3, 2, 20}}, y) // merged with the one above
	y = b.node(&canon.Identity{}, y)                        // a graph output: kept by renaming
	opt := runPasses(t, b.output(y), "eliminate_identity", "eliminate_noop")
	wantOps(t, opt, map[string]int{"Identity": 0, "Dropout": 0, "Pad": 0, "Slice": 0, "Transpose": 1, "Reshape": 1, "Relu": 1})
	if len(opt.Nodes) != 3 {
		t.Errorf("%d nodes left, want 3: %v", len(opt.Nodes), countOps(opt))
	}
}

// Outputs keep names, order and count, even when an Identity copies a graph
// input to a graph output or two outputs are the same value.
func TestOutputsPreserved(t *testing.T) {
	b := newGB(10)
	x := b.input("x", 1, 2)
	a := b.node(&canon.Identity{}, x)
	r := b.relu(x)
	c := b.node(&canon.Identity{}, r)
	d := b.node(&canon.Identity{}, c)
	g := b.output(a, c, d, r)
	opt := Clone(g)
	if _, err := RunPipeline(opt, Passes(), PipelineOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(outputNames(opt), ","), strings.Join(outputNames(g), ","); got != want {
		t.Fatalf("outputs %s, want %s", got, want)
	}
	if err := Verify(g, opt, 1, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
}

func TestEliminateDead(t *testing.T) {
	b := newGB(11)
	x := b.input("x", 1, 4)
	b.relu(b.relu(x)) // unused chain
	b.randW("", 0, 1, 7)
	y := b.node(&canon.Unary{Fn: canon.Tanh}, x)
	opt := runPasses(t, b.output(y))
	if len(opt.Nodes) != 1 || len(opt.Initializers) != 0 {
		t.Errorf("%d nodes, %d initializers left", len(opt.Nodes), len(opt.Initializers))
	}
}

// shufflenet's channel shuffle: Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape becomes a constant-shape Reshape once input shapes are static.
func TestFoldConstantsShapeChain(t *testing.T) {
	b := newGB(12)
	x := b.input("x", 1, 8, 3, 3)
	y := b.relu(x)
	shp := b.node(canon.NewShapeOf(), y)
	n := b.node(&canon.Gather{Axis: 0}, shp, b.i64Scalar(0))
	h := b.node(&canon.Gather{Axis: 0}, shp, b.i64Scalar(2))
	nu := b.node(&canon.Unsqueeze{Axes: []int64{0}}, n)
	hu := b.node(&canon.Unsqueeze{Axes: []int64{0}}, h)
	target := b.node(&canon.Concat{Axis: 0}, nu, b.i64(2, 4), hu, b.i64(-1))
	y = b.node(&canon.Reshape{}, y, target)
	y = b.node(&canon.Transpose{Perm: []int64{0, 2, 1, 3, 4}}, y)
	// A weight computed by the graph: Transpose of an initializer.
	w := b.node(&canon.Transpose{Perm: []int64{1, 0}}, b.randW("", -1, 1, 2, 5))
	f := b.node(&canon.MatMul{}, b.input("f", 3, 5), w)
	opt := runPasses(t, b.output(y, f), "fold_constants")
	wantOps(t, opt, map[string]int{"Shape": 0, "Gather": 0, "Unsqueeze": 0, "Concat": 0, "Reshape": 1, "Transpose": 1, "MatMul": 1})
}

func (b *gb) i64Scalar(v int64) string {
	t := canon.NewInt64Tensor(b.name("c"), []int64{}, []int64{v})
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

func TestSinkTransposes(t *testing.T) {
	b := newGB(13)
	x := b.input("x", 2, 3, 4, 5)
	y := b.node(&canon.Transpose{Perm: []int64{0, 2, 3, 1}}, x)
	y = b.relu(y)
	y = b.node(&canon.LeakyRelu{Alpha: 0.1}, y)
	y = b.node(&canon.Binary{Fn: canon.Mul}, y, b.randW("", 1, 2))
	y = b.node(&canon.Transpose{Perm: []int64{0, 3, 1, 2}}, y)
	y = b.node(&canon.Unary{Fn: canon.Sigmoid}, y)
	opt := runPasses(t, b.output(y), "sink_transposes")
	wantOps(t, opt, map[string]int{"Transpose": 0, "Relu": 1, "Sigmoid": 1})
}

// A Transpose pair around an op that cannot run untransposed must stay.
func TestSinkTransposesKeepsMatMul(t *testing.T) {
	b := newGB(14)
	x := b.input("x", 2, 3, 4)
	y := b.node(&canon.Transpose{Perm: []int64{0, 2, 1}}, x)
	y = b.node(&canon.MatMul{}, y, b.randW("", -1, 1, 3, 3))
	y = b.node(&canon.Transpose{Perm: []int64{0, 2, 1}}, y)
	opt := runPasses(t, b.output(y), "sink_transposes")
	wantOps(t, opt, map[string]int{"Transpose": 2})
}

func TestMergeParallelConvs(t *testing.T) {
	cases := []struct {
		name           string
		stride, dil    int64
		k1, p1, k2, p2 int64
		size           int64
	}{
		{"1x1+3x3", 1, 1, 1, 0, 3, 1, 7},
		{"1x1+3x3/stride2", 2, 1, 1, 0, 3, 1, 8},
		{"1x1+3x3/stride2/odd", 2, 1, 1, 0, 3, 1, 7},
		{"3x3+5x5/stride3", 3, 1, 3, 1, 5, 2, 10},
		{"1x1+3x3/dilation2", 1, 2, 1, 0, 3, 2, 9},
		{"3x3+3x3", 1, 1, 3, 1, 3, 1, 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(15)
			x := b.input("x", 2, 4, tc.size, tc.size)
			a := b.conv(x, 4, 3, tc.k1, tc.stride, tc.p1, tc.dil, 1, true)
			c := b.conv(x, 4, 5, tc.k2, tc.stride, tc.p2, tc.dil, 1, false)
			d := b.node(&canon.Concat{Axis: 1}, b.relu(a), c)
			passes := []Pass{MergeParallelConvsPass(true)}
			opt := runPassList(t, b.output(d, a), passes)
			wantOps(t, opt, map[string]int{"Conv": 1, "Split": 1})
		})
	}
}

// Convs whose output sizes differ cannot share one conv.
func TestMergeParallelConvsSkipsMismatch(t *testing.T) {
	b := newGB(16)
	x := b.input("x", 1, 4, 8, 8)
	a := b.conv(x, 4, 3, 1, 1, 0, 1, 1, true)
	c := b.conv(x, 4, 5, 3, 1, 0, 1, 1, true) // no padding: 6x6 output
	opt := runPassList(t, b.output(a, c), []Pass{MergeParallelConvsPass(true)})
	wantOps(t, opt, map[string]int{"Conv": 2, "Split": 0})
}

// resnextBlock appends a ResNeXt bottleneck: 1x1 reduce, grouped 3x3, 1x1
// expand, each with BN, plus the identity shortcut.
func (b *gb) resnextBlock(x string, c, width, groups, size int64) string {
	y := b.relu(b.bn(b.conv(x, c, width, 1, 1, 0, 1, 1, false), width, 1e-5))
	y = b.relu(b.bn(b.conv(y, width, width, 3, 1, 1, 1, groups, false), width, 1e-5))
	y = b.bn(b.conv(y, width, c, 1, 1, 0, 1, 1, false), c, 1e-5)
	return b.relu(b.node(&canon.Binary{Fn: canon.Add}, y, x))
}

func TestRegroupResNeXt(t *testing.T) {
	for _, f := range []int64{2, 4, 32} {
		t.Run(fmt.Sprintf("factor=%d", f), func(t *testing.T) {
			b := newGB(17)
			x := b.input("x", 1, 64, 6, 6)
			y := b.resnextBlock(x, 64, 128, 32, 6)
			opt := runPassListOpts(t, b.output(y), []Pass{RegroupConvPass(f, true)}, PipelineOptions{MaxIterations: 1})
			for _, n := range opt.Nodes {
				if c, ok := n.Op.(*canon.Conv); ok && c.Group != 1 && c.Group != 32/f {
					t.Errorf("conv %s has %d groups, want %d", n.Name, c.Group, 32/f)
				}
			}
		})
	}
}

func TestPipelineNames(t *testing.T) {
	if _, err := Pipeline([]string{"fold_bn", "nope"}); err == nil || !strings.Contains(err.Error(), "eliminate_dead") {
		t.Errorf("unknown pass: err = %v, want one listing the valid passes", err)
	}
	ps, err := Pipeline([]string{"eliminate_dead", "fold_bn"})
	if err != nil || len(ps) != 2 || ps[0].Name != "eliminate_dead" {
		t.Errorf("Pipeline = %v, %v", ps, err)
	}
}

// A pass that breaks the model is named by Optimize's verification, and a
// pass that leaves an invalid graph is named by RunPipeline.
func TestVerificationNamesPass(t *testing.T) {
	b := newGB(18)
	x := b.input("x", 1, 3, 4, 4)
	y := b.relu(b.bn(b.conv(x, 3, 4, 3, 1, 1, 1, 1, true), 4, 1e-5))
	g := b.output(y)
	bad := Pass{Name: "break_relu", Run: func(g *canon.Graph) (bool, error) {
		for _, n := range g.Nodes {
			if u, ok := n.Op.(*canon.Unary); ok && u.Fn == canon.Relu {
				n.Op = &canon.Unary{Fn: canon.Tanh}
				return true, nil
			}
		}
		return false, nil
	}}
	passes, _ := Pipeline([]string{"fold_bn"})
	_, _, err := optimizeWith(g, append(passes, bad), Options{Verify: true, Samples: 1, Seed: 1, RTol: 1e-4, ATol: 1e-5}, time.Now())
	if err == nil || !strings.Contains(err.Error(), "break_relu") {
		t.Errorf("err = %v, want it to name break_relu", err)
	}
	invalid := Pass{Name: "drop_input", Run: func(g *canon.Graph) (bool, error) {
		g.Nodes[0].Inputs[0] = "missing"
		return true, nil
	}}
	_, err = RunPipeline(Clone(g), []Pass{invalid}, PipelineOptions{})
	if err == nil || !strings.Contains(err.Error(), "drop_input") {
		t.Errorf("err = %v, want it to name drop_input", err)
	}
	panicky := Pass{Name: "panics", Run: func(g *canon.Graph) (bool, error) { panic("boom") }}
	if _, err := RunPipeline(Clone(g), []Pass{panicky}, PipelineOptions{}); err == nil || !strings.Contains(err.Error(), "panics") {
		t.Errorf("err = %v, want it to name the panicking pass", err)
	}
}

func TestCostModel(t *testing.T) {
	b := newGB(19)
	x := b.input("x", 1, 8, 10, 10)
	y := b.conv(x, 8, 16, 3, 1, 1, 1, 1, true)
	y = b.node(&canon.Reshape{Shape: []int64{1, -1}}, y)
	rep, err := GraphCost(b.output(y))
	if err != nil {
		t.Fatal(err)
	}
	wantFLOPs := 2.0 * 16 * 100 * 8 * 9
	if rep.Total.FLOPs != wantFLOPs {
		t.Errorf("FLOPs %g, want %g", rep.Total.FLOPs, wantFLOPs)
	}
	if rep.Total.Launches != 1 {
		t.Errorf("launches %d, want 1 (Reshape is a view)", rep.Total.Launches)
	}
	wantBytes := 4.0 * (800 + 16*8*9 + 16 + 1600)
	if rep.Total.Bytes != wantBytes {
		t.Errorf("bytes %g, want %g", rep.Total.Bytes, wantBytes)
	}
	var sb strings.Builder
	if err := WriteCostTable(&sb, rep, rep); err != nil || !strings.Contains(sb.String(), "Conv") {
		t.Errorf("table: %v\n%s", err, sb.String())
	}
}

func TestOptimizeDefault(t *testing.T) {
	b := newGB(20)
	x := b.input("x", 1, 16, 6, 6)
	y := b.node(&canon.Identity{}, x)
	y = b.resnextBlock(y, 16, 64, 32, 6)
	y = b.resnextBlock(y, 16, 64, 32, 6)
	g := b.output(y)
	opt, rep, err := Optimize(g, Options{Verify: true, Search: true, Target: ModelTarget{}, Budget: 20})
	if err != nil {
		t.Fatal(err)
	}
	wantOps(t, opt, map[string]int{"BatchNormalization": 0, "Identity": 0})
	if rep.After.Cost() > rep.Before.Cost() || !rep.Verified || rep.Search == nil {
		t.Errorf("report: before %g after %g verified %v", rep.Before.Cost(), rep.After.Cost(), rep.Verified)
	}
	// Deterministic: a second run gives the same graph.
	opt2, _, err := Optimize(g, Options{Search: true, Target: ModelTarget{}, Budget: 20})
	if err != nil {
		t.Fatal(err)
	}
	if err := canon.Equal(opt, opt2); err != nil {
		t.Errorf("two searches on the same graph gave different graphs: %v", err)
	}
	if len(g.Nodes) != 1+2*10 {
		t.Errorf("Optimize modified its input: %d nodes", len(g.Nodes))
	}
}
