package optimize

import (
	"strings"
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
	opt, rep, err := Optimize(g, Options{Passes: exactPasses, Search: true, Target: ModelTarget{}, Budget: 30, Verify: true})
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
	opt, rep, err := Optimize(b.output(y), Options{Passes: exactPasses, Search: true, Target: ModelTarget{}, Budget: 10, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("applied %v, %.4f -> %.4f ms", rep.Search.Applied, rep.Search.StartCost*1e3, rep.Search.BestCost*1e3)
	wantOps(t, opt, map[string]int{"Split": 1})
}

// Progress follows the search expansion by expansion, against the budget,
// and ends at done == total.
func TestSearchProgress(t *testing.T) {
	b := newGB(44)
	x := b.input("x", 1, 8, 5, 5)
	a := b.conv(x, 8, 8, 3, 1, 1, 1, 1, true)
	c := b.conv(x, 8, 8, 1, 1, 0, 1, 1, false)
	g := b.output(b.node(&canon.Concat{Axis: 1}, a, c))
	var calls [][2]int64
	_, rep, err := Optimize(g, Options{Passes: exactPasses, Search: true, Target: ModelTarget{}, Budget: 7, Progress: func(done, total int64) {
		calls = append(calls, [2]int64{done, total})
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != rep.Search.Expansions+1 {
		t.Fatalf("%d progress calls for %d expansions, want one each and a final one", len(calls), rep.Search.Expansions)
	}
	for i, c := range calls {
		if c[1] != 7 || (i > 0 && c[0] < calls[i-1][0]) || c[0] > 7 {
			t.Fatalf("call %d = %v: want done rising to total 7", i, c)
		}
	}
	if last := calls[len(calls)-1]; last[0] != last[1] {
		t.Errorf("last call %v: want done == total", last)
	}
}

func TestWriteNodeTable(t *testing.T) {
	b := newGB(45)
	x := b.input("x", 1, 4, 6, 6)
	y := x
	for range 25 {
		y = b.relu(y)
	}
	y = b.conv(y, 4, 8, 3, 1, 1, 1, 1, true)
	rep, err := GraphCost(b.output(y))
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := WriteNodeTable(&sb, "before", rep, 20); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// title, header, 20 rows, "(6 more)", total
	if len(lines) != 24 || !strings.Contains(lines[len(lines)-2], "(6 more)") || !strings.HasPrefix(strings.TrimSpace(lines[len(lines)-1]), "total") {
		t.Fatalf("unexpected table:\n%s", out)
	}
	if !strings.Contains(lines[2], "Conv") {
		t.Errorf("the conv should be the most expensive node:\n%s", out)
	}
}
