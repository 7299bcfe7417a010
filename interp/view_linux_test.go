package interp

import (
	"math/rand"
	"runtime/debug"
	"syscall"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// readOnlyCopies places copies of g's initializers, each misaligned, in
// memory mapped read-only (as a model file is), so a kernel writing into a
// weight it reads in place faults.
func readOnlyCopies(t *testing.T, g *canon.Graph) *canon.Graph {
	size := 0
	for _, w := range g.Initializers {
		size += len(w.Data) + 4
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(mem) })
	off := 0
	out := withInitializers(g, func(w *canon.Tensor) *canon.Tensor {
		c := *w
		c.Data = mem[off+1 : off+1+len(w.Data)]
		copy(c.Data, w.Data)
		off += len(w.Data) + 4
		return &c
	})
	if err := syscall.Mprotect(mem, syscall.PROT_READ); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	return out
}

// No kernel writes into a weight read in place from a read-only mapping:
// runs (twice, so cached packings are used too) give the results of
// weights in ordinary memory.
func TestReadOnlyWeightsNotWritten(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for _, batch := range []int64{1, 6} {
		g := viewNet(t, batch)
		in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(5)), "x", int(batch), 128, 8, 8)}
		ordinary, err := New(g)
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(readOnlyCopies(t, g))
		if err != nil {
			t.Fatal(err)
		}
		for run := range 2 { // the second run takes Winograd: compare it with a second run
			want, err := ordinary.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Run(in)
			if err != nil {
				t.Fatalf("batch %d, run %d: %v", batch, run, err)
			}
			for name, w := range want {
				if string(got[name].Data) != string(w.Data) {
					t.Errorf("batch %d, run %d: output %s differs", batch, run, name)
				}
			}
		}
	}
}
