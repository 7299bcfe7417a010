package optimize

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// depthwiseStack appends MobileNet-style blocks: depthwise 3x3 + BN + ReLU,
// pointwise 1x1 + BN + ReLU.
func (b *gb) depthwiseStack(x string, c int64, blocks int) string {
	for i := 0; i < blocks; i++ {
		x = b.relu(b.bn(b.conv(x, c, c, 3, 1, 1, 1, c, false), c, 1e-5))
		x = b.relu(b.bn(b.conv(x, c, c, 1, 1, 0, 1, 1, false), c, 1e-5))
	}
	return x
}

func builtModels() map[string]*canon.Graph {
	r := newGB(41)
	x := r.input("x", 1, 64, 8, 8)
	d := newGB(42)
	y := d.input("x", 1, 16, 4, 4)
	return map[string]*canon.Graph{
		"resnext_block":   r.output(r.resnextBlock(x, 64, 128, 32, 8)),
		"depthwise_stack": d.output(d.depthwiseStack(y, 16, 4)),
	}
}

// The default pipeline never adds parameters or FLOPs, on every real
// PyTorch-made model (torch 1.13 and 2.6 exports) and on the models that
// made the old pipeline regroup.
func TestDefaultNeverGrows(t *testing.T) {
	models := builtModels()
	if fix := testfix.SharedDir(); fix != "" {
		for _, d := range []string{"torch", "torch2"} {
			paths, _ := filepath.Glob(filepath.Join(fix, "fixtures", d, "*", "model.onnx"))
			for _, p := range paths {
				g, err := onnximport.Read(p, formats.ReadOptions{})
				if err != nil {
					t.Logf("not optimized (cannot be read): %v", err)
					continue
				}
				defer g.Close()
				models[d+"/"+filepath.Base(filepath.Dir(p))] = g
			}
		}
	}
	var names []string
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			_, rep, err := Optimize(models[name], Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.ParamsAfter > rep.ParamsBefore {
				t.Errorf("params grew %d -> %d", rep.ParamsBefore, rep.ParamsAfter)
			}
			if rep.After.Total.FLOPs > rep.Before.Total.FLOPs*(1+1e-12) {
				t.Errorf("FLOPs grew %.0f -> %.0f", rep.Before.Total.FLOPs, rep.After.Total.FLOPs)
			}
			if rep.After.Total.Bytes > rep.Before.Total.Bytes*(1+1e-12) {
				t.Errorf("bytes moved grew %.0f -> %.0f", rep.Before.Total.Bytes, rep.After.Total.Bytes)
			}
		})
	}
}

// fixedTarget answers every comparison the same way.
type fixedTarget struct{ faster bool }

func (fixedTarget) Name() string { return "fixed" }
func (f fixedTarget) Compare(a, b *canon.Graph) (Comparison, error) {
	c := Comparison{Target: "fixed", BeforeMs: 2, AfterMs: 2, Ratio: 1, Runs: 1}
	if f.faster {
		c.AfterMs, c.Ratio, c.Faster = 1, 0.5, true
	}
	return c, nil
}

// Growth rewrites are kept exactly when the target measures them faster;
// each is reported with the zeros it adds; the result still verifies.
func TestGrowthFollowsTarget(t *testing.T) {
	for _, faster := range []bool{false, true} {
		g := builtModels()["resnext_block"]
		opt, rep, err := Optimize(g, Options{AllowGrowth: true, Alpha: 10, Target: fixedTarget{faster}, MaxMeasurements: 3, Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		gs := rep.Growth
		if gs == nil || gs.Measured == 0 || len(gs.Rewrites) != gs.Measured {
			t.Fatalf("faster=%v: growth stage measured nothing: %+v", faster, gs)
		}
		for _, r := range gs.Rewrites {
			if r.Kept != faster {
				t.Errorf("faster=%v: %s kept=%v", faster, r.Detail, r.Kept)
			}
			if r.Rewrite == growthRegroup && (r.ZerosAdded <= 0 || r.ZerosAdded != r.ParamsAfter-r.ParamsBefore || !strings.Contains(r.Detail, "(Conv): group ")) {
				t.Errorf("regroup reported as %+v", r)
			}
		}
		grouped := 0
		for _, n := range opt.Nodes {
			if c, ok := n.Op.(*canon.Conv); ok && c.Group == 32 {
				grouped++
			}
		}
		if faster && (grouped != 0 || rep.ParamsAfter <= rep.ParamsBefore) {
			t.Errorf("kept rewrites were not applied: %d convs still with 32 groups, params %d -> %d", grouped, rep.ParamsBefore, rep.ParamsAfter)
		}
		if !faster && (grouped != 1 || rep.ParamsAfter > rep.ParamsBefore) {
			t.Errorf("reverted rewrites remain: %d convs with 32 groups, params %d -> %d", grouped, rep.ParamsBefore, rep.ParamsAfter)
		}
	}
}

// Judge keeps a rewrite only when the paired ratio is below 1 by more than
// MinGain and twice its noise.
func TestJudge(t *testing.T) {
	steady := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v * (1 + 0.001*float64(i%3))
		}
		return out
	}
	if c := Judge("t", steady(1, 9), steady(0.8, 9)); !c.Faster || c.Ratio > 0.81 {
		t.Errorf("a steady 20%% win judged %+v", c)
	}
	if c := Judge("t", steady(1, 9), steady(0.99, 9)); c.Faster {
		t.Errorf("a 1%% change (below MinGain) judged faster: %+v", c)
	}
	noisy := []float64{1, 0.5, 1.6, 0.7, 1.4, 0.6, 1.5}
	quiet := []float64{0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9}
	if c := Judge("t", noisy, quiet); c.Faster || c.Noise < 0.1 {
		t.Errorf("a 10%% gain within noisy runs judged %+v", c)
	}
	if c := Judge("t", steady(1, 9), steady(1.3, 9)); c.Faster || c.Ratio < 1.29 {
		t.Errorf("a slowdown judged %+v", c)
	}
}

// A BatchNorm, Mul or Add after a pooling folds into the conv before it
// when it commutes with the pooling, and stays otherwise.
func TestFoldThroughPool(t *testing.T) {
	pool := func(kind string) canon.Op {
		k := []int64{2, 2}
		switch kind {
		case "max":
			return &canon.MaxPool{Kernel: k, Strides: k, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}
		case "avg_pad":
			return &canon.AveragePool{Kernel: []int64{3, 3}, Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}, CountIncludePad: true}
		case "gap":
			return &canon.GlobalAveragePool{}
		}
		return &canon.AveragePool{Kernel: k, Strides: k, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}}
	}
	cases := []struct {
		name, pool, after string
		folds             bool
	}{
		{"maxpool+bn(positive)", "max", "bn", true},
		{"maxpool+mul(negative)", "max", "negmul", false},
		{"maxpool+add", "max", "add", true},
		{"avgpool+bn", "avg", "bn", true},
		{"padded avgpool+add", "avg_pad", "add", false},
		{"padded avgpool+mul", "avg_pad", "negmul", true},
		{"globalavg+bn", "gap", "bn", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(61)
			x := b.input("x", 2, 3, 8, 8)
			y := b.node(pool(tc.pool), b.conv(x, 3, 4, 3, 1, 1, 1, 1, true))
			switch tc.after {
			case "bn":
				y = b.bn(y, 4, 1e-5) // gamma in [0.5, 2): positive scales
			case "negmul":
				y = b.node(&canon.Binary{Fn: canon.Mul}, y, b.randW("", -2, -0.5, 4, 1, 1))
			case "add":
				y = b.node(&canon.Binary{Fn: canon.Add}, y, b.randW("", -1, 1, 1, 4, 1, 1))
			}
			opt := runPasses(t, b.output(b.relu(y)), "fold_through_pool")
			n := len(opt.Nodes)
			if tc.folds && n != 3 || !tc.folds && n != 4 {
				t.Errorf("%d nodes after fold_through_pool, want %d (ops %v)", n, map[bool]int{true: 3, false: 4}[tc.folds], countOps(opt))
			}
		})
	}
}
