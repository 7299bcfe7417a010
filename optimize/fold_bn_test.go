package optimize

import (
	"fmt"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

func TestFoldBNConv(t *testing.T) {
	for _, bias := range []bool{false, true} {
		for _, group := range []int64{1, 2, 6} {
			t.Run(fmt.Sprintf("bias=%v/group=%d", bias, group), func(t *testing.T) {
				b := newGB(1)
				x := b.input("x", 2, 6, 9, 9)
				y := b.conv(x, 6, 12, 3, 2, 1, 1, group, bias)
				y = b.bn(y, 12, 1e-3)
				y = b.relu(y)
				opt := runPasses(t, b.output(y), "fold_bn")
				wantOps(t, opt, map[string]int{"BatchNormalization": 0, "Conv": 1})
			})
		}
	}
}

// The BN's output is a graph output: its name must survive the fold.
func TestFoldBNGraphOutput(t *testing.T) {
	b := newGB(2)
	x := b.input("x", 1, 3, 5, 5)
	y := b.bn(b.conv(x, 3, 4, 3, 1, 1, 1, 1, true), 4, 1e-5)
	opt := runPasses(t, b.output(y), "fold_bn")
	wantOps(t, opt, map[string]int{"BatchNormalization": 0})
	if opt.Outputs[0].Name != y || opt.Nodes[len(opt.Nodes)-1].Outputs[0] != y {
		t.Errorf("output renamed: %v", outputNames(opt))
	}
}

// A conv output read by another node too must not be folded.
func TestFoldBNSharedOutput(t *testing.T) {
	b := newGB(3)
	x := b.input("x", 1, 3, 5, 5)
	c := b.conv(x, 3, 4, 3, 1, 1, 1, 1, true)
	y := b.bn(c, 4, 1e-5)
	opt := runPasses(t, b.output(y, c), "fold_bn")
	wantOps(t, opt, map[string]int{"BatchNormalization": 1})
}

// ConvTranspose weights are IOHW: output channel oc = g*(C_out/G) + j lives
// at W[g*(C_in/G):(g+1)*(C_in/G), j]. Folding along the wrong axis (or
// ignoring groups) is the onnx/optimizer PR #106 / TVM #9336 bug.
func TestFoldBNConvTransposeGroups(t *testing.T) {
	for _, g := range []int64{1, 2, 3, 4} {
		for _, outPad := range []int64{0, 1} {
			t.Run(fmt.Sprintf("groups=%d/output_padding=%d", g, outPad), func(t *testing.T) {
				b := newGB(uint64(g*10 + outPad))
				cin, cout := 2*g, 3*g
				x := b.input("x", 2, cin, 5, 4)
				w := b.randW("IOHW", -0.5, 0.5, cin, cout/g, 3, 3)
				bias := b.randW("O", -0.5, 0.5, cout)
				y := b.node(&canon.ConvTranspose{Strides: []int64{2, 2}, Dilations: []int64{1, 2}, PadsBegin: []int64{1, 0},
					PadsEnd: []int64{0, 1}, OutputPadding: []int64{outPad, outPad}, Group: g}, x, w, bias)
				y = b.bn(y, cout, 1e-5)
				opt := runPasses(t, b.output(y), "fold_bn")
				wantOps(t, opt, map[string]int{"BatchNormalization": 0, "ConvTranspose": 1})
			})
		}
	}
}

func TestFoldBNLinearAndMatMul(t *testing.T) {
	b := newGB(4)
	x := b.input("x", 3, 5)
	l := b.node(&canon.Linear{Alpha: 0.5, Beta: 2}, x, b.randW("OI", -1, 1, 4, 5), b.randW("", -1, 1, 4))
	l = b.bn(l, 4, 1e-5)
	m := b.node(&canon.MatMul{}, l, b.randW("", -1, 1, 4, 6))
	m = b.bn(m, 6, 1e-5)
	opt := runPasses(t, b.output(m), "fold_bn")
	wantOps(t, opt, map[string]int{"BatchNormalization": 0, "Linear": 2, "MatMul": 0})
}

// Producers whose second input is a constant but not a weight a channel
// scale folds into (a BatchNorm's per-channel vector, a Concat operand, a
// PRelu slope) keep the BatchNorm.
func TestFoldBNOnlyIntoWeights(t *testing.T) {
	b := newGB(4)
	x := b.input("x", 1, 4, 5, 5)
	y := b.bn(b.bn(x, 4, 1e-5), 4, 1e-5)
	y = b.node(&canon.Concat{Axis: 1}, y, b.randW("", -1, 1, 1, 4, 5, 5))
	y = b.bn(y, 8, 1e-5)
	y = b.bn(b.node(&canon.PRelu{}, y, b.randW("", 0, 0.5, 8, 1, 1)), 8, 1e-5)
	opt := runPasses(t, b.output(y), "fold_bn")
	wantOps(t, opt, map[string]int{"BatchNormalization": 4})
}
