package optimize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// Pairs that undo each other go, and so do identity Resizes and Casts;
// lossy round trips stay.
func TestEliminatePairs(t *testing.T) {
	cases := []struct {
		name  string
		build func(b *gb, x string) string
		left  int // nodes left besides the final Relu
	}{
		{"unsqueeze+squeeze", func(b *gb, x string) string {
			return b.node(&canon.Squeeze{Axes: []int64{2}}, b.node(&canon.Unsqueeze{Axes: []int64{2}}, x))
		}, 0},
		{"flatten+reshape back", func(b *gb, x string) string {
			return b.node(&canon.Reshape{Shape: []int64{2, 3, 4, 4}}, b.node(&canon.Flatten{Axis: 1}, x))
		}, 0},
		{"cast f32->f64->f32", func(b *gb, x string) string {
			return b.node(&canon.Cast{To: canon.Float32}, b.node(&canon.Cast{To: canon.Float64}, x))
		}, 0},
		{"cast f32->f16->f32 (lossy)", func(b *gb, x string) string {
			return b.node(&canon.Cast{To: canon.Float32}, b.node(&canon.Cast{To: canon.Float16}, x))
		}, 2},
		{"cast to own type", func(b *gb, x string) string {
			return b.node(&canon.Cast{To: canon.Float32}, x)
		}, 0},
		{"resize scale 1", func(b *gb, x string) string {
			return b.node(&canon.Resize{Scales: []float32{1, 1, 1, 1}, CoordTransform: canon.HalfPixel}, x)
		}, 0},
		{"resize scale 2", func(b *gb, x string) string {
			return b.node(&canon.Resize{Scales: []float32{1, 1, 2, 2}, CoordTransform: canon.Asymmetric, Nearest: canon.Floor}, x)
		}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(71)
			x := b.input("x", 2, 3, 4, 4)
			g := b.output(b.relu(tc.build(b, x)))
			opt := runPasses(t, g, "eliminate_noop")
			if got := len(opt.Nodes) - 1; got != tc.left {
				t.Errorf("%d nodes left besides Relu, want %d (ops %v)", got, tc.left, countOps(opt))
			}
		})
	}
}

// A zero Pad of the spatial axes moves into the Convs reading it; a Pad
// with a non-zero value or of the channel axis stays.
func TestFusePadConv(t *testing.T) {
	cases := []struct {
		name  string
		pad   *canon.Pad
		fused bool
	}{
		{"spatial zeros", &canon.Pad{PadsBegin: []int64{0, 0, 1, 2}, PadsEnd: []int64{0, 0, 2, 1}}, true},
		{"value 1", &canon.Pad{PadsBegin: []int64{0, 0, 1, 1}, PadsEnd: []int64{0, 0, 1, 1}, Value: 1}, false},
		{"channel pad", &canon.Pad{PadsBegin: []int64{0, 1, 1, 1}, PadsEnd: []int64{0, 0, 1, 1}}, false},
		{"reflect", &canon.Pad{Mode: canon.PadReflect, PadsBegin: []int64{0, 0, 1, 1}, PadsEnd: []int64{0, 0, 1, 1}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(72)
			x := b.input("x", 1, 3, 6, 6)
			cin := int64(3)
			if tc.name == "channel pad" {
				cin = 4
			}
			p := b.node(tc.pad, x)
			y1 := b.conv(p, cin, 4, 3, 1, 1, 1, 1, true)
			y2 := b.conv(p, cin, 2, 1, 2, 0, 1, 1, false)
			opt := runPasses(t, b.output(y1, y2), "fuse_pad_conv")
			if got := countOps(opt)["Pad"]; (got == 0) != tc.fused {
				t.Errorf("%d Pads left, fused want %v", got, tc.fused)
			}
		})
	}
}

// A BatchNorm, Mul or Add in front of unpadded Convs folds into them; in
// front of a padded Conv it stays (padding would see the shift).
func TestFoldIntoConvInput(t *testing.T) {
	cases := []struct {
		name   string
		affine string
		pad    int64
		group  int64
		folds  bool
	}{
		{"bn before 1x1", "bn", 0, 1, true},
		{"bn before grouped 3x3 valid", "bn", 0, 2, true},
		{"add before 1x1", "add", 0, 1, true},
		{"mul before padded 3x3", "mul", 1, 1, true}, // a pure scale maps padding zeros to zeros
		{"bn before padded 3x3", "bn", 1, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newGB(81)
			x := b.input("x", 1, 4, 6, 6)
			y := b.relu(x)
			switch tc.affine {
			case "bn":
				y = b.bn(y, 4, 1e-5)
			case "add":
				y = b.node(&canon.Binary{Fn: canon.Add}, y, b.randW("", -1, 1, 4, 1, 1))
			case "mul":
				y = b.node(&canon.Binary{Fn: canon.Mul}, b.randW("", -1, 1, 1, 4, 1, 1), y)
			}
			k := int64(1)
			if tc.pad > 0 || tc.group > 1 {
				k = 3
			}
			z := b.conv(y, 4, 6, k, 1, tc.pad, 1, tc.group, true)
			opt := runPasses(t, b.output(z), "fold_into_conv_input")
			if got := len(opt.Nodes); (got == 2) != tc.folds {
				t.Errorf("%d nodes left (ops %v), folded want %v", got, countOps(opt), tc.folds)
			}
		})
	}
}

// Constant folding never grows the parameters: a weight split into Slices
// and concatenated back in another order folds (the weight goes dead), an
// Expand of a constant into a bigger tensor stays computed.
func TestFoldConstantsNeverGrows(t *testing.T) {
	b := newGB(91)
	x := b.input("x", 2, 4)
	w := b.randW("", -1, 1, 6, 4)
	s1 := b.node(&canon.Slice{Starts: []int64{0}, Ends: []int64{2}, Axes: []int64{0}, Steps: []int64{1}}, w)
	s2 := b.node(&canon.Slice{Starts: []int64{2}, Ends: []int64{6}, Axes: []int64{0}, Steps: []int64{1}}, w)
	wt := b.node(&canon.Transpose{Perm: []int64{1, 0}}, b.node(&canon.Concat{Axis: 0}, s2, s1))
	y := b.node(&canon.MatMul{}, x, wt)
	bias := b.node(&canon.Expand{Shape: []int64{2, 6}}, b.randW("", -1, 1, 1, 6))
	g := b.output(b.node(&canon.Binary{Fn: canon.Add}, y, bias))
	opt := runPasses(t, g, "fold_constants")
	ops := countOps(opt)
	if ops["Slice"]+ops["Concat"]+ops["Transpose"] != 0 || ops["Expand"] != 1 {
		t.Errorf("ops after folding: %v (want the weight chain folded, the Expand kept)", ops)
	}
	if pa, pb := ParamCount(opt), ParamCount(g); pa > pb {
		t.Errorf("params grew %d -> %d", pb, pa)
	}
}
