package interp

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// RunInto gives Run's outputs, overwrites the tensors its previous call
// stored (no new buffers) and leaves alone tensors it did not make.
func TestRunIntoReusesItsOutputs(t *testing.T) {
	b := newNetBuilder("x", 2, 3, 5)
	relu := b.node(&canon.Unary{Fn: canon.Relu}, "x")
	asBool := b.node(&canon.Cast{To: canon.Bool}, relu)
	asHalf := b.node(&canon.Cast{To: canon.Float16}, "x")
	g := b.finish(t, relu)
	// A bool and a float16 output: converted, not copied, into the buffer.
	g.Outputs = append(g.Outputs, canon.ValueInfo{Name: asBool, DType: canon.Bool}, canon.ValueInfo{Name: asHalf, DType: canon.Float16})
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := New(g)
	if err != nil {
		t.Fatal(err)
	}
	mine := &canon.Tensor{Name: "mine", DType: canon.Float32, Shape: []int64{2, 3, 5}, Data: make([]byte, 4*30)}
	outs := map[string]*canon.Tensor{relu: mine}
	var first map[string]*canon.Tensor
	for seed := range int64(3) {
		in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(seed)), "x", 2, 3, 5)}
		want, err := p.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.RunInto(in, outs); err != nil {
			t.Fatal(err)
		}
		if seed == 0 {
			if outs[relu] == mine || !bytes.Equal(mine.Data, make([]byte, 4*30)) {
				t.Fatal("RunInto wrote into a tensor it did not make")
			}
			first = map[string]*canon.Tensor{}
			for k, v := range outs {
				first[k] = v
			}
		}
		for name, w := range want {
			got := outs[name]
			if got != first[name] || &got.Data[0] != &first[name].Data[0] {
				t.Errorf("run %d: output %q is a new tensor, want the previous one overwritten", seed, name)
			}
			if got.DType != w.DType || !bytes.Equal(got.Data, w.Data) || len(got.Shape) != len(w.Shape) {
				t.Errorf("run %d: output %q differs from Run's", seed, name)
			}
		}
	}
	// Run's results stay the caller's: a later RunInto replaces them.
	in := map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(9)), "x", 2, 3, 5)}
	kept, err := p.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	before := append([]byte(nil), kept[relu].Data...)
	into := map[string]*canon.Tensor{relu: kept[relu]}
	if err := p.RunInto(map[string]*canon.Tensor{"x": randTensor(rand.New(rand.NewSource(10)), "x", 2, 3, 5)}, into); err != nil {
		t.Fatal(err)
	}
	if into[relu] == kept[relu] || !bytes.Equal(kept[relu].Data, before) {
		t.Error("RunInto overwrote a tensor Run returned")
	}
}
