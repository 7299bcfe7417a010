package interp

import (
	"sync"
	"testing"

	"github.com/modelbridge/modelbridge/interp/internal/vec"
)

// BenchmarkRecurrentProductsCores times one step's recurrent products of
// an LSTM of 512 units (R packed as the steps read it, 4 MB) on one core,
// and split in two halves of the panels that two goroutines stream at
// once, with no barrier between passes: how far the memory system lets a
// step's products scale before any synchronization is paid. Run it with
// -cpu 2.
func BenchmarkRecurrentProductsCores(b *testing.B) {
	const hid = 512
	r := make([]float32, 4*hid*hid)
	for i := range r {
		r[i] = float32(i%7) * 0.01
	}
	g := newGatePanels(r, hid, []int{0, 1, 2, 3})
	g.pack(make([]float32, g.size()))
	h := make([]float32, hid)
	n := g.panelCount()
	out := make([]float32, n*vec.PanelRows)
	for _, parts := range []int{1, 2} {
		b.Run(map[int]string{1: "one", 2: "halves"}[parts], func(b *testing.B) {
			b.SetBytes(int64(len(r) * 4))
			var wg sync.WaitGroup
			for p := range parts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range b.N {
						g.products(out, h, n*p/parts, n*(p+1)/parts)
					}
				}()
			}
			wg.Wait()
		})
	}
}
