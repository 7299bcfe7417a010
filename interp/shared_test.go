package interp

import (
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Two Programs given one Shared decode an unaligned weight once and pack
// it once; Retain drops what the next graph no longer uses; results match
// a Program of its own.
func TestSharedWeights(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{1, 4, 8, 8}, make([]float32, 4*64))
	for i := range x.Data {
		x.Data[i] = byte(i * 7)
	}
	mk := func(seed int) *canon.Tensor {
		w := canon.NewFloat32Tensor("w", []int64{8, 4, 3, 3}, make([]float32, 8*4*9))
		// Move the data one byte off 4-byte alignment (decoded in place only
		// where the CPU reads misaligned floats).
		buf := make([]byte, len(w.Data)+1)
		for i := range w.Data {
			buf[i+1] = byte(i*seed) & 0x3f
		}
		w.Data = buf[1:]
		w.Layout, _ = canon.LayoutFor(canon.RoleConvWeight, 4)
		return w
	}
	op := &canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}, Group: 1}
	w := mk(3)
	ga := graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x", "w"}, []*canon.Tensor{w})
	gb := graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x", "w"}, []*canon.Tensor{w})
	sh := NewShared()
	pa, err := NewWithShared(ga, sh)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pa.Run(map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	sh.Retain(gb)
	if len(sh.consts) != 1 {
		t.Fatalf("kept %d decoded constants, want the 1 both graphs use", len(sh.consts))
	}
	pb, err := NewWithShared(gb, sh)
	if err != nil {
		t.Fatal(err)
	}
	wa, wb := pa.consts[pa.steps[0].in[1]], pb.consts[pb.steps[0].in[1]]
	if wa != wb {
		t.Error("the second Program decoded the shared weight again")
	}
	got, err := pb.Run(map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	own, err := Run(ga, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range own {
		if string(got[name].Data) != string(o.Data) || string(want[name].Data) != string(o.Data) {
			t.Errorf("output %s differs from a Program of its own", name)
		}
	}
	if hasFMA && (pb.steps[0].packed == nil || &pb.steps[0].packed[0] != &pa.steps[0].packed[0]) {
		t.Error("the second Program packed the shared weight again")
	}
	// A graph with another weight keeps nothing of the first.
	sh.Retain(graphOf(op, map[string]*canon.Tensor{"x": x}, []string{"x", "w"}, []*canon.Tensor{mk(5)}))
	if len(sh.consts) != 0 || len(sh.packs) != 0 {
		t.Errorf("kept %d constants and %d packings no graph uses", len(sh.consts), len(sh.packs))
	}
}

// A Program that is done hands its idle buffers, and the memory they
// count for, to the next Program of its Shared, which computes the same
// results with them and lets go of the ones its first Run did not take;
// the first keeps working with buffers of its own.
func TestDoneHandsOverBuffers(t *testing.T) {
	// Every run takes the same path, so outputs compare bit for bit (a
	// second Run would otherwise switch 3×3 convolutions to Winograd).
	useWinograd = false
	defer func() { useWinograd = true }()
	g := viewNet(t, 1)
	in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(4)), "x", 1, 128, 8, 8)}
	sh := NewShared()
	pa, err := NewWithShared(g, sh)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pa.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	count := func(m map[int][][]float32) (n int) {
		for _, l := range m {
			n += len(l)
		}
		return n
	}
	idle := count(pa.pool.f)
	pa.pool.f[12345] = [][]float32{make([]float32, 12345)} // a size the next Program never uses
	pa.Done()
	pb, err := NewWithShared(g, sh)
	if err != nil {
		t.Fatal(err)
	}
	if got := count(pb.pool.spare); idle == 0 || got != idle+1 || pb.MemoryUsed() != pb.pool.spareBytes || pb.pool.spareBytes == 0 {
		t.Fatalf("the next Program got %d of %d idle buffers, charged %d bytes", got, idle+1, pb.MemoryUsed())
	}
	for _, p := range []*Program{pb, pa} {
		out, err := p.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		for name, w := range want {
			if string(out[name].Data) != string(w.Data) {
				t.Errorf("output %s differs after the hand-over", name)
			}
		}
	}
	if pb.pool.spare != nil || pb.pool.spareBytes != 0 || len(pb.pool.f[12345]) != 0 {
		t.Error("the spare buffers the first Run did not take are kept")
	}
	if count(pb.pool.f) != idle {
		t.Errorf("after its first Run the Program holds %d buffers, want the %d it took over", count(pb.pool.f), idle)
	}
	if pc, _ := NewWithShared(g, sh); pc.pool.spare != nil {
		t.Error("the spare buffers were handed over twice")
	}
}

// TestTakeFit: a free buffer serves requests from half its size up, the
// smallest that fits first, cut to the size asked for.
func TestTakeFit(t *testing.T) {
	free := map[int][][]float32{100: {make([]float32, 100)}, 150: {make([]float32, 150)}, 400: {make([]float32, 400)}}
	if b, ok := takeFit(free, 120); !ok || len(b) != 120 || cap(b) != 150 {
		t.Fatalf("takeFit(120) = len %d cap %d, %v; want the 150 buffer cut to 120", len(b), cap(b), ok)
	}
	if b, ok := takeFit(free, 100); !ok || cap(b) != 100 {
		t.Fatalf("takeFit(100) = cap %d, %v; want the 100 buffer", cap(b), ok)
	}
	if _, ok := takeFit(free, 150); ok {
		t.Fatal("takeFit(150) took the 400 buffer, more than twice the size asked for")
	}
	if b, ok := takeFit(free, 200); !ok || cap(b) != 400 || len(free[400]) != 0 {
		t.Fatalf("takeFit(200) = cap %d, %v; want the 400 buffer", cap(b), ok)
	}
}
