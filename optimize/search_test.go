package optimize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// resnext50 builds a ResNeXt-style network of blocks bottleneck blocks
// (32 groups in the 3x3 conv), with a stem conv and a parallel-conv pair
// (1x1 and 3x3 sharing an input) every tenth block.
func resnext50(blocks int) *canon.Graph {
	b := newGB(42)
	x := b.input("x", 1, 64, 8, 8)
	y := b.relu(b.bn(b.conv(x, 64, 64, 3, 1, 1, 1, 1, false), 64, 1e-5))
	for i := 0; i < blocks; i++ {
		y = b.resnextBlock(y, 64, 128, 32, 8)
		if i%10 == 9 {
			a := b.conv(y, 64, 32, 1, 1, 0, 1, 1, true)
			c := b.conv(y, 64, 32, 3, 1, 1, 1, 1, true)
			y = b.node(&canon.Concat{Axis: 1}, a, c)
		}
	}
	return b.output(y)
}

// exactPasses is the default pipeline without the cost-driven passes.
var exactPasses = []string{"eliminate_identity", "eliminate_noop", "fold_constants", "fold_bn", "fuse_bias_add", "fuse_scale_mul", "sink_transposes", "eliminate_dead"}

func TestSearchResNeXt(t *testing.T) {
	g := resnext50(3)
	// Leave regrouping and merging to the search.
	opt, rep, err := Optimize(g, Options{Passes: exactPasses, Search: true, Budget: 30, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Search == nil || rep.Search.BestCost > rep.Search.StartCost {
		t.Fatalf("search stats %+v", rep.Search)
	}
	t.Logf("search: %d expansions, %d generated, %d duplicates, %.3f -> %.3f ms, applied %v",
		rep.Search.Expansions, rep.Search.Generated, rep.Search.Duplicates, rep.Search.StartCost*1e3, rep.Search.BestCost*1e3, rep.Search.Applied)
	if len(rep.Search.Applied) == 0 {
		t.Error("the search found nothing to improve in a ResNeXt graph")
	}
	for _, n := range opt.Nodes {
		if c, ok := n.Op.(*canon.Conv); ok && c.Group == 32 {
			t.Logf("conv %s kept 32 groups", n.Name)
		}
	}
}

func BenchmarkSearchResNeXt50Blocks(b *testing.B) {
	g := resnext50(50)
	passes, _ := Pipeline(exactPasses)
	if _, err := RunPipeline(g, passes, PipelineOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, st, err := Search(g, SearchOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.StopTimer()
			if err := Verify(g, res, 1, 1, 1e-4, 1e-5); err != nil {
				b.Fatalf("search result differs: %v", err)
			}
			b.StartTimer()
			b.Logf("%d nodes: %d expansions, %d candidates (%d duplicates, %d queued), %.3f -> %.3f ms modelled, in %v",
				len(g.Nodes), st.Expansions, st.Generated, st.Duplicates, st.Queued, st.StartCost*1e3, st.BestCost*1e3, st.Elapsed)
		}
	}
}

// The search merges parallel convs where the cost model says it pays, and
// the merged graph (with lazily computed weights) is verified.
func TestSearchMerges(t *testing.T) {
	b := newGB(43)
	x := b.input("x", 1, 8, 5, 5)
	a := b.conv(x, 8, 8, 3, 1, 1, 1, 1, true)
	c := b.conv(x, 8, 8, 3, 1, 1, 1, 1, false)
	d := b.conv(x, 8, 4, 1, 1, 0, 1, 1, true)
	y := b.node(&canon.Concat{Axis: 1}, a, b.relu(c), d)
	opt, rep, err := Optimize(b.output(y), Options{Passes: exactPasses, Search: true, Budget: 10, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("applied %v, %.4f -> %.4f ms", rep.Search.Applied, rep.Search.StartCost*1e3, rep.Search.BestCost*1e3)
	wantOps(t, opt, map[string]int{"Split": 1})
}
