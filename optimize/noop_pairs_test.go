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
