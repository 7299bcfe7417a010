package ortmeasure

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/optimize"
)

func ortTarget(t *testing.T) *Target {
	t.Helper()
	tg, err := New("")
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	tg.CacheFile = filepath.Join(t.TempDir(), "timings.json")
	return tg
}

// Without ONNX Runtime, the target says how to install it or what to use
// instead.
func TestNewSaysHowToInstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no-ort")
	_, err := New(dir)
	if err == nil || !strings.Contains(err.Error(), "ORT_TOOL_DIR="+dir+" sh ../shared/tools/ort/install.sh") || !strings.Contains(err.Error(), "--target interp") {
		t.Fatalf("New(%s): %v", dir, err)
	}
}

// A growth rewrite is kept exactly when ONNX Runtime measured the whole
// graph faster; whichever way the timings go, the result matches the
// original and grows only by the kept rewrites. (Which outcome happens is
// the machine's business: the test asserts the rule, never a speed.)
func TestSearchKeepsOnlyMeasuredWins(t *testing.T) {
	tg := ortTarget(t)
	tg.Runs = 7
	for _, g := range []*canon.Graph{resnextStage(14), depthwiseStack()} {
		t.Run(g.Name, func(t *testing.T) {
			opt, rep, err := optimize.Optimize(g, optimize.Options{Search: true, Budget: 20, Alpha: 1.25, Target: tg, MaxMeasurements: 3, Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Growth == nil || rep.Growth.Target != "ort" {
				t.Fatalf("no growth stage timed in ONNX Runtime: %+v", rep.Growth)
			}
			var kept int64
			for _, r := range rep.Growth.Rewrites {
				t.Logf("%s %s: params %d -> %d (+%d zeros), ORT %.3f -> %.3f ms (paired ratio %.3f ± %.1f%%), kept %v",
					r.Rewrite, r.Detail, r.ParamsBefore, r.ParamsAfter, r.ZerosAdded, r.Measured.BeforeMs, r.Measured.AfterMs, r.Measured.Ratio, r.Measured.Noise*100, r.Kept)
				if r.Kept != r.Measured.Faster {
					t.Errorf("%s kept=%v but measured faster=%v", r.Detail, r.Kept, r.Measured.Faster)
				}
				if r.Kept {
					kept += r.ZerosAdded
				}
			}
			if got := rep.ParamsAfter - rep.ParamsBefore; kept == 0 && got > 0 {
				t.Errorf("params grew by %d though no growth rewrite was kept", got)
			}
			if err := opt.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The cache returns the stored comparison for the same pair of files.
func TestCache(t *testing.T) {
	tg := ortTarget(t)
	tg.Runs = 3
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.onnx"), filepath.Join(dir, "b.onnx")
	g := depthwiseStack()
	for _, p := range []string{a, b} {
		if err := onnxexport.Write(g, p, formats.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c1, err := tg.CompareFiles(a, b)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := tg.CompareFiles(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if c1.Cached || !c2.Cached || c1.BeforeMs != c2.BeforeMs || c1.AfterMs != c2.AfterMs {
		t.Errorf("first %+v, second %+v: want the second from the cache", c1, c2)
	}
}

// TestOptimizeTable regenerates the optimizer's acceptance table when
// MODELBRIDGE_OPT_TABLE=1: per model, nodes, params, modelled cost and
// ONNX Runtime latency (median of interleaved runs, --opt all and
// disabled) before and after the default pipeline, then what
// `--search --target ort` keeps on the ResNeXt stage and the depthwise
// stack. Params and FLOPs must not grow and the result must verify; the
// latencies are printed, never asserted.
func TestOptimizeTable(t *testing.T) {
	if os.Getenv("MODELBRIDGE_OPT_TABLE") == "" {
		t.Skip("set MODELBRIDGE_OPT_TABLE=1 to time the fixtures in ONNX Runtime")
	}
	tg := ortTarget(t)
	tg.Runs = 31
	fix := testfix.Fixtures(t)
	var paths []string
	for _, d := range []string{"torch", "torch2"} {
		m, _ := filepath.Glob(filepath.Join(fix, d, "*", "model.onnx"))
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	type model struct {
		name string
		g    *canon.Graph
	}
	var models []model
	for _, p := range paths {
		g, err := onnximport.Read(p, formats.ReadOptions{})
		if err != nil {
			t.Logf("not in the table (cannot be read): %v", err)
			continue
		}
		defer g.Close()
		rel, _ := filepath.Rel(fix, filepath.Dir(p))
		models = append(models, model{rel, g})
	}
	models = append(models, model{"built/resnext_stage_14x14", resnextStage(14)}, model{"built/resnext_stage_1x1", resnextStage(1)},
		model{"built/depthwise_stack", depthwiseStack()})
	dir := t.TempDir()
	var rows []string
	for i, m := range models {
		opt, rep, err := optimize.Optimize(m.g, optimize.Options{Verify: true})
		if err != nil {
			t.Errorf("%s: %v", m.name, err)
			continue
		}
		if rep.ParamsAfter > rep.ParamsBefore || rep.After.Total.FLOPs > rep.Before.Total.FLOPs*(1+1e-9) {
			t.Errorf("%s: the default pipeline grew the model: params %d -> %d, FLOPs %.0f -> %.0f",
				m.name, rep.ParamsBefore, rep.ParamsAfter, rep.Before.Total.FLOPs, rep.After.Total.FLOPs)
		}
		a, b := filepath.Join(dir, fmt.Sprintf("%d_a.onnx", i)), filepath.Join(dir, fmt.Sprintf("%d_b.onnx", i))
		if err := onnxexport.Write(m.g, a, formats.WriteOptions{}); err != nil {
			t.Errorf("%s: %v", m.name, err)
			continue
		}
		if err := onnxexport.Write(opt, b, formats.WriteOptions{}); err != nil {
			t.Errorf("%s: %v", m.name, err)
			continue
		}
		lat := map[string]optimize.Comparison{}
		for _, level := range []string{"all", "disabled"} {
			tg.Level = level
			c, err := tg.CompareFiles(a, b)
			if err != nil {
				t.Errorf("%s: %v", m.name, err)
			}
			lat[level] = c
		}
		slower := ""
		if c := lat["all"]; c.Ratio > (1+optimize.MinGain)*math.Exp(2*c.Noise) {
			slower = "  SLOWER in ORT all beyond noise"
		}
		rows = append(rows, fmt.Sprintf("| %s | %d → %d | %d → %d | %.2f → %.2f | %.3f → %.3f | %.3f → %.3f (×%.2f ±%.0f%%) | %.3f → %.3f (×%.2f ±%.0f%%) | %v |%s",
			m.name, rep.NodesBefore, rep.NodesAfter, rep.ParamsBefore, rep.ParamsAfter, rep.Before.Total.FLOPs/1e6, rep.After.Total.FLOPs/1e6,
			rep.Before.Cost()*1e3, rep.After.Cost()*1e3,
			lat["all"].BeforeMs, lat["all"].AfterMs, lat["all"].Ratio, lat["all"].Noise*100,
			lat["disabled"].BeforeMs, lat["disabled"].AfterMs, lat["disabled"].Ratio, lat["disabled"].Noise*100,
			rep.Verified, slower))
	}
	tg.Level = "all"
	var search []string
	for _, g := range []*canon.Graph{resnextStage(14), resnextStage(1), depthwiseStack()} {
		_, rep, err := optimize.Optimize(g, optimize.Options{Search: true, Budget: 50, Alpha: 1.25, Target: tg, Verify: true})
		if err != nil {
			t.Errorf("%s: %v", g.Name, err)
			continue
		}
		for _, r := range rep.Growth.Rewrites {
			search = append(search, fmt.Sprintf("| %s | %s | %s | %d → %d (+%d) | %.2f → %.2f | %.3f → %.3f | %.3f → %.3f (×%.2f ±%.0f%%) | %v |",
				g.Name, r.Rewrite, r.Detail, r.ParamsBefore, r.ParamsAfter, r.ZerosAdded, r.FLOPsBefore/1e6, r.FLOPsAfter/1e6,
				r.ModelledBeforeMs, r.ModelledAfterMs, r.Measured.BeforeMs, r.Measured.AfterMs, r.Measured.Ratio, r.Measured.Noise*100, r.Kept))
		}
	}
	fmt.Printf("ONNX Runtime %s, %d samples per graph, 1 intra-op thread, medians\n\n", tg.Version(), tg.Runs)
	fmt.Println("| model | nodes | params | MFLOP | modelled ms | ORT all ms | ORT disabled ms | verified |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	fmt.Println(strings.Join(rows, "\n"))
	fmt.Println("\n--search --target ort:\n\n| model | rewrite | where | params | MFLOP | modelled ms | ORT all ms | kept |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	fmt.Println(strings.Join(search, "\n"))
}
