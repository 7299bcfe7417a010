package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// runOne runs a one-node graph whose inputs are all fed at run time.
func runOne(t *testing.T, op canon.Op, ins []string, feed map[string]*canon.Tensor, outDT canon.DType) (*canon.Tensor, error) {
	t.Helper()
	g := graphOf(op, feed, ins, nil)
	g.Outputs[0].DType = outDT
	outs, err := Run(g, feed)
	if err != nil {
		return nil, err
	}
	return outs["y"], nil
}

func TestDynamicParamKernels(t *testing.T) {
	i64 := func(name string, v ...int64) *canon.Tensor { return canon.NewInt64Tensor(name, nil, v) }
	x := canon.NewFloat32Tensor("x", []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	xi := &canon.Tensor{Name: "x", DType: canon.Int32, Shape: []int64{4}, Data: []byte{0xfb, 0xff, 0xff, 0xff, 1, 0, 0, 0, 7, 0, 0, 0, 100, 0, 0, 0}} // -5 1 7 100
	scalarI32 := func(name string, v int32) *canon.Tensor {
		return &canon.Tensor{Name: name, DType: canon.Int32, Shape: []int64{}, Data: []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}}
	}
	for _, tc := range []struct {
		name string
		op   canon.Op
		ins  []string
		feed []*canon.Tensor
		dt   canon.DType
		want string // "shape=values" or "ERR substring"
	}{
		{"clip int bounds", canon.NewClip(), []string{"x", "lo", "hi"}, []*canon.Tensor{xi, scalarI32("lo", 0), scalarI32("hi", 7)}, canon.Int32, "[4]=[0 1 7 7]"},
		{"clip float max only", canon.NewClip(), []string{"x", "", "hi"}, []*canon.Tensor{x, canon.NewFloat32Tensor("hi", []int64{}, []float32{2.5})}, canon.Float32, "[2 3]=[1 2 2.5 2.5 2.5 2.5]"},
		{"clip bound dtype", canon.NewClip(), []string{"x", "lo"}, []*canon.Tensor{x, scalarI32("lo", 0)}, canon.Float32, "ERR same dtype"},
		{"pad over axes", &canon.Pad{Axes: []int64{-1}}, []string{"x", "p"}, []*canon.Tensor{x, i64("p", 1, 0)}, canon.Float32, "[2 4]=[0 1 2 3 0 4 5 6]"},
		{"pad int value", &canon.Pad{}, []string{"x", "p", "v"}, []*canon.Tensor{xi, i64("p", 0, 1), scalarI32("v", -9)}, canon.Int32, "[5]=[-5 1 7 100 -9]"},
		{"pad count", &canon.Pad{}, []string{"x", "p"}, []*canon.Tensor{x, i64("p", 1, 1)}, canon.Float32, "ERR want 4"},
		{"slice steps only", &canon.Slice{Starts: []int64{-1}, Ends: []int64{-100}, Axes: []int64{1}}, []string{"x", "", "", "", "st"}, []*canon.Tensor{x, i64("st", -2)}, canon.Float32, "[2 2]=[3 1 6 4]"},
		{"split sizes", &canon.Split{Axis: 1}, []string{"x", "s"}, []*canon.Tensor{x, i64("s", 3)}, canon.Float32, "[2 3]=[1 2 3 4 5 6]"},
		{"split sizes sum", &canon.Split{Axis: 1}, []string{"x", "s"}, []*canon.Tensor{x, i64("s", 2)}, canon.Float32, "ERR add up to 2"},
		{"unsqueeze axes", &canon.Unsqueeze{}, []string{"x", "a"}, []*canon.Tensor{x, i64("a", 0, -1)}, canon.Float32, "[1 2 3 1]=[1 2 3 4 5 6]"},
		{"squeeze empty axes", &canon.Squeeze{}, []string{"x", "a"}, []*canon.Tensor{canon.NewFloat32Tensor("x", []int64{1, 2, 1}, []float32{7, 8}), canon.NewInt64Tensor("a", []int64{0}, nil)}, canon.Float32, "[2]=[7 8]"},
		{"resize sizes", &canon.Resize{CoordTransform: canon.Asymmetric, Nearest: canon.Floor}, []string{"x", "", "z"}, []*canon.Tensor{x, i64("z", 2, 6)}, canon.Float32, "[2 6]=[1 1 2 2 3 3 4 4 5 5 6 6]"},
		{"resize scales", &canon.Resize{CoordTransform: canon.Asymmetric, Nearest: canon.Floor}, []string{"x", "s"}, []*canon.Tensor{x, canon.NewFloat32Tensor("s", []int64{2}, []float32{1, 2})}, canon.Float32, "[2 6]=[1 1 2 2 3 3 4 4 5 5 6 6]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			feed := map[string]*canon.Tensor{}
			for _, f := range tc.feed {
				feed[f.Name] = f
			}
			got, err := runOne(t, tc.op, tc.ins, feed, tc.dt)
			if want, isErr := strings.CutPrefix(tc.want, "ERR "); isErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error %v, want one containing %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			v, _ := got.Float64s()
			if s := fmt.Sprintf("%v=%v", got.Shape, v); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}
}
