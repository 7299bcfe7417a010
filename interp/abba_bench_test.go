package interp

import (
	"maps"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
)

// abbaSwitches are the interpreter's switches BenchmarkABBA can compare,
// by name. Each is read when a Program is compiled or run.
var abbaSwitches = map[string]*bool{
	"attention-blocks":     &attnBlocksOn,
	"column-edges":         &columnEdges,
	"crop-taps":            &cropTaps,
	"even-slabs":           &evenSlabs,
	"fuse-epilogues":       &fuseEpilogues,
	"pack-aliased-weights": &packAliasedWeights,
	"resize-by-rows":       &resizeByRows,
	"shrinking-tasks":      &shrinkingTasks,
	"taps-by-tap":          &tapsByTap,
	"tile-epilogues":       &tileEpilogues,
	"winograd":             &useWinograd,
}

// BenchmarkABBA times one model with a switch on and off in one process:
// two Programs, each compiled and run with its setting, in rounds of runs
// in the order on, off, off, on, so that both meet the same machine load
// (on this kind of shared machine two builds run one after the other can
// differ by 30%; a comparison of a switch with itself reads within 2%).
// It reports each side's median milliseconds and the median of the
// rounds' on/off ratios.
//
//	MODELBRIDGE_ABBA_MODEL=resnet18.onnx MODELBRIDGE_ABBA_SWITCH=column-edges \
//	    go test ./interp -run '^$' -bench ABBA -benchtime 1x -cpu 1
func BenchmarkABBA(b *testing.B) {
	name := os.Getenv("MODELBRIDGE_ABBA_SWITCH")
	knob, ok := abbaSwitches[name]
	if os.Getenv("MODELBRIDGE_ABBA_MODEL") == "" || !ok {
		names := slices.Sorted(maps.Keys(abbaSwitches))
		b.Skipf("skipping: set MODELBRIDGE_ABBA_MODEL to an ONNX file with one float input of fixed shape and MODELBRIDGE_ABBA_SWITCH to one of %s", strings.Join(names, ", "))
	}
	g, _ := benchModel(b, "MODELBRIDGE_ABBA_MODEL", "")
	shape := make([]int, len(g.Inputs[0].Shape))
	for i, d := range g.Inputs[0].Shape {
		if !d.Known() {
			b.Fatalf("input %q has a dimension of unknown size", g.Inputs[0].Name)
		}
		shape[i] = int(d.Size)
	}
	in := map[string]*canon.Tensor{g.Inputs[0].Name: randTensor(rand.New(rand.NewSource(7)), "x", shape...)}
	saved := *knob
	defer func() { *knob = saved }()
	var progs [2]*Program
	outs := [2]map[string]*canon.Tensor{{}, {}}
	run := func(side int) time.Duration {
		*knob = side == 0
		start := time.Now()
		if err := progs[side].RunInto(in, outs[side]); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for side := range progs {
		*knob = side == 0
		p, err := New(g)
		if err != nil {
			b.Fatal(err)
		}
		progs[side] = p
		run(side)
		run(side) // Winograd weights are made on the second run
	}
	per := max(1, int(300*time.Millisecond/run(0)))
	var ms [2][]float64
	var ratios []float64
	for range 8 {
		var round [2][]float64
		for _, side := range []int{0, 1, 1, 0} {
			for range per {
				round[side] = append(round[side], float64(run(side).Microseconds())/1000)
			}
		}
		on, off := median(round[0]), median(round[1])
		ms[0], ms[1] = append(ms[0], on), append(ms[1], off)
		ratios = append(ratios, on/off)
	}
	b.ReportMetric(median(ms[0]), "on-ms")
	b.ReportMetric(median(ms[1]), "off-ms")
	b.ReportMetric(median(ratios), "on/off")
}
