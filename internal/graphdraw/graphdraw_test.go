package graphdraw

import (
	"bytes"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// convBN is x -> Conv(W) -> BatchNorm -> Relu -> y, or with fold set the
// same model after BN folding: Conv(W') -> Relu.
func convBN(fold bool) *canon.Graph {
	w := canon.NewFloat32Tensor("W", []int64{2, 1, 3, 3}, make([]float32, 18))
	w.Layout = "OIHW"
	conv := &canon.Node{Name: "conv", Op: &canon.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 1}, PadsEnd: []int64{1, 1}, Group: 1}, Inputs: []string{"x", "W"}, Outputs: []string{"c"}}
	g := &canon.Graph{
		Name:    "convbn",
		Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(1, 1, 4, 4), RankKnown: true}},
		Outputs: []canon.ValueInfo{{Name: "y", DType: canon.Float32}},
	}
	if fold {
		w2 := canon.NewFloat32Tensor("W", []int64{2, 1, 3, 3}, make([]float32, 18))
		w2.Data[0] = 1 // the folded scale changed the weights
		w2.Layout = "OIHW"
		g.Initializers = []*canon.Tensor{w2}
		g.Nodes = []*canon.Node{conv, {Name: "relu", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"c"}, Outputs: []string{"y"}}}
		return g
	}
	ch := func(n string) *canon.Tensor {
		t := canon.NewFloat32Tensor(n, []int64{2}, []float32{1, 1})
		t.Layout = "C"
		return t
	}
	g.Initializers = []*canon.Tensor{w, ch("s"), ch("b"), ch("m"), ch("v")}
	g.Nodes = []*canon.Node{conv,
		{Name: "bn", Op: &canon.BatchNorm{Epsilon: 1e-5}, Inputs: []string{"c", "s", "b", "m", "v"}, Outputs: []string{"n"}},
		{Name: "relu", Op: &canon.Unary{Fn: canon.Relu}, Inputs: []string{"n"}, Outputs: []string{"y"}},
	}
	return g
}

func TestAttributesAreReadFromTheOp(t *testing.T) {
	g := convBN(false)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(Attributes(g.Nodes[0], g), "; ")
	if got != "kernel 3×3; pads 1,1,1,1" {
		t.Fatalf("conv attributes %q", got)
	}
	if got := strings.Join(Attributes(g.Nodes[1], g), "; "); got != "epsilon 1e-05" {
		t.Fatalf("bn attributes %q", got)
	}
	if got := Attributes(g.Nodes[2], g); len(got) != 0 {
		t.Fatalf("relu attributes %q", got)
	}
	tr := &canon.Node{Op: &canon.Transpose{Perm: []int64{0, 2, 3, 1}}}
	if got := strings.Join(Attributes(tr, g), ";"); got != "perm 0,2,3,1" {
		t.Fatalf("transpose %q", got)
	}
	mp := &canon.Node{Op: &canon.MaxPool{Kernel: []int64{2, 2}, Strides: []int64{2, 2}, CeilMode: true}}
	if got := strings.Join(Attributes(mp, g), ";"); got != "kernel 2×2;strides 2,2;ceil_mode yes" {
		t.Fatalf("maxpool %q", got)
	}
}

func TestDiffMarksRemovedChangedAdded(t *testing.T) {
	a, b := convBN(false), convBN(true)
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	d := Diff(a, b)
	status := map[string]Status{}
	notes := map[string]string{}
	for _, bx := range d.Boxes {
		status[bx.Title+"/"+bx.Name] = bx.Status
		notes[bx.Title+"/"+bx.Name] = bx.Note
	}
	if status["BatchNormalization/bn"] != Removed {
		t.Errorf("bn: %v", status["BatchNormalization/bn"])
	}
	if status["Conv/conv"] != Changed || !strings.Contains(notes["Conv/conv"], "weights") {
		t.Errorf("conv: %v %q", status["Conv/conv"], notes["Conv/conv"])
	}
	if status["Relu/relu"] != Changed || !strings.Contains(notes["Relu/relu"], "inputs") {
		t.Errorf("relu: %v %q", status["Relu/relu"], notes["Relu/relu"])
	}
	var added, removed int
	for _, e := range d.Edges {
		switch e.Status {
		case Added:
			added++
		case Removed:
			removed++
		}
	}
	// conv->bn and bn->relu went; conv->relu came.
	if added != 1 || removed != 2 {
		t.Errorf("edges: %d added, %d removed", added, removed)
	}
	// The reverse direction: the BatchNorm is an addition.
	r := Diff(b, a)
	found := false
	for _, bx := range r.Boxes {
		if bx.Name == "bn" {
			found = bx.Status == Added
		}
	}
	if !found {
		t.Error("reverse diff does not mark the BatchNorm as added")
	}
}

func TestDiffPairsUnnamedNodesByKindAndInputs(t *testing.T) {
	a, b := convBN(false), convBN(false)
	for _, g := range []*canon.Graph{a, b} {
		for _, n := range g.Nodes {
			n.Name = ""
		}
	}
	for _, bx := range Diff(a, b).Boxes {
		if bx.Status != Same {
			t.Fatalf("identical unnamed graphs: %s is %v", bx.Title, bx.Status)
		}
	}
}

func TestRenderersProduceDocuments(t *testing.T) {
	g := convBN(false)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	d := Diff(g, convBN(true))
	var dot, svg, page bytes.Buffer
	if err := WriteDOT(&dot, d); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dot.String(), `digraph "convbn"`) || !strings.Contains(dot.String(), "W W f32[2 1 3 3] OIHW") {
		t.Fatalf("dot:\n%s", dot.String())
	}
	if err := WriteSVG(&svg, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg.String(), `stroke-dasharray`) || strings.Count(svg.String(), "<g>") != len(d.Boxes) {
		t.Fatalf("svg boxes/dashes missing")
	}
	d.Title = "a<b"
	if err := WriteHTML(&page, d, svg.Bytes()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<title>a&lt;b</title>") || !strings.Contains(page.String(), "<svg") {
		t.Fatal("html page")
	}
	// Graphviz's prolog is stripped before inlining.
	if got := string(stripProlog([]byte(`<?xml version="1.0"?><!DOCTYPE svg><svg/>`))); got != "<svg/>" {
		t.Fatalf("stripProlog: %q", got)
	}
}
