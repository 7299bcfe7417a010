package onnximport

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/interp"
)

// TestActivationAttributes checks each op's ONNX defaults and attributes.
func TestActivationAttributes(t *testing.T) {
	in, out := []string{"x"}, []string{"y"}
	cases := []struct {
		opset int64
		node  *onnxpb.NodeProto
		want  canon.Op
	}{
		{13, node("LogSoftmax", "n", in, out), &canon.LogSoftmax{Axis: 2}},
		{13, node("Hardmax", "n", in, out, aInt("axis", -2)), &canon.Hardmax{Axis: 1}},
		{11, node("LogSoftmax", "n", in, out, aInt("axis", 2)), &canon.LogSoftmax{Axis: 2}},
		{12, node("Celu", "n", in, out), &canon.Celu{Alpha: 1}},
		{12, node("Celu", "n", in, out, aFloat("alpha", 2)), &canon.Celu{Alpha: 2}},
		{18, node("Mish", "n", in, out), &canon.Mish{}},
		{10, node("ThresholdedRelu", "n", in, out), &canon.ThresholdedRelu{Alpha: 1}},
		{10, node("ThresholdedRelu", "n", in, out, aFloat("alpha", 0.5)), &canon.ThresholdedRelu{Alpha: 0.5}},
		{9, node("Shrink", "n", in, out), &canon.Shrink{Lambd: 0.5}},
		{9, node("Shrink", "n", in, out, aFloat("bias", 1), aFloat("lambd", 2)), &canon.Shrink{Bias: 1, Lambd: 2}},
		{12, node("Einsum", "n", in, out, aStr("equation", "ij k -> kji")), &canon.Einsum{Equation: "ijk->kji"}},
		{12, node("Einsum", "n", in, out, aStr("equation", "kji")), &canon.Einsum{Equation: "kji->ijk"}},
	}
	for _, c := range cases {
		g := mustRead(t, graphSpec{
			opset:   c.opset,
			nodes:   []*onnxpb.NodeProto{c.node},
			inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3, 4)},
			outputs: []*onnxpb.ValueInfoProto{unshaped("y")},
		})
		if len(g.Nodes) != 1 || !reflect.DeepEqual(g.Nodes[0].Op, c.want) {
			t.Errorf("%s at opset %d: %d nodes, %#v; want %#v", c.node.GetOpType(), c.opset, len(g.Nodes), g.Nodes[0].Op, c.want)
		}
	}
}

// TestActivationOpsetRefusals: an op read at an opset that predates it is
// refused naming the op.
func TestActivationOpsetRefusals(t *testing.T) {
	for _, c := range []struct {
		op    string
		opset int64
	}{{"Einsum", 11}, {"Celu", 11}, {"Mish", 17}, {"Shrink", 8}} {
		_, err := Read(write(t, graphSpec{
			opset:   c.opset,
			nodes:   []*onnxpb.NodeProto{node(c.op, "n", []string{"x"}, []string{"y"}, aStr("equation", "ij->ji"))},
			inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3)},
			outputs: []*onnxpb.ValueInfoProto{unshaped("y")},
		}.model()), formats.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.op) {
			t.Errorf("%s at opset %d: %v, want a refusal naming the op", c.op, c.opset, err)
		}
	}
}

// TestCoercedLogSoftmaxHardmax: before opset 13 the ops flatten the input
// to 2-D at axis; axis 1 of a (2,3,4) input normalizes over 12 values.
func TestCoercedLogSoftmaxHardmax(t *testing.T) {
	x := make([]float32, 24)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)*0.7)) * 3
	}
	for _, op := range []string{"LogSoftmax", "Hardmax"} {
		g := mustRead(t, graphSpec{
			opset:   11,
			nodes:   []*onnxpb.NodeProto{node(op, "n", []string{"x"}, []string{"y"}, aInt("axis", 1))},
			inputs:  []*onnxpb.ValueInfoProto{vinfo("x", tFloat, 2, 3, 4)},
			outputs: []*onnxpb.ValueInfoProto{vinfo("y", tFloat, 2, 3, 4)},
		})
		res, err := interp.Run(g, map[string]*canon.Tensor{"x": canon.NewFloat32Tensor("x", []int64{2, 3, 4}, x)})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := res["y"].Float64s()
		for row := range 2 {
			v := x[row*12 : (row+1)*12]
			m, best, sum := math.Inf(-1), 0, 0.0
			for k, f := range v {
				if float64(f) > m {
					m, best = float64(f), k
				}
			}
			for _, f := range v {
				sum += math.Exp(float64(f) - m)
			}
			for k, f := range v {
				want := float64(f) - m - math.Log(sum)
				if op == "Hardmax" {
					want = 0
					if k == best {
						want = 1
					}
				}
				if g := got[row*12+k]; math.Abs(g-want) > 1e-5 {
					t.Fatalf("%s: y[%d] = %v, want %v", op, row*12+k, g, want)
				}
			}
		}
	}
}

// unshaped is a float output of unknown rank.
func unshaped(name string) *onnxpb.ValueInfoProto {
	v := vinfo(name, tFloat)
	v.Type.GetTensorType().Shape = nil
	return v
}
