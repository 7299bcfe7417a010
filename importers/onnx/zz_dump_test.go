package onnximport

import (
	"fmt"
	"os"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	
)

func TestDump(t *testing.T) {
	g, err := Read(os.Getenv("M"), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, v := range g.Inputs {
		fmt.Printf("in %s %v %v\n", v.Name, v.DType, v.Shape)
	}
	for _, x := range g.Initializers {
		fmt.Printf("init %s %v %v %s\n", x.Name, x.DType, x.Shape, x.Layout)
	}
	for _, n := range g.Nodes {
		fmt.Printf("node %s %s %+v %v -> %v\n", n.Name, n.Op.Kind(), n.Op, n.Inputs, n.Outputs)
	}
	for _, v := range g.Outputs {
		fmt.Printf("out %s %v %v\n", v.Name, v.DType, v.Shape)
	}
}
