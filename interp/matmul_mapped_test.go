package interp

import (
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
)

// Weights read from a mapped ONNX file are packed once per Program (their
// pages then let go); under a memory budget that the packed copy would
// take more than half of, the product runs on the weights where they lie.
// Every way gives gemm's bits.
func TestMappedWeightsPackedOnce(t *testing.T) {
	if !hasFMA {
		t.Skip("skipping: the packed weights path needs FMA")
	}
	const m, k, n = 37, 300, 520
	nb := newNetBuilder("x", m, k)
	wName, bName := nb.weight(0.1, k, n), nb.weight(0.1, n)
	y := nb.node(&canon.Binary{Fn: canon.Add}, nb.node(&canon.MatMul{}, "x", wName), bName)
	g := nb.finish(t, y)
	path := filepath.Join(t.TempDir(), "linear.onnx")
	if err := onnxexport.Write(g, path, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var w, bias []float32
	for _, init := range g.Initializers {
		v := floats(t, init)
		switch init.Name {
		case wName:
			w = v
		case bName:
			bias = v
		}
	}
	x := randTensor(rand.New(rand.NewSource(9)), "x", m, k)
	xv := floats(t, x)
	want := make([]float32, m*n)
	gemm(false, false, m, n, k, 1, xv, k, w, n, want, n, 0)
	(&matMulEp{bias: bias}).apply(want, n, 0, m, 0, n)

	run := func(limit int64) (packed bool) {
		t.Helper()
		old := MaxMemory
		MaxMemory = limit
		defer func() { MaxMemory = old }()
		mg, err := onnximport.Read(path, formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer mg.Close()
		for _, init := range mg.Initializers {
			if init.Name == wName && !mmapfile.Mapped(init.Data) {
				t.Skip("skipping: the file's weights were read, not mapped, on this file system")
			}
		}
		p, err := New(mg)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second run reads the packed copy made by the first
			out, err := p.Run(map[string]*canon.Tensor{"x": x})
			if err != nil {
				t.Fatalf("budget %d: %v", limit, err)
			}
			got := floats(t, out[y])
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("budget %d, element %d: %v, gemm %v", limit, i, got[i], want[i])
				}
			}
		}
		for _, s := range p.steps {
			if len(s.packedB) > 0 && s.packedB[0] != nil {
				packed = true
			}
		}
		return packed
	}
	if !run(0) {
		t.Error("the mapped weights were not packed under the default budget")
	}
	// The packed copy (300×528 floats, 619 KiB) is more than half of 1 MiB.
	if run(1 << 20) {
		t.Error("the weights were packed although the copy takes more than half the budget")
	}
}

// One weight matrix read by two MatMuls (tied weights) is packed once, and
// a second Program sharing the first's Shared reuses that packing.
func TestTiedWeightsPackedOnce(t *testing.T) {
	if !hasFMA {
		t.Skip("skipping: the packed weights path needs FMA")
	}
	nb := newNetBuilder("x", 20, 64)
	w := nb.weight(0.2, 64, 64)
	y := nb.node(&canon.MatMul{}, nb.node(&canon.MatMul{}, "x", w), w)
	g := nb.finish(t, y)
	in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(3)), "x", 20, 64)}
	packs := func(p *Program) map[*packedB]bool {
		seen := map[*packedB]bool{}
		for _, s := range p.steps {
			for _, pb := range s.packedB {
				if pb != nil {
					seen[pb] = true
				}
			}
		}
		return seen
	}
	alone, err := New(g)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alone.Run(in); err != nil {
		t.Fatal(err)
	}
	if n := len(packs(alone)); n != 1 {
		t.Fatalf("a program holds %d packings of the one weight matrix, want 1", n)
	}
	sh := NewShared()
	var first map[*packedB]bool
	var want []float32
	for k := range 2 {
		p, err := NewWithShared(g, sh)
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		got := floats(t, out[y])
		seen := packs(p)
		if len(seen) != 1 {
			t.Fatalf("program %d holds %d packings of the one weight matrix, want 1", k, len(seen))
		}
		if k == 0 {
			first, want = seen, got
			continue
		}
		for pb := range seen {
			if !first[pb] {
				t.Error("the second program packed the shared weights again")
			}
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("element %d: %v, first program %v", i, got[i], want[i])
			}
		}
	}
}
