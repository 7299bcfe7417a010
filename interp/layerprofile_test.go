package interp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkLayerTimes runs the ONNX file at $MODELBRIDGE_PROFILE_ONNX
// (its first input at its static shape, random values) and logs each
// step's mean time with its input shapes, slowest first: the table to set
// beside ONNX Runtime's own profile of the same file. Run it with -v.
func BenchmarkLayerTimes(b *testing.B) {
	p, inputs := profiledModel(b)
	total := map[*step]time.Duration{}
	shapes := map[*step]string{}
	stepHook = func(x *exec, d time.Duration) {
		total[x.s] += d
		if _, seen := shapes[x.s]; !seen {
			var sb strings.Builder
			for _, id := range x.s.in {
				if id >= 0 && x.vals[id] != nil {
					fmt.Fprint(&sb, x.vals[id].shape)
				}
			}
			shapes[x.s] = sb.String()
		}
	}
	defer func() { stepHook = nil }()
	b.ResetTimer()
	for range b.N {
		if _, err := p.Run(inputs); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	steps := make([]*step, 0, len(total))
	var sum time.Duration
	for s, d := range total {
		steps = append(steps, s)
		sum += d
	}
	slices.SortFunc(steps, func(a, c *step) int { return int(total[c] - total[a]) })
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 / float64(b.N) }
	b.Logf("%d steps, %.1f µs a run in steps", len(steps), per(sum))
	for _, s := range steps {
		b.Logf("%9.1f µs  %-22s %s  %s", per(total[s]), strings.TrimPrefix(fmt.Sprintf("%T", s.node.Op), "*canon."), shapes[s], nodeName(s.node))
	}
}
