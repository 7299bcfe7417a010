package optimize

import (
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestFloat16KeepsHalfUnsafeOps: the float16 conversion asks each op's
// definition; Attention (a softmax inside) stays float32, Relu does not.
func TestFloat16KeepsHalfUnsafeOps(t *testing.T) {
	for kind, kept := range map[string]bool{"Attention": true, "Softmax": true, "ReduceSum": true, "ReduceMax": false, "Relu": false} {
		d := canon.Lookup(kind)
		if (d.HalfUnsafe != "") != kept {
			t.Errorf("%s: HalfUnsafe %q, want kept in float32 = %v", kind, d.HalfUnsafe, kept)
		}
		g, err := d.ExampleGraph()
		if err != nil {
			t.Fatal(err)
		}
		_, rep, err := ToFloat16(g, Float16Options{})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got := rep.KeptFloat32[kind] > 0; got != kept {
			t.Errorf("%s: kept in float32 = %v, want %v (report %v)", kind, got, kept, rep.KeptFloat32)
		}
	}
}
