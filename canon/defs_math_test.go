package canon

import (
	"strings"
	"testing"
)

// Math on constants: Abs, Neg and Sign fold small integer constants (shape
// arithmetic), wrapping at the dtype's width; float functions keep the
// input's type; the float tests give bool.
func TestInferMath(t *testing.T) {
	cases := []struct {
		name string
		op   Op
		in   ValueInfo
		want string
	}{
		{"neg const", &Math{Fn: MathNeg}, constI64(nil, 3, -4, 0), "i64[3]=[-3 4 0]"},
		{"abs const", &Math{Fn: MathAbs}, constI64(nil, -2, 5), "i64[2]=[2 5]"},
		{"sign const", &Math{Fn: MathSign}, constI64([]int64{}, -9), "i64[]=[-1]"},
		{"exp f32", &Math{Fn: MathExp}, ValueInfo{DType: Float16, Shape: DimsOf(2, 3), RankKnown: true}, "f16[2 3]"},
		{"isnan", &IsNaN{}, ValueInfo{DType: Float32, Shape: DimsOf(4), RankKnown: true}, "bool[4]"},
		{"isinf", &IsInf{DetectPositive: true}, ValueInfo{DType: Float64, Shape: DimsOf(1, 2), RankKnown: true}, "bool[1 2]"},
		{"exp int", &Math{Fn: MathExp}, ValueInfo{DType: Int32, Shape: DimsOf(2), RankKnown: true}, "ERR Exp takes floating-point tensors only"},
		{"neg unsigned", &Math{Fn: MathNeg}, ValueInfo{DType: Uint16, Shape: DimsOf(2), RankKnown: true}, "ERR signed integer"},
		{"isinf int", &IsInf{}, ValueInfo{DType: Int8, Shape: DimsOf(2), RankKnown: true}, "ERR IsInf takes floating-point tensors only"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := node(tc.op, 1, 1)
			got, err := InferNode(n, []ValueInfo{tc.in})
			if want, isErr := strings.CutPrefix(tc.want, "ERR "); isErr {
				if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `node "n1"`) {
					t.Fatalf("error %v, want one naming the node and containing %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := show(got[0]); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}
}
