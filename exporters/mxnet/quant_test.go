package mxnetexport_test

import (
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/formats"
	mxnetimport "github.com/modelbridge/modelbridge/importers/mxnet"
	"github.com/modelbridge/modelbridge/interp"
)

// TestDequantizeLinearExact exports per-tensor, per-axis and blocked
// DequantizeLinear of int8 and uint16 data and checks the MXNet checkpoint
// gives the canonical graph's values bit for bit.
func TestDequantizeLinearExact(t *testing.T) {
	ints := func(name string, dt canon.DType, shape []int64, f func(i int) int64) *canon.Tensor {
		n := int(canon.NumElements(shape))
		t := &canon.Tensor{Name: name, DType: dt, Shape: shape, Data: make([]byte, n*dt.Size())}
		for i := 0; i < n; i++ {
			v := f(i)
			for k := 0; k < dt.Size(); k++ {
				t.Data[i*dt.Size()+k] = byte(uint64(v) >> (8 * k))
			}
		}
		return t
	}
	scales := func(name string, shape []int64) *canon.Tensor {
		v := make([]float32, canon.NumElements(shape))
		for i := range v {
			v[i] = 0.0123 * float32(i+1) / 7
		}
		return canon.NewFloat32Tensor(name, shape, v)
	}
	for _, tc := range []struct {
		name        string
		dt          canon.DType
		op          *canon.DequantizeLinear
		scaleShape  []int64
		withZeroPts bool
	}{
		{"per tensor", canon.Int8, &canon.DequantizeLinear{Axis: 1}, []int64{}, true},
		{"per axis", canon.Int8, &canon.DequantizeLinear{Axis: 1}, []int64{3}, true},
		{"blocked", canon.Uint16, &canon.DequantizeLinear{Axis: -1, BlockSize: 4}, []int64{2, 3, 2}, true},
		{"no zero point", canon.Uint16, &canon.DequantizeLinear{Axis: 0}, []int64{2}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := []int64{2, 3, 7}
			inits := []*canon.Tensor{scales("s", tc.scaleShape)}
			ins := []string{"x", "s"}
			if tc.withZeroPts {
				inits = append(inits, ints("z", tc.dt, tc.scaleShape, func(i int) int64 { return int64(i*5%9) - 3*int64(tc.dt.Size()%2) }))
				ins = append(ins, "z")
			}
			g := &canon.Graph{
				Inputs:       []canon.ValueInfo{{Name: "x", DType: tc.dt, Shape: canon.DimsOf(xs...), RankKnown: true}},
				Outputs:      []canon.ValueInfo{{Name: "y"}},
				Initializers: inits,
				Nodes:        []*canon.Node{{Name: "dq", Op: tc.op, Inputs: ins, Outputs: []string{"y"}}},
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "m-symbol.json")
			if err := mxnetexport.Write(g, out, formats.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			mx, err := mxnetimport.Read(out, formats.ReadOptions{InputShapes: map[string][]int64{"x": xs}})
			if err != nil {
				t.Fatal(err)
			}
			in := ints("x", tc.dt, xs, func(i int) int64 {
				if tc.dt == canon.Int8 {
					return int64(i*37%256) - 128
				}
				return int64(i * 1543 % 65536)
			})
			want, err := interp.Run(g, map[string]*canon.Tensor{"x": in})
			if err != nil {
				t.Fatal(err)
			}
			got, err := interp.Run(mx, map[string]*canon.Tensor{mx.Inputs[0].Name: in})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := want["y"].Float64s()
			b, _ := got[mx.Outputs[0].Name].Float64s()
			if len(a) != len(b) {
				t.Fatalf("%d values, want %d", len(b), len(a))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("element %d: %v, want %v (not bit-exact)", i, b[i], a[i])
				}
			}
		})
	}
}
